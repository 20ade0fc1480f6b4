// The dynamic tile schedule on the GPU (sm_90a: the atomic counter; the sm_100a form
// cannot run here): every unit processed exactly once per launch, counted per tile, over
// grid sizes, cluster sizes 1, 2 and 4, launches back to back, on two streams at once,
// and in a CUDA graph replayed 100 times (the counter's reset is the kernel's own: no
// memset between launches); and a warp-specialized kernel whose roles each walk it.
#include <catch2/catch.hpp>

#include <algorithm>

#include "api/jit.h"
#include "api/tensor.h"
#include "runtime/driver.h"
#include "tests/codegen/dynamic_kernels.h"

namespace {

using namespace tj;

// Tiles whose count is not `want` (at most a few named).
std::string wrong_tiles(const std::vector<uint32_t>& got, uint32_t want, size_t stride = 1, size_t offset = 0) {
  std::string out;
  size_t n = 0;
  for (size_t i = offset; i < got.size(); i += stride)
    if (got[i] != want && n++ < 5) out += " tile " + std::to_string(i / stride) + ": " + std::to_string(got[i]);
  return n ? std::to_string(n) + " tiles counted wrong:" + out : "";
}

// The grid: the schedule's, or `clusters` when given (a smaller persistent grid).
Grid grid_for(JitKernel& f, const BoundArgs& args, unsigned clusters) {
  std::optional<Grid> g = f.schedule_grid(args);
  REQUIRE(g);
  return clusters ? Grid{clusters} : *g;
}

void check(CUresult r, const char* what) {
  INFO(what);
  REQUIRE(r == CUDA_SUCCESS);
}

}  // namespace

TEST_CASE("dynamic: every tile once per launch, back to back [gpu]", "[gpu][dynamic]") {
  const unsigned cluster = GENERATE(1u, 2u, 4u);
  const int tiles_m = GENERATE(1, 7, 33), tiles_n = GENERATE(4, 13);
  const unsigned clusters = GENERATE(0u, 1u, 5u);  // 0: the schedule's own grid
  CAPTURE(cluster, tiles_m, tiles_n, clusters);
  JitKernel f = jit(test::dynamic_count_kernel(cluster));
  Tensor counts = Tensor::empty<uint32_t>({uint64_t(tiles_m) * uint64_t(tiles_n)});
  counts.fill_bytes(0);
  BoundArgs args = f.bind(counts, tiles_m, tiles_n);
  const Grid grid = grid_for(f, args, clusters);
  const int launches = 20;
  for (int i = 0; i < launches; ++i) f.launch(grid, args);
  f.synchronize();
  const std::string wrong = wrong_tiles(counts.download<uint32_t>(), launches);
  INFO(wrong);
  CHECK(wrong.empty());
}

TEST_CASE("dynamic: two streams at once, each with its own counter [gpu]", "[gpu][dynamic]") {
  const unsigned cluster = GENERATE(1u, 2u);
  CAPTURE(cluster);
  const int tiles_m = 40, tiles_n = 17, launches = 50;
  JitKernel f = jit(test::dynamic_count_kernel(cluster));
  CUstream streams[2] = {nullptr, nullptr};
  for (CUstream& s : streams) check(rt::driver().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  Tensor a = Tensor::empty<uint32_t>({uint64_t(tiles_m * tiles_n)}), b = Tensor::empty<uint32_t>({uint64_t(tiles_m * tiles_n)});
  a.fill_bytes(0);
  b.fill_bytes(0);
  BoundArgs args_a = f.bind(a, tiles_m, tiles_n), args_b = f.bind(b, tiles_m, tiles_n);
  const Grid grid = grid_for(f, args_a, 0);
  for (int i = 0; i < launches; ++i) {
    f.launch(grid, args_a, streams[0]);
    f.launch(grid, args_b, streams[1]);
  }
  for (CUstream s : streams) check(rt::driver().cuStreamSynchronize(s), "cuStreamSynchronize");
  const std::string wrong_a = wrong_tiles(a.download<uint32_t>(), launches), wrong_b = wrong_tiles(b.download<uint32_t>(), launches);
  INFO(wrong_a << " / " << wrong_b);
  CHECK(wrong_a.empty());
  CHECK(wrong_b.empty());
  for (CUstream s : streams) check(rt::driver().cuStreamDestroy(s), "cuStreamDestroy");
}

TEST_CASE("dynamic: a CUDA graph of the launch replayed 100 times [gpu]", "[gpu][dynamic][graph]") {
  const unsigned cluster = GENERATE(1u, 2u, 4u);
  CAPTURE(cluster);
  const int tiles_m = 24, tiles_n = 9, replays = 100;
  JitKernel f = jit(test::dynamic_count_kernel(cluster));
  CUstream stream = nullptr;
  check(rt::driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  Tensor counts = Tensor::empty<uint32_t>({uint64_t(tiles_m * tiles_n)});
  counts.fill_bytes(0);
  BoundArgs args = f.bind(counts, tiles_m, tiles_n);
  const Grid grid = grid_for(f, args, 0);
  // One launch outside the capture allocates (and zeroes) the stream's counter.
  f.launch(grid, args, stream);
  check(rt::driver().cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
  f.launch(grid, args, stream);
  CUgraph graph = nullptr;
  check(rt::driver().cuStreamEndCapture(stream, &graph), "cuStreamEndCapture");
  CUgraphExec exec = nullptr;
  check(rt::driver().cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiateWithFlags");
  for (int i = 0; i < replays; ++i) check(rt::driver().cuGraphLaunch(exec, stream), "cuGraphLaunch");
  check(rt::driver().cuStreamSynchronize(stream), "cuStreamSynchronize");
  const std::string wrong = wrong_tiles(counts.download<uint32_t>(), replays + 1);
  INFO(wrong);
  CHECK(wrong.empty());
  check(rt::driver().cuGraphExecDestroy(exec), "cuGraphExecDestroy");
  check(rt::driver().cuGraphDestroy(graph), "cuGraphDestroy");
  check(rt::driver().cuStreamDestroy(stream), "cuStreamDestroy");
}

TEST_CASE("dynamic: a warp-specialized kernel, producer and consumers each walking the schedule [gpu]",
          "[gpu][dynamic][roles]") {
  const unsigned cluster = GENERATE(1u, 2u, 4u);
  const unsigned clusters = GENERATE(0u, 3u);
  CAPTURE(cluster, clusters);
  const int tiles_m = 19, tiles_n = 12, launches = 10;
  JitKernel f = jit(test::dynamic_roles_kernel(cluster));
  Tensor counts = Tensor::empty<uint32_t>({uint64_t(tiles_m * tiles_n)}), mismatches = Tensor::empty<uint32_t>({1});
  counts.fill_bytes(0);
  mismatches.fill_bytes(0);
  BoundArgs args = f.bind(counts, mismatches, tiles_m, tiles_n);
  const Grid grid = grid_for(f, args, clusters);
  for (int i = 0; i < launches; ++i) f.launch(grid, args);
  f.synchronize();
  CHECK(mismatches.download<uint32_t>()[0] == 0);  // the producer's tile was the consumers' own
  const std::string wrong = wrong_tiles(counts.download<uint32_t>(), launches);
  INFO(wrong);
  CHECK(wrong.empty());
}
