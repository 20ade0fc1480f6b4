// GEMM consumers that split the tile's columns (coop cols): what the config accepts and
// refuses, the epilogue buffers and stages it gets, and that the kernels lower, pass the
// checks and compile for sm_90a without spills. No GPU needed (the GPU runs them in
// tests/gpu/test_gemm.cpp, "[coop]").
#include <catch2/catch.hpp>

#include <algorithm>

#include "codegen/target.h"
#include "dsl/ir/printer.h"
#include "generators/runner.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

namespace {
const samples::Sample& gemm() { return test::gemm_sample(); }
std::vector<std::string> problems(const samples::Config& c) { return test::gemm_problems(c); }
bool has(const samples::Config& c, const std::string& problem) {
  const std::vector<std::string> p = problems(c);
  return std::find(p.begin(), p.end(), problem) != p.end();
}
constexpr int64_t kCols = 1;
samples::Config coop(std::map<std::string, int64_t> params, ir::Dim3 cluster = {1, 1, 1}) {
  params.insert({{"m", 4362}, {"n", 2968}, {"k", 1824}, {"bm", 192}, {"bn", 208}, {"coop", kCols}});
  return test::gemm_config(params, cluster);
}
}  // namespace

TEST_CASE("gemm coop cols: each consumer owns all rows and a share of the columns, refused by name where it cannot",
          "[samples][gemm][coop]") {
  CHECK(problems(coop({})).empty());
  const samples::GemmTiling t = samples::gemm_tiling(coop({}));
  CHECK(t.split_cols);
  CHECK(t.acc_rows() == 192);
  CHECK(t.acc_cols() == 104);
  CHECK(t.threads() == 384);
  CHECK(t.chunk_row_sets() == 2);
  // Row-split consumers are unchanged.
  const samples::GemmTiling rows = samples::gemm_tiling(coop({{"coop", 0}, {"bm", 128}}));
  CHECK((rows.acc_rows() == 64 && rows.acc_cols() == 208 && rows.chunk_row_sets() == 1));
  for (const std::map<std::string, int64_t>& ok : std::vector<std::map<std::string, int64_t>>{
           {{"bm", 256}, {"bn", 192}},                       // 256 x 96 each
           {{"bm", 128}, {"bn", 320}},                       // two m64n160 from shared memory, not the wide path
           {{"bm", 128}, {"bn", 192}, {"consumers", 3}},     // 128 x 64 each
           {{"bn", 176}, {"schedule", 2}},                   // stream-K
           {{"bn", 144}, {"schedule", 3}, {"splits", 4}},    // split-K
           {{"swap", 1}},                                    // swapped: all of B's rows by a share of A's each
       })
    CHECK(problems(coop(ok)).empty());
  CHECK(has(coop({{"layout", 1}, {"bn", 192}}),
            "params.coop: coop cols gives each consumer its share of B's rows, K-major with layout tn (nn's B is N-major): use "
            "layout tn, or coop rows"));
  const std::string split = "params.coop: coop cols shares a tile's columns between the cooperative consumer warpgroups: set "
                            "warp_specialized 1, consumers 2 or 3 and pingpong 0, or coop rows";
  CHECK(has(coop({{"pingpong", 1}}), split));
  CHECK(has(coop({{"consumers", 1}}), split));
  CHECK(has(coop({{"warp_specialized", 0}}), split));
  CHECK(has(coop({{"consumers", 3}, {"bn", 176}}),
            "params.bn: coop cols cuts bn = 176 into 3 equal shares of a multiple of 8 columns: use a bn that is a multiple of 24"));
  // Each consumer holds bm x bn / 2: 256 x 128 is 256 registers a thread.
  CHECK(has(coop({{"bm", 256}, {"bn", 256}}),
            "params.bn: a 256x128 accumulator per consumer warpgroup needs 256 registers per thread plus about 40 more; a "
            "consumer of 2 has 232: use bm x bn of at most 49152 elements"));
  // Split-K in the cluster deals out columns of every warpgroup's rows: not with it.
  CHECK(samples::gemm_split_in_cluster_refusal(samples::gemm_shape(coop({{"schedule", 3}, {"splits", 2}})),
                                               samples::gemm_tiling(coop({{"schedule", 3}, {"splits", 2}})), 2) ==
        "coop cols stores each warpgroup's own columns, whole");
}

TEST_CASE("gemm coop cols: one epilogue buffer per consumer where two leave fewer than 4 stages", "[samples][gemm][coop]") {
  struct Want {
    std::map<std::string, int64_t> params;
    unsigned chunk, buffers, stages;
  };
  for (const Want& w : std::vector<Want>{
           {{{"bn", 176}}, 64, 1, 4},                              // 192x176: shares of 88, a tail of 24
           {{{"bn", 192}}, 64, 1, 4},                              // 192x192
           {{}, 64, 2, 3},                                         // 192x208: its tails' buffers leave no 4th stage
           {{{"bn", 192}, {"epilogue_buffers", 2}}, 64, 2, 3},     // as named
           {{{"bn", 192}, {"epilogue_chunk", 128}}, 128, 1, 3},    // named 128-byte chunks: one buffer of them
           {{{"bn", 192}, {"stages", 3}}, 64, 2, 3},               // named stages: 64-byte chunks fit them
           {{{"bm", 128}, {"bn", 256}}, 64, 2, 4},                 // 4 stages with two buffers of 64-byte chunks
           {{{"bm", 128}, {"bn", 256}, {"coop", 0}}, 128, 2, 4},   // the row split
           {{{"bn", 192}, {"consumers", 3}, {"coop", 0}}, 64, 2, 4},   // three consumers of 64 rows keep two buffers
           {{{"bm", 128}, {"bn", 256}, {"coop", 0}, {"epilogue_buffers", 1}}, 128, 1, 4},  // named for the row split
       }) {
    const samples::Config c = coop(w.params);
    std::string what;
    for (auto& [key, v] : w.params) what += key + "=" + std::to_string(v) + " ";
    INFO(what);
    REQUIRE(problems(c).empty());
    const samples::GemmTiling t = samples::gemm_tiling(c);
    CHECK(t.chunk_bytes == w.chunk);
    CHECK(t.chunk_buffers == w.buffers);
    CHECK(t.stages == w.stages);
    CHECK(samples::smem_bytes(samples::gemm_shape(c), t) <= 232448);
  }
}

TEST_CASE("gemm coop cols lowers, passes the checks and compiles for sm_90a without spills", "[samples][gemm][coop]") {
  for (const std::map<std::string, int64_t>& p : std::vector<std::map<std::string, int64_t>>{
           {},
           {{"bn", 176}},  // one buffer
           {{"out", 2}, {"bn", 160}},
           {{"bias", 1}, {"col_scale", 1}, {"act", 2}},
           {{"bias", 1}, {"act", 3}, {"residual", 1}},
           {{"schedule", 2}},
           {{"schedule", 3}, {"splits", 3}, {"split_reduce", 1}},
           {{"bm", 128}, {"bn", 320}},
           {{"bm", 128}, {"bn", 192}, {"consumers", 3}},
           {{"swap", 1}},                                  // three 64-row blocks stored transposed, a tail of 40
           {{"swap", 1}, {"bias", 1}, {"act", 2}, {"out", 2}},
       }) {
    samples::Config c = coop(p, {2, 1, 1});
    if (!p.count("bias")) c.reals["beta"] = 0.5;  // C loaded into each consumer's chunk buffers
    std::string what;
    for (auto& [key, v] : p) what += key + "=" + std::to_string(v) + " ";
    INFO(what);
    REQUIRE(problems(c).empty());
    const samples::GemmTiling t = samples::gemm_tiling(c);
    const codegen::Lowered l = codegen::lower(gemm().build(c), codegen::Target::sm90a());
    // Each warpgroup's accumulator is all the tile's rows by its share of the columns.
    const std::string acc = "accumulator acc: f32 " + std::to_string(t.bm) + "x" + std::to_string(t.acc_cols()) + " per warpgroup";
    CHECK(ir::to_string(l.kernel).find(acc) != std::string::npos);
    test::compile_without_spills(l, what);
  }
}
