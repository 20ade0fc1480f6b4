// GEMM tiles of 192 rows in three consumer warpgroups (64 rows each), the epilogue's 64-byte
// chunks that leave them a fourth pipeline stage, and where packing takes them. No GPU
// needed (the GPU runs them in tests/gpu/test_gemm.cpp, "[tall]").
#include <catch2/catch.hpp>

#include <algorithm>

#include "codegen/target.h"
#include "generators/runner.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

namespace {
const samples::Sample& gemm() { return test::gemm_sample(); }
std::vector<std::string> problems(const samples::Config& c) { return test::gemm_problems(c); }
std::string first(const samples::Config& c) {
  const std::vector<std::string> p = problems(c);
  return p.empty() ? std::string() : p.front();
}
samples::Config tall(std::map<std::string, int64_t> params, ir::Dim3 cluster = {2, 1, 1}) {
  params.insert({{"m", 3000}, {"n", 3000}, {"k", 3000}, {"bm", 192}, {"consumers", 3}, {"bn", 192}});
  return test::gemm_config(params, cluster);
}
// The default path's choice from a 2x1 spec at m x n x k (naming the swap) on an H200's facts
// (132 SMs; 66 pairs or 30 clusters of 4 at once), checked to have bm rows (bm / 64 warpgroups) and bn
// columns and to be a config the GEMM accepts.
samples::Sample::DeviceChoice choice_of(int64_t m, int64_t n, int64_t k, int64_t bm, int64_t bn) {
  const samples::Sample::DeviceFacts h200 = test::h200_facts();
  INFO(m << " x " << n << " x " << k);
  // The swap named (0): packing's pick, before the one-wave swap (test_gemm_wave_swap.cpp) may replace it.
  samples::Config c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}, {"bn", 0}, {"schedule", 0}}, {2, 1, 1});
  c.named.insert("params.swap");
  const std::optional<samples::Sample::DeviceChoice> d = gemm().for_device(c, h200);
  REQUIRE(d.has_value());
  INFO(d->line);
  CHECK(d->config.param("bm") == bm);
  CHECK(d->config.param("consumers") == bm / 64);
  CHECK(d->config.param("bn") == bn);
  CHECK(problems(d->config).empty());
  return *d;
}
}  // namespace

TEST_CASE("gemm tiles of 192 rows: three consumers are accepted up to 192 columns and refused past them by name",
          "[samples][gemm][tall]") {
  CHECK(problems(tall({})).empty());
  CHECK(problems(tall({{"bn", 96}})).empty());
  const samples::GemmTiling t = samples::gemm_tiling(tall({}));
  CHECK(t.acc_rows() == 64);
  CHECK(t.threads() == 512);
  // ptxas compiles the kernel within the launch's 128 registers per thread (512 threads):
  // a 64x208 wgmma asked for 138.
  CHECK(first(tall({{"bn", 208}})) ==
        "params.bn: one wgmma of 64x208 needs 104 accumulator registers plus about 32 more, and ptxas compiles it within the "
        "launch's 128 per thread (512 threads): use bn of at most 192 with 3 consumers");
  // Rows: 64 per consumer warpgroup.
  CHECK(first(tall({{"bm", 128}})) == "params.bm: bm = 128 must be a multiple of 64 x the warpgroups that share a tile's rows (192)");
  // Ping-pong alternates tiles between exactly two.
  const std::vector<std::string> pp = problems(tall({{"pingpong", 1}}));
  CHECK(std::any_of(pp.begin(), pp.end(), [](const std::string& p) {
    return p == "params.pingpong: pingpong alternates tiles between 2 consumer warpgroups: set warp_specialized 1 and consumers 2, or "
                "pingpong 0";
  }));
}

TEST_CASE("gemm epilogue chunks of 64 bytes where 128 would leave fewer than 4 stages", "[samples][gemm][tall]") {
  struct Want {
    std::map<std::string, int64_t> params;
    unsigned chunk, stages;
  };
  for (const Want& w : std::vector<Want>{
           {{}, 64, 4},                                              // 192x192: 3 stages with 128-byte chunks
           {{{"epilogue_chunk", 128}}, 128, 3},                      // as named
           {{{"stages", 4}}, 64, 4},                                 // named stages that fit only so
           {{{"stages", 3}}, 128, 3},                                // ... and ones that fit either way
           {{{"bm", 128}, {"consumers", 2}}, 128, 4},                // 128x192: 4 stages either way
           {{{"bm", 128}, {"consumers", 2}, {"bn", 256}}, 128, 4},   // 128x256
           {{{"bm", 128}, {"consumers", 2}, {"bn", 240}}, 64, 4},    // 128x240: 3 with 128
           {{{"bm", 256}, {"consumers", 2}, {"bn", 128}}, 64, 4},    // 256x128: 3 with 128
       }) {
    const samples::Config c = tall(w.params);
    INFO(c.params.at("bm") << "x" << c.params.at("bn") << " epilogue_chunk " << c.param("epilogue_chunk") << " stages "
                           << c.param("stages"));
    REQUIRE(problems(c).empty());
    const samples::GemmTiling t = samples::gemm_tiling(c);
    CHECK(t.chunk_bytes == w.chunk);
    CHECK(t.stages == w.stages);
    CHECK(samples::smem_bytes(samples::gemm_shape(c), t) <= 232448);
  }
  // Split-K in the cluster shares whole 128-byte chunks: it keeps them.
  CHECK(samples::gemm_tiling(tall({{"schedule", 3}, {"splits", 2}, {"split_reduce", 2}}, {1, 1, 2})).chunk_bytes == 128);
  CHECK(first(tall({{"epilogue_chunk", 96}})) == "params.epilogue_chunk: epilogue_chunk = 96 must be 64 or 128 bytes (0: chosen)");
}

TEST_CASE("gemm tiles of 192 rows lower, pass the checks and compile for sm_90a without spills", "[samples][gemm][tall]") {
  for (const std::map<std::string, int64_t>& p : std::vector<std::map<std::string, int64_t>>{
           {},
           {{"out", 2}},
           {{"bias", 1}, {"col_scale", 1}, {"act", 2}},
           {{"bias", 1}, {"act", 3}, {"residual", 1}},
           {{"schedule", 2}},
           {{"schedule", 3}, {"splits", 3}, {"split_reduce", 1}},
           {{"bn", 144}},
       }) {
    samples::Config c = tall(p);
    if (!p.count("bias")) c.reals["beta"] = 0.5;  // C loaded into the 64-byte chunk buffers
    std::string what;
    for (auto& [key, v] : p) what += key + "=" + std::to_string(v) + " ";
    INFO(what);
    REQUIRE(problems(c).empty());
    const samples::Compiled compiled = samples::compile_sample(gemm(), c, codegen::Target::sm90a(), nullptr);
    CHECK(!compiled.ptx().empty());
    // Three consumer warpgroups after the producer: 512 threads.
    CHECK(compiled.cuda().find("__launch_bounds__(512") != std::string::npos);
    const codegen::Lowered l = codegen::lower(gemm().build(c), codegen::Target::sm90a());
    test::compile_without_spills(l, what);
  }
  // Schedule dynamic's claim adds registers: it compiles, with 8 bytes spilled at 128 per thread.
  const samples::Config dynamic = tall({{"bn", 128}, {"schedule", 4}});
  REQUIRE(problems(dynamic).empty());
  CHECK(!samples::compile_sample(gemm(), dynamic, codegen::Target::sm90a(), nullptr).ptx().empty());
}

TEST_CASE("gemm packing takes 192-row tiles for unaligned operand rows over a long enough K", "[samples][gemm][tall]") {
  const samples::Sample::DeviceFacts h200 = test::h200_facts();
  struct Want {
    int64_t m, n, k;
    int64_t bm, bn;  // chosen
  };
  for (const Want& w : std::vector<Want>{
           {3000, 3000, 3000, 192, 192},  // 2 waves of 192x192 against 3 of 128x192, as cuBLAS tiles it
           {3000, 1000, 5000, 192, 128},
           {5000, 5000, 1000, 128, 320},  // K of 16 k-blocks: under kGemmTallMinKblocks (the wide tile instead)
           {6144, 6144, 6144, 128, 256},  // aligned rows
           {1000, 3000, 3000, 128, 224},  // 6 tile rows of 192 fill fewer clusters than 8 of 128 (in 2x2)
           {1500, 3000, 5000, 192, 192},  // one wave of 64 pairs
           {7000, 3000, 2200, 128, 256},  // 1x4 (kGemmQuadGain): 6 waves of 30 against 5 of 66 pairs of 192x192
           {2000, 1000, 6000, 128, 128},  // 192 rows only from 128 columns (kGemmTallMinBn): not 192x112
       }) {
    const samples::Sample::DeviceChoice d = choice_of(w.m, w.n, w.k, w.bm, w.bn);
    INFO(d.line);
    if (w.bm == 192) CHECK(d.line.find("bm 128 -> 192, consumers 2 -> 3") != std::string::npos);
    // Tall tiles pair along N where the rows tie (kGemmTallAlongM).
    if (w.bm == 192) CHECK(d.config.cluster.str() == ir::Dim3{2, 1, 1}.str());
  }
  // Layout nn keeps 128 rows (B N-major: not run on a GPU as a default yet).
  {
    const samples::Config nn =
        test::gemm_config({{"m", 3000}, {"n", 3000}, {"k", 3000}, {"bn", 0}, {"schedule", 0}, {"layout", 1}}, {2, 1, 1});
    const std::optional<samples::Sample::DeviceChoice> d = gemm().for_device(nn, h200);
    REQUIRE(d.has_value());
    CHECK(d->config.param("bm") == 128);
  }
  // A spec that names its rows or warpgroups keeps them.
  samples::Config named = test::gemm_config({{"m", 3000}, {"n", 3000}, {"k", 3000}, {"bn", 0}, {"schedule", 0}}, {2, 1, 1});
  named.named.insert("params.consumers");
  const std::optional<samples::Sample::DeviceChoice> d = gemm().for_device(named, h200);
  REQUIRE(d.has_value());
  CHECK(d->config.param("bm") == 128);
  CHECK(d->config.param("consumers") == 2);
}

TEST_CASE("gemm packing: over rows of whole 32-byte sectors and a short K, a tall pair takes the place of a 2x2 pick only",
          "[samples][gemm][tall]") {
  struct Want {
    int64_t m, n, k;
    int64_t bm, bn;
    ir::Dim3 cluster;
  };
  for (const Want& w : std::vector<Want>{
           {4362, 2968, 1824, 192, 192, {2, 1, 1}},  // 3648-byte rows, 29 k-blocks: in place of 192 in 2x2
           {820, 5904, 688, 192, 128, {2, 1, 1}},     // 11 k-blocks: in place of 208 in 2x2
           {2128, 3904, 1424, 192, 192, {2, 1, 1}},
           {4362, 2968, 1832, 128, 192, {2, 2, 1}},   // 3664-byte rows, 16 bytes past a sector: 2x2 stays
           {4362, 2968, 1792, 128, 208, {1, 1, 1}},   // aligned rows: unclustered, as before
           {5120, 7088, 2032, 128, 320, {1, 2, 1}},   // 32 k-blocks: the rules of longer K (the wide tile)
           {3448, 3360, 1168, 128, 256, {1, 2, 1}},   // a pair along M stays
           {3008, 1248, 848, 128, 256, {1, 4, 1}},    // four along M stay
       }) {
    const samples::Sample::DeviceChoice d = choice_of(w.m, w.n, w.k, w.bm, w.bn);
    INFO(w.m << " x " << w.n << " x " << w.k << ": " << d.line);
    CHECK(d.config.cluster.str() == w.cluster.str());
    CHECK((d.line.find("in the place of 2x2") != std::string::npos) == (w.bm == 192));
  }
}
