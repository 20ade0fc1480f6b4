// GEMM stage_release: when a consumer gives a pipeline stage back. 1: once the next k-block's
// first MMAs are issued and the stage's have completed (mma_wait(1)); 2 (release_early): each
// k-block's MMAs waited for (mma_wait(0)) and the stage given back before the next k-block's
// data is waited for; 0 (auto): 2 for coop cols at mma_depth 1, else 1. Both pass the race and transaction checks
// and compile without spills. No GPU needed (the GPU runs them in tests/gpu/test_gemm.cpp,
// "[stage_release]").
#include <catch2/catch.hpp>

#include "codegen/target.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

TEST_CASE("gemm stage_release 2: each k-block's MMAs waited for and its stage given back before the next k-block's data",
          "[samples][gemm][stage_release]") {
  const int64_t cols = 1;
  for (const std::map<std::string, int64_t>& w : std::vector<std::map<std::string, int64_t>>{
           {{"bm", 192}, {"bn", 176}, {"consumers", 3}},
           {{"bn", 256}},
           {{"bn", 128}, {"pingpong", 1}},
           {{"bm", 64}, {"bn", 128}, {"consumers", 1}},
           {{"bm", 192}, {"bn", 192}, {"coop", cols}},
           {{"bn", 128}, {"schedule", 3}, {"splits", 3}},
           {{"bn", 192}, {"schedule", 2}},
       }) {
    std::string what;
    for (auto& [key, v] : w) what += key + "=" + std::to_string(v) + " ";
    INFO(what);
    std::map<std::string, int64_t> p = w;
    p.insert({{"m", 3000}, {"n", 3000}, {"k", 1024}});
    p["stage_release"] = 1;
    const samples::Config one = test::gemm_config(p, {2, 1, 1});
    p["stage_release"] = 2;
    const samples::Config two = test::gemm_config(p, {2, 1, 1});
    REQUIRE(test::gemm_problems(two).empty());
    CHECK_FALSE(samples::gemm_tiling(one).release_early);
    CHECK(samples::gemm_tiling(two).release_early);
    const codegen::Lowered l1 = codegen::lower(test::gemm_sample().build(one), codegen::Target::sm90a());
    const codegen::Lowered l2 = codegen::lower(test::gemm_sample().build(two), codegen::Target::sm90a());
    // 1: the main loop waits for all but the k-block just issued; 2: never, only for all.
    CHECK(test::occurrences(l1.cuda, "tj::wgmma_wait<1>();") + test::occurrences(l1.cuda, "tj::wgmma_wait<2>();") > 0);
    CHECK(test::occurrences(l2.cuda, "tj::wgmma_wait<1>();") + test::occurrences(l2.cuda, "tj::wgmma_wait<2>();") == 0);
    CHECK(test::race_verified(l2, "async proxy"));
    CHECK(test::race_verified(l2, "arrivals on barrier 'full'"));
    test::compile_without_spills(l2, what);
  }
}

TEST_CASE("gemm stage_release 0 releases early for coop cols at mma_depth 1 only",
          "[samples][gemm][stage_release]") {
  const int64_t cols = 1;
  const auto early = [](std::map<std::string, int64_t> p) {
    p.insert({{"m", 3000}, {"n", 3000}, {"k", 1024}});
    return samples::gemm_tiling(test::gemm_config(p, {2, 1, 1})).release_early;
  };
  CHECK(early({{"bm", 192}, {"bn", 192}, {"coop", cols}}));
  CHECK_FALSE(early({{"bm", 192}, {"bn", 192}, {"coop", cols}, {"stage_release", 1}}));
  CHECK_FALSE(early({{"bm", 192}, {"bn", 192}, {"coop", cols}, {"mma_depth", 2}}));
  CHECK_FALSE(early({{"bm", 192}, {"bn", 176}, {"consumers", 3}}));
  CHECK_FALSE(early({{"bn", 256}}));
  CHECK_FALSE(early({{"bn", 128}, {"pingpong", 1}}));
  CHECK_FALSE(early({{"bm", 64}, {"bn", 128}, {"consumers", 1}}));
  CHECK_FALSE(early({{"bm", 128}, {"bn", 64}}));  // mma_depth 2 by default
}

TEST_CASE("gemm stage_release 2 refuses mma_depth above 1 by name", "[samples][gemm][stage_release]") {
  const std::map<std::string, int64_t> p = {{"m", 3000}, {"n", 3000}, {"k", 1024}, {"bn", 128}, {"stage_release", 2}};
  std::map<std::string, int64_t> deep = p;
  deep["mma_depth"] = 2;
  CHECK(test::gemm_problems(test::gemm_config(deep)) ==
        std::vector<std::string>{"params.stage_release: stage_release 2 waits for each k-block's MMAs before the next "
                                 "k-block's, keeping none in flight: mma_depth 2 cannot apply (use mma_depth 0 or 1, "
                                 "or stage_release 1)"});
  std::map<std::string, int64_t> one = p;
  one["mma_depth"] = 1;
  CHECK(test::gemm_problems(test::gemm_config(one)).empty());
}
