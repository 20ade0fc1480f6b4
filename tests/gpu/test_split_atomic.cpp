// The GEMM's split-K and stream-K with atomic partial sums (split_reduce atomic,
// dsl/split_k.h's PartialSum::Atomic) on the GPU against cuBLAS. Each case loads its
// kernel once and runs it three times with different inputs on the same workspace (the
// runtime keeps one per stream and zeroes it only when it allocates it): every run must
// verify, and after each the partial-sum slots and the tile counters must be back at 0,
// which is what the next launch's atomic adds start from.
#include "tests/gpu/gpu_fixture.h"
#include "tests/gpu/gemm_case.h"

#include "samples/builtin.h"
#include "samples/gemm.h"

namespace {

using tj::gpu_test::GemmCase;
using tj::gpu_test::describe;

// How many elements of workspace `param` are not zero (0 where the launch bound none).
template <class T>
size_t nonzero(tj::JitKernel& kernel, const std::string& param) {
  tj::rt::DeviceBuffer* b = kernel.workspace(param);
  if (b == nullptr) return 0;
  size_t n = 0;
  for (const T& v : b->download_as<T>()) n += v != T(0);
  return n;
}

void check(const GemmCase& g, uint64_t seed) {
  using namespace tj;
  DYNAMIC_SECTION(describe(g)) {
    const samples::Sample* s = samples::find_sample("gemm");
    REQUIRE(s != nullptr);
    samples::Config c = gpu_test::config_of(g);
    c.params["split_reduce"] = int64_t(samples::GemmSplitReduce::Atomic);
    for (const samples::ConfigProblem& p : s->check_config(c)) FAIL(p.field << ": " << p.message);
    samples::Compiled compiled = samples::compile_sample(*s, c, gpu_test::target(), nullptr);
    JitKernel kernel = tj::load(compiled, gpu_test::device());
    samples::RunOptions opts;
    opts.iters = 0;
    for (uint64_t run = 0; run < 3; ++run) {
      INFO("run " << run);
      opts.seed = seed + 1000 * run;
      const samples::RunReport r = samples::run_sample(*s, c, kernel, opts);
      REQUIRE(r.verified);
      INFO(r.check.detail);
      CHECK(r.check.ok);
      CHECK(nonzero<float>(kernel, "workspace") == 0);
      CHECK(nonzero<uint32_t>(kernel, "counters") == 0);
    }
  }
}

}  // namespace

// Split-K: the bench's shape, ragged M, N and K with beta, many splits (splits 0 at
// 338 x 192 x 18144: up to 32 ranges of one small tile grid), fewer k-blocks than splits,
// f32 out, padded cluster tiles in 2x2, the owner's wait, one warpgroup, one warpgroup
// loading and computing, non-persistent, a fused epilogue. Stream-K: all tiles shared,
// ragged in 1x2, and a wave plus a partial one.
TEST_CASE("gemm: split-K and stream-K by atomic adds against cuBLAS, the workspace left zeroed [gpu]",
          "[gpu][gemm][splitk][atomic]") {
  const int64_t stream_k = int64_t(tj::samples::GemmSchedule::StreamK);
  const std::vector<GemmCase> cases = {
      {1024, 1024, 8192, {{"splits", 4}}},
      {1000, 1000, 3000, {{"splits", 3}}, {1, 1, 1}, 1.5, -0.75},
      {338, 192, 18144, {{"splits", 0}}},
      {1024, 1024, 128, {{"splits", 8}}},
      {1024, 768, 4096, {{"splits", 4}, {"out", 2}, {"bn", 128}}},
      {1000, 1104, 2000, {{"splits", 2}, {"bn", 128}}, {2, 2, 1}},
      {1024, 1024, 4096, {{"splits", 4}, {"owner_wait", 6}}, {1, 2, 1}},
      {384, 128, 2048, {{"splits", 4}, {"consumers", 1}, {"bm", 64}, {"bn", 128}}},
      {300, 264, 1000, {{"splits", 3}, {"warp_specialized", 0}, {"bn", 128}, {"stages", 3}}},
      {512, 512, 8192, {{"splits", 8}, {"persistent", 0}}},
      {1024, 1024, 4096, {{"splits", 4}, {"bias", 1}, {"act", 2}}},
      {1024, 1024, 8192, {{"schedule", stream_k}}},
      {1000, 1000, 3000, {{"schedule", stream_k}}, {1, 2, 1}},
      {4224, 4224, 4096, {{"schedule", stream_k}}, {1, 2, 1}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 900 + i);
}
