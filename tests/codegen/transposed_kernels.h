// store_accumulator_transposed's kernel, shared by the CPU tests (the IR, what the wgmma
// family emits, what NVRTC makes of it) and the GPU test (the numbers).
#pragma once

#include <optional>

#include "dsl/dsl.h"

namespace tj::test {

// One warpgroup: acc (acc_m x n) = A (acc_m x 64) B^T (B: n x 64), both bf16, loaded by
// TMA; then accumulator columns [first, first + count) stored transposed into the tile d
// (count rows x acc_m columns of `out`): d[c - first][r] = acc[r][c] + bias[r] (the bias
// per accumulator row: a column vector of D when the MMA computes D^T), plus
// 0.5 * d[c - first][r] as loaded from C first where `reads_c`; d stored by TMA.
// Launch arguments: A [acc_m, 64], B [n, 64] bf16; C (where reads_c) and OUT [count, acc_m]
// of `out`; bias [acc_m] f32.
struct TransposedStore {
  unsigned acc_m = 64, n = 64, first = 0, count = 64;
  ir::Scalar out = ir::Scalar::BF16;
  bool reads_c = false;
  unsigned store_line = 0;
  ir::Kernel build() {
    using namespace tj::dsl;
    KernelBuilder k("transposed_store");
    k.threads(128);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", acc_m, 64), b = k.shared_tile(ir::Scalar::BF16, "b", n, 64);
    SharedTile d = k.shared_tile(out, "d", count, acc_m);
    TileMap amap = k.tile_map("A", a, acc_m), bmap = k.tile_map("B", b, n);
    std::optional<TileMap> cmap;
    if (reads_c) cmap = k.tile_map("C", d, count);
    TileMap dmap = k.tile_map("OUT", d, count);
    auto bias = k.param<float*>("bias");
    auto full = k.mbarriers("full", 1, 1);
    Accumulator acc = k.accumulator("acc", acc_m, n);
    k.role("math", 1, 0, [&](i32) {
      if_(thread_idx_x() == 0, [&] {
        arrive_expect_tx(full[0], u32(tile_load_bytes(amap) + tile_load_bytes(bmap) + (cmap ? tile_load_bytes(*cmap) : 0)));
        tma_load_tile(stage(a, 0), amap, 0, 0, full[0]);
        tma_load_tile(stage(b, 0), bmap, 0, 0, full[0]);
        if (cmap) tma_load_tile(stage(d, 0), *cmap, 0, 0, full[0]);
      });
      wait(full[0]);
      mma(acc, stage(a, 0), stage(b, 0), boolean(false));
      mma_wait(0);
      store_line = __LINE__ + 1;
      store_accumulator_transposed(stage(d, 0), acc, Columns{first, count}, [&](const Elem& e) {
        f32 v = e.value + bias[e.row];
        return reads_c ? v + 0.5f * e[stage(d, 0)] : v;
      });
      fence_proxy_async();
      role_sync();
      if_(thread_idx_x() == 0, [&] {
        tma_store_tile(dmap, 0, 0, stage(d, 0));
        bulk_commit();
        bulk_wait(0);
      });
    });
    return k.build();
  }
};

}  // namespace tj::test
