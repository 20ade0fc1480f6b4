// GEMM tiles of any multiple of 8 columns (layout tn, up to 256): the last epilogue chunk
// of such a width is narrower than 128 bytes of D and leaves through a buffer and the maps
// D_tail and C_tail of its own; other layouts and widths are refused by name. No GPU needed
// (the GPU runs them in tests/gpu/test_gemm.cpp, "[widths]").
#include <catch2/catch.hpp>

#include <algorithm>

#include "codegen/target.h"
#include "generators/runner.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "samples/gemm_host.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

namespace {
const samples::Sample& gemm() { return test::gemm_sample(); }
std::vector<std::string> problems(const samples::Config& c) { return test::gemm_problems(c); }
}  // namespace

TEST_CASE("gemm widths of 8-column steps: the tail chunk's buffer and maps, by width and output type",
          "[samples][gemm][widths]") {
  struct Want {
    int64_t bn, out;       // out: 0 bf16, 2 f32
    unsigned tail;         // columns of the tail chunk (0: none)
    ir::Swizzle swizzle;   // of the tail's buffer and maps
    int64_t chunk = 128;   // epilogue_chunk: bytes of D's rows per chunk
  };
  for (const Want& w : std::vector<Want>{{144, 0, 16, ir::Swizzle::B32},
                                         {160, 0, 32, ir::Swizzle::B64},
                                         {240, 0, 48, ir::Swizzle::None},
                                         {48, 0, 48, ir::Swizzle::None},
                                         {112, 2, 16, ir::Swizzle::B64},
                                         {192, 0, 0, ir::Swizzle::None},
                                         {96, 2, 0, ir::Swizzle::None},
                                         // Chunks of 64 bytes: 32 columns of bf16, 16 of f32.
                                         {240, 0, 16, ir::Swizzle::B32, 64},
                                         {160, 0, 0, ir::Swizzle::None, 64},
                                         {112, 2, 0, ir::Swizzle::None, 64},
                                         {208, 2, 0, ir::Swizzle::None, 64},
                                         {80, 0, 16, ir::Swizzle::B32, 0},  // 0: chosen (128, the stages fit)
                                         // Odd multiples of 8: tails of an odd count of n8 groups.
                                         {88, 0, 24, ir::Swizzle::None},
                                         {72, 0, 8, ir::Swizzle::None},
                                         {8, 0, 8, ir::Swizzle::None},
                                         {40, 0, 40, ir::Swizzle::None},
                                         {104, 2, 8, ir::Swizzle::B32},
                                         {120, 2, 24, ir::Swizzle::None},
                                         {88, 0, 24, ir::Swizzle::None, 64},
                                         {200, 0, 8, ir::Swizzle::None, 64}}) {
    INFO("bn " << w.bn << " out " << w.out << " chunk " << w.chunk);
    const samples::Config c =
        test::gemm_config({{"m", 1000}, {"n", 1000}, {"k", 1024}, {"bn", w.bn}, {"out", w.out}, {"epilogue_chunk", w.chunk}});
    CHECK(problems(c).empty());
    const samples::GemmShape s = samples::gemm_shape(c);
    const samples::GemmTiling t = samples::gemm_tiling(c);
    CHECK(samples::gemm_tail_cols(s, t) == w.tail);
    const ir::Kernel k = gemm().build(c);
    const ir::TensorMapDecl *d = k.find_tensor_map("D_tail"), *ct = k.find_tensor_map("C_tail");
    CHECK((d != nullptr) == (w.tail != 0));
    CHECK((ct != nullptr) == (w.tail != 0));
    if (d && ct) {
      // A box of the tail's columns by one warpgroup's 64 rows, as the chunks' are.
      CHECK(d->box == std::vector<unsigned>{w.tail, 64});
      CHECK(ct->box == d->box);
      CHECK(d->swizzle == w.swizzle);
      // Declared right after C, as the host passes them (samples/gemm_host.cpp).
      CHECK(k.params[3].name == "C");
      CHECK(k.params[4].name == "D_tail");
      CHECK(k.params[5].name == "C_tail");
    }
    CHECK(samples::gemm_kernel_problems(s, k).empty());
  }
}

TEST_CASE("gemm widths of 8-column steps lower, pass the checks and compile for sm_90a with C, the residual, split-K and stream-K",
          "[samples][gemm][widths]") {
  for (const std::map<std::string, int64_t>& p : std::vector<std::map<std::string, int64_t>>{
           {{"bn", 144}},
           {{"bn", 240}, {"out", 2}},
           {{"bn", 176}, {"bias", 1}, {"act", 2}, {"residual", 1}},
           {{"bn", 80}, {"schedule", 2}},
           {{"bn", 208}, {"schedule", 3}, {"splits", 3}, {"split_reduce", 1}},
           {{"bn", 144}, {"pingpong", 1}, {"schedule", 1}},
           {{"bn", 88}},
           {{"bn", 120}, {"out", 2}, {"schedule", 2}},
           {{"bn", 104}, {"bias", 1}, {"act", 2}, {"residual", 1}},
           {{"bn", 72}, {"schedule", 3}, {"splits", 3}, {"split_reduce", 1}},
           {{"bn", 88}, {"pingpong", 1}, {"schedule", 1}},
       }) {
    std::map<std::string, int64_t> all = {{"m", 1000}, {"n", 1000}, {"k", 3000}};
    all.insert(p.begin(), p.end());
    samples::Config c = test::gemm_config(all, {1, 2, 1});
    if (!p.count("bias")) c.reals["beta"] = 0.5;  // C through C_tail
    INFO("bn " << p.at("bn"));
    REQUIRE(problems(c).empty());
    const samples::Compiled compiled = samples::compile_sample(gemm(), c, codegen::Target::sm90a(), nullptr);
    CHECK(!compiled.ptx().empty());
    // The tail's stores: 16-bit rows by stmatrix, f32 by pairs, in the tail's layout.
    const std::string& cuda = compiled.cuda();
    CHECK(cuda.find(p.count("out") ? "tj::store_pair_tile<" : "tj::stmatrix_x4_tile<") != std::string::npos);
    // An odd count of 8-column groups in 16-bit D: the last group's pairs by 32-bit stores.
    CHECK((cuda.find("tj::store_pair_tile<") != std::string::npos) == (p.count("out") || p.at("bn") % 16 != 0));
  }
}

TEST_CASE("gemm widths of 8-column steps: where they are refused, and why", "[samples][gemm][widths]") {
  auto first = [](const samples::Config& c) {
    const std::vector<std::string> p = problems(c);
    return p.empty() ? std::string() : p.front();
  };
  // nn: B's N-major panels are 64 columns; over 256: two wgmmas of whole panels.
  CHECK(first(test::gemm_config({{"bn", 144}, {"layout", 1}})) ==
        "params.bn: bn = 144 must be a multiple of 64 (layout nn; multiples of 8 up to 256 with layout tn)");
  CHECK(first(test::gemm_config({{"bn", 272}})) == "params.bn: bn = 272 must be a multiple of 64 (over 256 columns; multiples of 8 up to 256 with layout tn)");
  CHECK(first(test::gemm_config({{"bn", 100}})) == "params.bn: bn = 100 must be a multiple of 8");
  // Coop cols halves the tile's columns: each half an n8 multiple.
  CHECK(first(test::gemm_config({{"bn", 88}, {"coop", 1}})) ==
        "params.bn: coop cols cuts bn = 88 into 2 equal shares of a multiple of 8 columns: use a bn that is a multiple of 16");
  // Split-K in the cluster writes whole chunks per plane: a tail does not deal out.
  samples::Config c = test::gemm_config({{"bn", 144}, {"schedule", 3}, {"splits", 2}, {"split_reduce", 2}}, {1, 1, 2});
  const std::vector<std::string> p = problems(c);
  CHECK(std::any_of(p.begin(), p.end(), [](const std::string& s) {
    return s.rfind("params.split_reduce: split_reduce cluster: each of the 2 splits writes whole chunks", 0) == 0;
  }));
}
