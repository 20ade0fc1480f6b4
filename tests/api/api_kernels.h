// Small kernels the host API's tests compile and bind arguments for (CPU and GPU tests).
#pragma once

#include <tilejit/tilejit.h>

namespace tj::api_test {

// Clusters of `cluster` CTAs; each CTA writes n u32 into the next CTA's shared memory,
// then copies what it received to out[cta * n + i]: sender * 100000 + i + salt.
inline ir::Kernel ring(unsigned cluster, int n) {
  using namespace tj::dsl;
  KernelBuilder k("api_ring");
  k.threads(128).cluster(cluster);
  auto out = k.param<uint32_t*>("out");
  auto salt = k.param<uint32_t>("salt");
  auto ring = k.dynamic_shared<uint32_t>("ring", uint64_t(n));
  auto next = map_shared_rank(ring, (cluster_ctarank() + 1) % cluster_nctarank());
  for_(thread_idx_x(), n, block_dim_x(), [&](i32 i) {
    next[i] = cast<uint32_t>(block_idx_x()) * 100000u + cast<uint32_t>(i) + salt;
  });
  cluster_sync();
  for_(thread_idx_x(), n, block_dim_x(), [&](i32 i) {
    out[cast<int64_t>(block_idx_x()) * int64_t(n) + cast<int64_t>(i)] = ring[i];
  });
  return k.build();
}

// One CTA per 32 x 8 box of a rows x cols f32 matrix: TMA loads the box through the
// tensor map `src`, every thread copies its part to out (same layout) times `scale`.
inline ir::Kernel tma_scale() {
  using namespace tj::dsl;
  KernelBuilder k("api_tma_scale");
  k.threads(128);
  TensorMap src = k.tensor_map<float>("src", {32, 8});
  auto out = k.param<float*>("out");
  auto cols = k.param<int32_t>("cols");
  auto scale = k.param<float>("scale");
  auto stage = k.dynamic_shared<float>("stage", 256, 128);
  auto full = k.mbarriers("full", 1, 1);
  i32 tx = block_idx_x() % (cols / 32), ty = block_idx_x() / (cols / 32);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(1024));
    tma_load(stage[0], src, {tx * 32, ty * 8}, full[0]);
  });
  wait(full[0]);
  for_(thread_idx_x(), 256, block_dim_x(), [&](i32 i) {
    i32 row = ty * 8 + i / 32, col = tx * 32 + i % 32;
    out[cast<int64_t>(row) * cast<int64_t>(cols) + cast<int64_t>(col)] = stage[i] * scale;
  });
  return k.build();
}

// Two workspaces the runtime binds: `scratch` (n u32, per launch), through which every
// element i of out[1..n] goes as 3 * i + salt; and `counter` (one u32, zeroed), on which
// each CTA's thread 0 counts itself in: the last of the grid writes the count it saw,
// plus salt, to out[0] and puts the counter back to 0, as split-K's fix-up does. A
// counter that was not zeroed, or not shared by the grid, shows in out[0].
inline ir::Kernel workspaces() {
  using namespace tj::dsl;
  KernelBuilder k("api_workspaces");
  k.threads(128);
  auto out = k.param<uint32_t*>("out");
  auto n = k.param<int32_t>("n");
  auto salt = k.param<uint32_t>("salt");
  auto scratch = k.workspace<uint32_t>("scratch", false);
  auto counter = k.workspace<uint32_t>("counter", true);
  k.size_workspace(scratch, cast<int64_t>(n));
  k.size_workspace(counter, i64(int64_t(1)));
  for_(block_idx_x() * block_dim_x() + thread_idx_x(), n, grid_dim_x() * block_dim_x(), [&](i32 i) {
    scratch[i] = cast<uint32_t>(i) * 3u + salt;
    out[i + 1] = scratch[i];
  });
  if_(thread_idx_x() == 0, [&] {
    u32 seen = var(atomic_fetch_add(counter[0], u32(1u), ir::MemoryOrder::AcqRel, ir::MemoryScope::Gpu), "seen");
    if_(seen == cast<uint32_t>(grid_dim_x() - 1), [&] {
      out[0] = seen + 1u + salt;
      counter[0] = u32(0u);
    });
  });
  return k.build();
}

}  // namespace tj::api_test
