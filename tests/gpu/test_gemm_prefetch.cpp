// The GEMM with its producer prefetching k-blocks into L2 ahead of the loads (prefetch d),
// on the GPU against cuBLAS: units shorter than d, ragged K and edges, several units per CTA,
// multicast clusters, the swapped tile, split-K, stream-K and ping-pong. A prefetch only
// warms L2, so each must give exactly what the same kernel gives without it.
#include "tests/gpu/gemm_check.h"
#include "tests/gpu/gpu_fixture.h"

namespace {

using tj::gpu_test::check;
using tj::gpu_test::GemmCase;

}  // namespace

TEST_CASE("gemm: L2 prefetch ahead of the loads (prefetch) against cuBLAS [gpu]", "[gpu][gemm][prefetch]") {
  const std::vector<GemmCase> cases = {
      {1000, 1000, 1000, {{"prefetch", 4}}},                                            // ragged K and edges
      {777, 520, 136, {{"prefetch", 8}, {"bn", 128}}},                                  // 3 k-blocks: fewer than d
      {2048, 2048, 520, {{"prefetch", 2}, {"group", 1}}, {2, 2, 1}},                    // units per CTA, multicast
      {1733, 3304, 1272, {{"prefetch", 4}, {"bn", 176}, {"swap", 1}}, {2, 1, 1}},       // the swapped tile
      {1024, 1024, 4096, {{"prefetch", 4}, {"bn", 128}, {"splits", 4}, {"schedule", 3}, {"split_reduce", 1}}},
      {5120, 5120, 1024, {{"prefetch", 4}, {"schedule", 2}}, {1, 2, 1}},                // stream-K
      {3000, 2600, 512, {{"prefetch", 4}, {"pingpong", 1}, {"bm", 64}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 2300 + i);
}
