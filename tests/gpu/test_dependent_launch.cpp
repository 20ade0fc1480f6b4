// Programmatic dependent launch on the GPU: launches that read what the launch before them
// wrote, from other CTAs, back to back and in a CUDA graph. A body that ran before the
// previous grid had finished would read a stale element somewhere in the chain.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "api/jit.h"
#include "dsl/dsl.h"
#include "runtime/driver.h"

namespace {

using namespace tj;
using namespace tj::dsl;

constexpr unsigned kThreads = 256, kCtas = 1056;  // 8 CTAs per SM of an H200, more than fit at once
constexpr uint32_t kN = kThreads * kCtas, kFar = 40961;  // each element reads one ~160 CTAs away

// dst[i] = 3 src[i] + src[(i + kFar) % n] + step, one element per thread.
ir::Kernel chain_kernel(unsigned cluster) {
  KernelBuilder k("pdl_chain");
  k.threads(kThreads).dependent_launch();
  if (cluster > 1) k.cluster(cluster);
  auto src = k.param<uint32_t*>("src");
  auto dst = k.param<uint32_t*>("dst");
  auto step = k.param<uint32_t>("step");
  i32 i = var(block_idx_x() * i32(int32_t(kThreads)) + thread_idx_x(), "i");
  dst[i] = src[i] * u32(3u) + src[(i + i32(int32_t(kFar))) % i32(int32_t(kN))] + step;
  return k.build();
}

// The chain on the host: launch j adds `step(j)`.
std::vector<uint32_t> chain_reference(std::vector<uint32_t> a, int launches, uint32_t (*step)(int)) {
  std::vector<uint32_t> b(a.size());
  for (int j = 0; j < launches; ++j) {
    for (uint32_t i = 0; i < kN; ++i) b[i] = a[i] * 3u + a[(i + kFar) % kN] + step(j);
    a.swap(b);
  }
  return a;
}

size_t mismatches(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want) {
  size_t wrong = got.size() != want.size();
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) wrong += got[i] != want[i];
  return wrong;
}

void check(CUresult r, const char* what) { rt::check(r, what); }

}  // namespace

TEST_CASE("dependent launch: 200 launches that read the previous one's output [gpu]", "[gpu][dependent_launch]") {
  const unsigned cluster = GENERATE(1u, 2u);
  CAPTURE(cluster);
  JitKernel f = jit(chain_kernel(cluster));
  CHECK(f.launch_config(Grid(kCtas / cluster)).dependent_launch);
  std::vector<uint32_t> init(kN);
  for (uint32_t i = 0; i < kN; ++i) init[i] = i * 2654435761u;
  Tensor bufs[2] = {Tensor::from_host<uint32_t>({kN}, init), Tensor::empty<uint32_t>({kN})};
  const int launches = 200;
  for (int j = 0; j < launches; ++j) f.launch(Grid(kCtas / cluster), bufs[j % 2], bufs[1 - j % 2], uint32_t(j));
  f.synchronize();
  const std::vector<uint32_t> want = chain_reference(init, launches, [](int j) { return uint32_t(j); });
  CHECK(mismatches(bufs[launches % 2].download<uint32_t>(), want) == 0);
}

TEST_CASE("dependent launch: a captured chain of 20 launches, replayed 5 times [gpu]", "[gpu][dependent_launch][graph]") {
  JitKernel f = jit(chain_kernel(2));
  CUstream stream = nullptr;
  check(rt::driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  std::vector<uint32_t> init(kN);
  for (uint32_t i = 0; i < kN; ++i) init[i] = i ^ 0x5bd1e995u;
  Tensor bufs[2] = {Tensor::from_host<uint32_t>({kN}, init), Tensor::empty<uint32_t>({kN})};
  BoundArgs args[2] = {f.bind(bufs[0], bufs[1], 0u), f.bind(bufs[1], bufs[0], 0u)};
  check(rt::driver().cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
  for (int j = 0; j < 20; ++j) f.launch(Grid(kCtas / 2), args[j % 2], stream);
  CUgraph graph = nullptr;
  check(rt::driver().cuStreamEndCapture(stream, &graph), "cuStreamEndCapture");
  CUgraphExec exec = nullptr;
  check(rt::driver().cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiateWithFlags");
  for (int r = 0; r < 5; ++r) check(rt::driver().cuGraphLaunch(exec, stream), "cuGraphLaunch");
  check(rt::driver().cuStreamSynchronize(stream), "cuStreamSynchronize");
  // 100 launches of step 0; an even count per replay leaves the result in bufs[0].
  const std::vector<uint32_t> want = chain_reference(init, 100, [](int) { return 0u; });
  CHECK(mismatches(bufs[0].download<uint32_t>(), want) == 0);
  check(rt::driver().cuGraphExecDestroy(exec), "cuGraphExecDestroy");
  check(rt::driver().cuGraphDestroy(graph), "cuGraphDestroy");
  check(rt::driver().cuStreamDestroy(stream), "cuStreamDestroy");
}
