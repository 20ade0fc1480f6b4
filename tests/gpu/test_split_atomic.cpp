// The GEMM's split-K and stream-K with atomic partial sums (split_reduce atomic,
// dsl/split_k.h's PartialSum::Atomic) on the GPU against cuBLAS. Each case loads its
// kernel once and runs it three times with different inputs on the same workspace (the
// runtime keeps one per stream and zeroes it only when it allocates it): every run must
// verify, and after each the partial-sum slots and the tile counters must be back at 0,
// which is what the next launch's atomic adds start from.
#include "tests/gpu/gpu_fixture.h"
#include "tests/gpu/gemm_case.h"

#include "runtime/driver.h"
#include "samples/builtin.h"
#include "samples/gemm.h"

namespace {

using tj::gpu_test::GemmCase;
using tj::gpu_test::describe;

// How many elements of workspace `param` are not zero (0 where the launch bound none).
template <class T>
size_t nonzero(tj::JitKernel& kernel, const std::string& param, CUstream stream = nullptr) {
  tj::rt::DeviceBuffer* b = kernel.workspace(param, stream);
  if (b == nullptr) return 0;
  size_t n = 0;
  for (const T& v : b->download_as<T>()) n += v != T(0);
  return n;
}

// g's config with split_reduce atomic, checked.
tj::samples::Config atomic_config(const GemmCase& g) {
  using namespace tj;
  samples::Config c = gpu_test::config_of(g);
  c.params["split_reduce"] = int64_t(samples::GemmSplitReduce::Atomic);
  for (const samples::ConfigProblem& p : samples::find_sample("gemm")->check_config(c)) FAIL(p.field << ": " << p.message);
  return c;
}

tj::JitKernel load_gemm(const tj::samples::Config& c) {
  using namespace tj;
  return tj::load(samples::compile_sample(*samples::find_sample("gemm"), c, gpu_test::target(), nullptr), gpu_test::device());
}

void check(const GemmCase& g, uint64_t seed) {
  using namespace tj;
  DYNAMIC_SECTION(describe(g)) {
    const samples::Sample* s = samples::find_sample("gemm");
    REQUIRE(s != nullptr);
    const samples::Config c = atomic_config(g);
    JitKernel kernel = load_gemm(c);
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

// The slots' reset is the kernel's own: launches replayed from a CUDA graph (20 times, D
// overwritten each time from the same A and B, so a slot left holding a sum would double
// the next result) and launches on two streams at once, each stream with its own
// workspace, alternating 10 times with different inputs. Split-K in 8 and stream-K.
TEST_CASE("gemm: split-K by atomic adds replayed from a CUDA graph and on two streams at once [gpu]",
          "[gpu][gemm][splitk][atomic][graph]") {
  using namespace tj;
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  const std::vector<GemmCase> cases = {{1024, 1024, 8192, {{"splits", 8}}},
                                       {1000, 1000, 3000, {{"schedule", int64_t(samples::GemmSchedule::StreamK)}}, {1, 2, 1}}};
  for (const GemmCase& g : cases) {
    DYNAMIC_SECTION(describe(g)) {
      const samples::Config c = atomic_config(g);
      JitKernel kernel = load_gemm(c);
      CUstream streams[2] = {nullptr, nullptr};
      for (CUstream& st : streams) rt::check(rt::driver().cuStreamCreate(&st, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
      std::unique_ptr<samples::Instance> inst[2] = {s->instantiate(c, 71), s->instantiate(c, 72)};
      BoundArgs args[2] = {samples::bind_instance(kernel, *inst[0]), samples::bind_instance(kernel, *inst[1])};
      const samples::LaunchPlan plan = samples::plan_launch(*s, c, kernel, args[0]);
      SECTION("a CUDA graph replayed 20 times") {
        inst[0]->poison();
        kernel.launch(plan.grid, args[0], streams[0]);  // allocates (and zeroes) the stream's workspace
        rt::check(rt::driver().cuStreamBeginCapture(streams[0], CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
        kernel.launch(plan.grid, args[0], streams[0]);
        CUgraph graph = nullptr;
        rt::check(rt::driver().cuStreamEndCapture(streams[0], &graph), "cuStreamEndCapture");
        CUgraphExec exec = nullptr;
        rt::check(rt::driver().cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiateWithFlags");
        for (int i = 0; i < 20; ++i) rt::check(rt::driver().cuGraphLaunch(exec, streams[0]), "cuGraphLaunch");
        rt::check(rt::driver().cuStreamSynchronize(streams[0]), "cuStreamSynchronize");
        const samples::Check r = inst[0]->verify();
        INFO(r.detail);
        CHECK(r.ok);
        CHECK(nonzero<float>(kernel, "workspace", streams[0]) == 0);
        rt::check(rt::driver().cuGraphExecDestroy(exec), "cuGraphExecDestroy");
        rt::check(rt::driver().cuGraphDestroy(graph), "cuGraphDestroy");
      }
      SECTION("two streams at once, 10 launches each") {
        for (auto& i : inst) i->poison();
        for (int i = 0; i < 10; ++i)
          for (int side = 0; side < 2; ++side) kernel.launch(plan.grid, args[side], streams[side]);
        for (CUstream st : streams) rt::check(rt::driver().cuStreamSynchronize(st), "cuStreamSynchronize");
        for (int side = 0; side < 2; ++side) {
          INFO("stream " << side);
          const samples::Check r = inst[side]->verify();
          INFO(r.detail);
          CHECK(r.ok);
          CHECK(nonzero<float>(kernel, "workspace", streams[side]) == 0);
          CHECK(nonzero<uint32_t>(kernel, "counters", streams[side]) == 0);
        }
      }
      for (CUstream st : streams) rt::check(rt::driver().cuStreamDestroy(st), "cuStreamDestroy");
    }
  }
}
