// Pipelines deeper than `stages 0` picks (at most 8): a config may name up to 16 stages, as
// cuBLAS runs 15 for its 64 x 48 tiles. Their barriers, transaction counts and races are
// checked like any other's and the kernels compile without spills. No GPU needed (the GPU runs
// them in tests/gpu/test_gemm.cpp, "tile shapes").
#include <catch2/catch.hpp>

#include <tuple>

#include "codegen/lower.h"
#include "codegen/target.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

TEST_CASE("gemm stages: up to 16 named, checked and compiled without spills", "[samples][gemm][ptx]") {
  const std::map<std::string, int64_t> small = {{"bm", 64}, {"consumers", 1}, {"bn", 48}};
  for (auto [m, n, k, stages, cluster, extra] :
       {std::tuple{188, 1408, 1608, 15, ir::Dim3{2, 4, 1}, std::map<std::string, int64_t>{{"swap", 1}}},
        {308, 816, 2680, 12, ir::Dim3{4, 2, 1}, std::map<std::string, int64_t>{}},
        {777, 520, 4104, 16, ir::Dim3{1, 1, 1}, std::map<std::string, int64_t>{{"bk", 32}, {"bn", 64}}}}) {
    std::map<std::string, int64_t> params = small;
    for (auto& [key, v] : extra) params[key] = v;
    params["m"] = m, params["n"] = n, params["k"] = k, params["stages"] = stages;
    const samples::Config c = test::gemm_config(params, cluster);
    INFO(m << " x " << n << " x " << k << ", " << stages << " stages in " << cluster.str());
    REQUIRE(test::gemm_problems(c).empty());
    const codegen::Lowered l = codegen::lower(test::gemm_sample().build(c), codegen::Target::sm90a());
    CHECK(test::race_verified(l, "arrivals on barrier 'full'"));
    CHECK(test::race_verified(l, "arrivals on barrier 'empty'"));
    test::compile_without_spills(l, std::to_string(stages) + " stages");
  }
  // 16 of 64 x 48 with 64-element K rows do not fit a CTA's shared memory: the check says so.
  std::map<std::string, int64_t> big = small;
  big["m"] = 188, big["n"] = 1408, big["k"] = 1608, big["stages"] = 16;
  const std::vector<std::string> problems = test::gemm_problems(test::gemm_config(big, {2, 2, 1}));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("16 stages of 64x64 + 48x64") != std::string::npos);
  CHECK(problems[0].find("use fewer stages or a smaller tile") != std::string::npos);
}
