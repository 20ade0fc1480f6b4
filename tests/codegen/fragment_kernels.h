// Kernels of the fragment ops (accumulators as values), shared by the CPU tests (what is
// emitted and what NVRTC makes of it) and the GPU test (the numbers).
#pragma once

#include <optional>

#include "dsl/dsl.h"

namespace tj::test {

// One 64-row block of attention per CTA, one warpgroup, head dim 64, keys 64:
//   s = q k^T; m = row max of s; p = f(s - m) (0 above the diagonal when causal);
//   l = row sum of p; o = bf16(p) v; out = o / l + bias[col]   (f32, TMA-stored)
// q, k, v: [blocks * 64, 64] bf16 row-major; bias: [64] f32; out: [blocks * 64, 64] f32.
// f is the caller's: 2^(x * scale) for softmax, or a linear map.
// With store_l, each block's rows 0..47 of l also go to l_out[block * 64 + row] (store_rows).
struct FragmentAttention {
  bool causal = true, store_l = false;
  unsigned map_line = 0, store_line = 0, pv_line = 0;
  ir::Kernel build(const std::function<dsl::f32(const dsl::f32&)>& f) {
    using namespace tj::dsl;
    KernelBuilder k("frag_attention");
    k.threads(128);
    SharedTile q = k.shared_tile(ir::Scalar::BF16, "q", 64, 64);
    SharedTile kt = k.shared_tile(ir::Scalar::BF16, "kt", 64, 64);
    SharedTile v = k.shared_tile(ir::Scalar::BF16, "v", 64, 64, 1, ir::Major::MN);
    SharedTile o = k.shared_tile(ir::Scalar::F32, "o", 64, 64);
    TileMap qmap = k.tile_map("Q", q, 64), kmap = k.tile_map("K", kt, 64), vmap = k.tile_map("V", v, 64),
            omap = k.tile_map("OUT", o, 64);
    auto bias = k.param<float*>("bias");
    std::optional<Ptr<float>> l_out;
    if (store_l) l_out = k.param<float*>("l_out");
    auto full = k.mbarriers("full", 1, 1);
    Accumulator s = k.accumulator("s", 64, 64), acc_o = k.accumulator("acc_o", 64, 64);
    RowFragment m = k.row_fragment("m", 64), l = k.row_fragment("l", 64);
    k.role("math", 1, 0, [&](i32) {
      i32 row0 = block_idx_x() * 64;
      if_(thread_idx_x() == 0, [&] {
        arrive_expect_tx(full[0], u32(3 * tile_load_bytes(qmap)));
        tma_load_tile(stage(q, 0), qmap, row0, 0, full[0]);
        tma_load_tile(stage(kt, 0), kmap, row0, 0, full[0]);
        tma_load_tile(stage(v, 0), vmap, row0, 0, full[0]);
      });
      wait(full[0]);
      mma(s, stage(q, 0), stage(kt, 0), boolean(false));
      mma_wait(0);
      row_max(m, s);
      map_line = __LINE__ + 1;
      acc_map(s, [&](const Elem& e) { return select(boolean(causal) && e.col > e.row, f32(0.0f), f(e.value - e[m])); });
      row_sum(l, s);
      if (l_out)
        store_rows(l, *l_out, [&](const Elem& e) { return cast<int64_t>(row0 + e.row); }, [&](const Elem& e) { return e.row < 48; });
      pv_line = __LINE__ + 1;
      mma(acc_o, registers(s), stage(v, 0), boolean(false));
      mma_wait(0);
      store_line = __LINE__ + 1;
      store_accumulator(stage(o, 0), acc_o, [&](const Elem& e) { return e.value / e[l] + bias[e.col]; });
      fence_proxy_async();
      role_sync();
      if_(thread_idx_x() == 0, [&] {
        tma_store_tile(omap, row0, 0, stage(o, 0));
        bulk_commit();
        bulk_wait(0);
      });
    });
    return k.build();
  }
};

}  // namespace tj::test
