// Kernels on the dynamic tile schedule, shared by the CPU tests (lowering, checks, PTX)
// and the GPU tests (every unit exactly once).
#pragma once

#include "dsl/dsl.h"

namespace tj::test {

// Every CTA walks the schedule with all its threads; thread 0 counts its tile once:
// counts[tile_m * tiles_n + tile_n] += 1 (tiles of a ragged cluster block past the grid skipped).
inline ir::Kernel dynamic_count_kernel(unsigned cluster = 1, unsigned slots = 2,
                                       ir::UnitOrder order = ir::UnitOrder::Rasterized) {
  using namespace tj::dsl;
  KernelBuilder k("dynamic_count");
  k.threads(128);
  if (cluster > 1) k.cluster(cluster);
  auto counts = k.param<uint32_t*>("counts");
  auto tiles_m = k.param<int32_t>("tiles_m");
  auto tiles_n = k.param<int32_t>("tiles_n");
  for_each_tile(dynamic(2, slots, order), tiles_m, tiles_n, [&](i32 m, i32 n) {
    if_(thread_idx_x() == 0 && m < tiles_m && n < tiles_n, [&] { atomic_add(counts[m * tiles_n + n], u32(1u)); });
  });
  return k.build();
}

// Warp-specialized: a producer warpgroup whose thread 0 walks the schedule and hands each
// tile's id to the consumer warpgroup through a two-stage ring (box, filled, drained),
// and the consumers, who walk the same schedule themselves: each checks that the id it
// received is its own tile's (mismatches[0] += 1 otherwise) and counts the tile.
inline ir::Kernel dynamic_roles_kernel(unsigned cluster = 1) {
  using namespace tj::dsl;
  KernelBuilder k("dynamic_roles");
  k.threads(256);
  if (cluster > 1) k.cluster(cluster);
  auto counts = k.param<uint32_t*>("counts");
  auto mismatches = k.param<uint32_t*>("mismatches");
  auto tiles_m = k.param<int32_t>("tiles_m");
  auto tiles_n = k.param<int32_t>("tiles_n");
  auto box = k.shared<int32_t>("box", 2);
  auto filled = k.mbarriers("filled", 2, 1);
  auto drained = k.mbarriers("drained", 2, 128);
  const ir::TileSchedule schedule = dynamic(2, 2);
  k.role("producer", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      Var<int32_t> it = var(i32(0), "it");
      for_each_tile(schedule, tiles_m, tiles_n, [&](i32 m, i32 n) {
        i32 st = it % 2;
        if_(it >= 2, [&] { wait(drained[st]); });
        box[st] = m * tiles_n + n;
        arrive(filled[st]);
        it = it + 1;
      });
    });
  });
  k.role("consumer", 1, 0, [&](i32) {
    Var<int32_t> it = var(i32(0), "it");
    for_each_tile(schedule, tiles_m, tiles_n, [&](i32 m, i32 n) {
      i32 st = it % 2;
      wait(filled[st]);
      Var<int32_t> got = var(i32(box[st]), "got");  // read before the slot goes back
      arrive(drained[st]);
      if_(thread_idx_x() == 128, [&] {
        if_(got != m * tiles_n + n, [&] { atomic_add(mismatches[0], u32(1u)); });
        if_(m < tiles_m && n < tiles_n, [&] { atomic_add(counts[m * tiles_n + n], u32(1u)); });
      });
      it = it + 1;
    });
  });
  return k.build();
}

}  // namespace tj::test
