// GEMM tiles of 128 rows held by one MMA warpgroup (two 64-row accumulators, m64 wgmmas on
// each): accepted where the accumulator fits the consumer's registers, refused past that by
// name, and compiled without spills. No GPU needed (the GPU runs them in
// tests/gpu/test_gemm.cpp, "[one_warpgroup]").
#include <catch2/catch.hpp>

#include "codegen/target.h"
#include "generators/runner.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

namespace {
const samples::Sample& gemm() { return test::gemm_sample(); }
samples::Config one_warpgroup(int64_t bn, ir::Dim3 cluster = {2, 1, 1}) {
  return test::gemm_config({{"m", 1000}, {"n", 1280}, {"k", 4096}, {"bm", 128}, {"bn", bn}, {"consumers", 1}}, cluster);
}
}  // namespace

TEST_CASE("gemm tiles of 128 rows in one MMA warpgroup: up to 192 columns, refused past the registers by name",
          "[samples][gemm][one_warpgroup]") {
  for (int64_t bn : {64, 80, 128, 192}) {
    INFO("bn " << bn);
    CHECK(gemm().check_config(one_warpgroup(bn)).empty());
  }
  const std::vector<samples::ConfigProblem> p = gemm().check_config(one_warpgroup(256));
  REQUIRE(p.size() == 1);
  CHECK(p[0].field == "params.bn");
  CHECK(p[0].message ==
        "a 128x256 accumulator per consumer warpgroup needs 256 registers per thread plus about 40 more; a consumer of 1 has "
        "240: use bm x bn of at most 25600 elements");
  // Without warp specialization one warpgroup loads and computes: at most 128 accumulator registers.
  samples::Config plain = one_warpgroup(192);
  plain.params["warp_specialized"] = 0;
  const std::vector<samples::ConfigProblem> q = gemm().check_config(plain);
  REQUIRE(!q.empty());
  CHECK(q[0].field == "params.consumers");
}

TEST_CASE("gemm tiles of 128 rows in one MMA warpgroup issue m64 wgmmas on both halves and compile without spills",
          "[samples][gemm][one_warpgroup]") {
  for (auto [bn, cluster] : {std::pair<int64_t, ir::Dim3>{80, {2, 1, 1}}, {128, {1, 1, 1}}, {192, {1, 2, 1}}}) {
    INFO("bn " << bn);
    const samples::Config c = one_warpgroup(bn, cluster);
    REQUIRE(gemm().check_config(c).empty());
    const samples::Compiled compiled = samples::compile_sample(gemm(), c, codegen::Target::sm90a(), nullptr);
    // A producer and one consumer warpgroup; the consumer's second accumulator starts 64 rows
    // (512 descriptor units of 16 bytes) further into A's stage.
    CHECK(compiled.cuda().find("__launch_bounds__(256, 1)") != std::string::npos);
    CHECK(compiled.cuda().find("_kk(&acc[" + std::to_string(bn / 2) + "], tj_desc_a + 512ull") != std::string::npos);
    test::compile_without_spills(codegen::lower(gemm().build(c), codegen::Target::sm90a()), "bn " + std::to_string(bn));
  }
}
