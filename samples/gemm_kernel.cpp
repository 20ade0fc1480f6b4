// The GEMM kernel, written with the DSL's tiles. Two shapes of the same
// computation (the README's ladder walks from the second to the first):
//  - warp-specialized: a producer warpgroup streams A and B tiles through a
//    `stages`-deep pipeline of full/empty barriers with TMA (multicast across
//    the cluster), `consumers` warpgroups run wgmma into register accumulators
//    and release each stage as soon as the MMA that read it has finished;
//  - one warpgroup: its leader thread keeps `stages - 1` loads in flight ahead
//    of the MMAs (1 stage: load, wait, multiply, in series).
// Both write each tile through a swizzled shared tile and TMA stores, and walk
// tiles with a static persistent schedule with grouped rasterization.
//
// Split-K (splits > 1, or 0: automatic): the schedule walks units (tile, split);
// split s of S owns k-blocks [s * kb / S, (s + 1) * kb / S), S decided at run time
// and never above the k-block count, so no split is empty. After its main loop each
// MMA warpgroup of a unit writes its partial accumulator to its workspace slot and
// counts itself in on the tile's counter; the one that arrives last adds the other
// partials and runs the epilogue. Nobody waits for anybody: no deadlock whatever
// the order units run in. S at run time:
//  - splits > 1: min(splits, kb);
//  - splits 0: the splits that fill the launched grid, min(kb / 4, 32, clusters /
//    cluster tiles), at least 1, and at most what the host's workspace holds
//    (`workspace_splits`). The grid is sized on the device (persistent_grid), so S
//    follows the GPU's SM count: 1 (no split) once the tiles fill the GPU.
#include <algorithm>

#include "dsl/dsl.h"
#include "samples/gemm.h"

namespace tj::samples {

using namespace tj::dsl;

namespace {

// The swizzle of K-major operand tiles: the widest whose span divides a row of bk elements.
ir::Swizzle k_swizzle(const GemmShape& s, const GemmTiling& t) {
  const unsigned row = t.bk * ir::scalar_bytes(s.in);
  return row % 128 == 0 ? ir::Swizzle::B128 : row % 64 == 0 ? ir::Swizzle::B64 : ir::Swizzle::B32;
}

// TMA boxes per CTA for `rows` rows of a tile shared by `ctas` CTAs: a box has at most 256 rows.
unsigned boxes_per_cta(unsigned rows, unsigned ctas) { return (rows / ctas + 255) / 256; }

// What both kernel shapes declare.
struct GemmKernel {
  const GemmShape& s;
  const GemmTiling& t;
  KernelBuilder& k;
  unsigned cx, cy;  // CTAs sharing A (a cluster row) and B (a column) through multicast; 1 and 1 without
  unsigned a_boxes, b_boxes;  // boxes each CTA loads of its share of A's and B's tile
  bool nn;
  int32_t bm, bn, bk, stages, rows_per_mma;
  bool wide;  // bn over one wgmma's 256 columns: the MMA reads A from registers
  // Each k-block's MMAs in two groups around the wait for the previous k-block (not wide tiles).
  bool split_issue() const { return t.split_issue && !wide; }
  SharedTile a, b;
  unsigned chunk_cols;  // output columns per epilogue chunk: one 128-byte panel
  SharedTile d;
  TileMap amap, bmap, dmap, cmap;
  i32 m, n, kk;
  f32 alpha, beta;
  Ptr<float> workspace;      // split-K partials: (tile, split, warpgroup) slots of rows_per_mma x bn
  Ptr<uint32_t> counters;    // split-K: per (tile, warpgroup), the units done; 0 between launches
  i32 workspace_splits;      // split-K: the splits per tile the workspace holds
  Ptr<mbarrier_t> full, empty, c_full;
  Accumulator acc;
  uint32_t stage_bytes;
  i32 tiles_m, tiles_n, kblocks;
  ir::TileSchedule schedule;
  unsigned mma_groups;
  std::optional<Ptr<uint32_t>> split_old;  // split-K: each warpgroup's counter value, broadcast
  std::optional<i32> split_count;          // split-K: S, a local of the role (declare_splits)

  GemmKernel(const GemmShape& s_, const GemmTiling& t_, KernelBuilder& k_, unsigned mma_groups_)
      : s(s_), t(t_), k(k_), cx(t_.multicast ? k_.cluster_shape().x : 1), cy(t_.multicast ? k_.cluster_shape().y : 1),
        a_boxes(boxes_per_cta(t_.bm, cx)), b_boxes(boxes_per_cta(s_.layout == GemmLayout::NN ? t_.bk : t_.bn, cy)),
        nn(s_.layout == GemmLayout::NN),
        bm(int32_t(t_.bm)), bn(int32_t(t_.bn)), bk(int32_t(t_.bk)), stages(int32_t(t_.stages)),
        rows_per_mma(int32_t(t_.bm / mma_groups_)), wide(t_.bn > 256),
        // Shared tiles: A (M x K) and B (N x K, or K x N read N-major) per stage, one output tile.
        // K-major rows of bk elements: 128-byte swizzle, or 64-byte for bk = 32.
        a(k.shared_tile(s.in, "a", t.bm, t.bk, t.stages, ir::Major::K, k_swizzle(s_, t_))),
        b(nn ? k.shared_tile(s.in, "b", t.bk, t.bn, t.stages, ir::Major::MN)
             : k.shared_tile(s.in, "b", t.bn, t.bk, t.stages, ir::Major::K, k_swizzle(s_, t_))),
        chunk_cols(128 / ir::scalar_bytes(s_.out)),
        // Two chunk buffers of bm x chunk_cols for the epilogue.
        d(k.shared_tile(s.out, "d", t.bm, chunk_cols, 2)),
        // The CTAs of a cluster row share A's tile: each loads a slice and multicasts
        // it along the row; B's slices go down the cluster column.
        amap(k.tile_map("A", a, t.bm / cx / a_boxes)),
        bmap(k.tile_map("B", b, (nn ? t.bk : t.bn) / cy / b_boxes)),
        dmap(k.tile_map("D", d, unsigned(rows_per_mma))),
        cmap(k.tile_map("C", d, unsigned(rows_per_mma))),
        m(k.param<int32_t>("m")), n(k.param<int32_t>("n")), kk(k.param<int32_t>("k")),
        alpha(k.param<float>("alpha")), beta(k.param<float>("beta")),
        workspace(k.param<float*>("workspace")), counters(k.param<uint32_t*>("counters")),
        workspace_splits(k.param<int32_t>("workspace_splits")),
        // full[s]: stage s's A and B landed (the loader's arrival + the bytes);
        // empty[s]: every MMA warp of every CTA this CTA's loads reach released it.
        full(k.mbarriers("full", t.stages, 1)),
        empty(k.mbarriers("empty", t.stages, mma_groups_ * 4 * (cx + cy - 1))),
        c_full(k.mbarriers("c_full", mma_groups_, 1)),
        acc(k.accumulator("acc", unsigned(rows_per_mma), t.bn)),
        stage_bytes(uint32_t((uint64_t(t.bm) + t.bn) * t.bk * ir::scalar_bytes(s.in))),
        tiles_m((m + bm - 1) / bm), tiles_n((n + bn - 1) / bn), kblocks((kk + bk - 1) / bk),
        schedule(static_persistent(t.group)), mma_groups(mma_groups_) {
    if (t.splits != 1) split_old = k.shared<uint32_t>("split_old", mma_groups);
  }

  // Split-K's S for this launch, as a local of the role that calls it (each role
  // computes the same value): at most one split per k-block (a split with no
  // k-block would have no MMA to clear its accumulator), at least 1.
  void declare_splits() {
    if (t.splits == 1) return;
    if (t.splits > 1) {
      split_count = var(min(i32(int32_t(t.splits)), kblocks), "splits");
      return;
    }
    const int32_t ccx = int32_t(k.cluster_shape().x), ccy = int32_t(k.cluster_shape().y);
    const bool clustered = ccx * ccy > 1;
    const i32 cluster_tiles = ((tiles_m + (ccy - 1)) / ccy) * ((tiles_n + (ccx - 1)) / ccx);
    const i32 launched = clustered ? num_clusters_x() : grid_dim_x();
    const i32 fill = min(min(kblocks / 4, i32(int32_t(kMaxSplits))), launched / cluster_tiles);
    split_count = var(max(i32(1), min(fill, workspace_splits)), "splits");
  }
  i32 splits() const { return *split_count; }

  // body(tm, tn, split, first k-block, k-block count) for each unit this CTA gets.
  // Loops over a unit's k-blocks run j from 0 (the race check evaluates j > 0);
  // k-block j of the unit is kblock(first, j).
  // The loops carry the caller's line (the race check's reports name it).
  void each_unit(const std::function<void(i32, i32, i32, i32, i32)>& body, SrcLoc loc = SrcLoc::current()) const {
    if (t.splits == 1) {
      for_each_tile(schedule, tiles_m, tiles_n, [&](i32 tm, i32 tn) { body(tm, tn, i32(0), i32(0), kblocks); }, loc);
      return;
    }
    if (!split_count) ir::internal_error("gemm: each_unit with split-K before declare_splits");
    for_each_tile(
        schedule, tiles_m, tiles_n, splits(),
        [&](i32 tm, i32 tn, i32 sp) {
          const i32 first = sp * kblocks / splits();
          body(tm, tn, sp, first, (sp + 1) * kblocks / splits() - first);
        },
        loc);
  }
  i32 kblock(const i32& first, const i32& j) const { return t.splits == 1 ? j : first + j; }

  // Warpgroup wg after its main loop over unit (tm, tn, sp): without split-K, the
  // epilogue. With it, the fix-up: runs `epilogue` in the warpgroup that finishes
  // tile (tm, tn) last, after adding the other splits' partials into its
  // accumulator; the others only leave theirs. (S == 1 at run time: the epilogue.)
  //
  // Memory ordering (PTX memory consistency model):
  //  1. every thread: st.global of its partial (weak stores);
  //  2. warpgroup_sync (bar.sync): when it completes, the participating threads'
  //     prior memory accesses are performed relative to each other; in the model it
  //     orders them before the leader's next operations (base causality at CTA scope);
  //  3. the leader: atom.acq_rel.gpu.global.add.u32 on the tile's counter. Its
  //     release half is cumulative: everything ordered before it (the whole
  //     warpgroup's partial, through step 2) is visible at gpu scope to any thread
  //     whose acquire reads this value or a later one in the counter's RMW chain
  //     (atomics to one location form a release sequence);
  //  4. the leader that reads S - 1 is the last: its acquire half synchronizes with
  //     the S - 1 earlier releases, so their partials are visible to it; it then
  //     writes the value to shared memory and step 5's bar.sync carries that
  //     ordering to the rest of its warpgroup;
  //  5. warpgroup_sync, then every thread ld.global's the others' partials.
  // The counter goes back to 0 (a plain store by the last arriver: no other unit of
  // this launch touches it again; the next launch is ordered after this one).
  void finish_unit(const i32& wg, const i32& tm, const i32& tn, const i32& sp) {
    if (t.splits == 1) {
      epilogue(wg, tm, tn);
      return;
    }
    const int32_t cx_all = int32_t(k.cluster_shape().x), groups = int32_t(mma_groups);
    // Tiles are numbered over the grid padded to whole clusters (the schedule hands
    // out whole cluster tiles, ragged ones included); a tile's S slots are adjacent.
    const i32 tile = tm * ((tiles_n + (cx_all - 1)) / cx_all * cx_all) + tn;
    auto slot = [&](const i32& split) { return (tile * splits() + split) * groups + wg; };
    const i32 counter = tile * groups + wg;
    boolean leader = thread_idx_x() % 128 == 0;
    Var<bool> last = var(boolean(true), "last");
    if_(splits() > 1, [&] {
      store_accumulator_partial(workspace, acc, slot(sp));
      warpgroup_sync(wg);
      if_(leader, [&] {
        (*split_old)[wg] = atomic_fetch_add(counters[counter], u32(1u), ir::MemoryOrder::AcqRel, ir::MemoryScope::Gpu);
      });
      warpgroup_sync(wg);
      last = (*split_old)[wg] == cast<uint32_t>(splits() - 1);
      if_(last, [&] {
        if_(leader, [&] { counters[counter] = u32(0u); });
        for_(0, splits(), [&](i32 q) { if_(q != sp, [&] { add_accumulator_partial(workspace, acc, slot(q)); }); });
      });
    });
    if_(last, [&] { epilogue(wg, tm, tn); });
  }

  // One thread: k-block kb of tile (tm, tn) into stage st, completing on full[st].
  void load(const i32& st, const i32& tm, const i32& tn, const i32& kb) {
    arrive_expect_tx(full[st], u32(stage_bytes));
    std::optional<u32> row_mask, col_mask;
    if (cx > 1) row_mask = mask_row();
    if (cy > 1) col_mask = mask_col();
    // This CTA's slice of each tile: its place in the cluster row (A) and column (B).
    i32 a_part = cx > 1 ? cluster_ctaid_x() : i32(0), b_part = cy > 1 ? cluster_ctaid_y() : i32(0);
    for (unsigned i = 0; i < a_boxes; ++i)
      tma_load_tile(stage(a, st), amap, tm * bm, kb * bk, full[st], a_part * int32_t(a_boxes) + int32_t(i), row_mask);
    for (unsigned i = 0; i < b_boxes; ++i) {
      i32 part = b_part * int32_t(b_boxes) + int32_t(i);
      if (nn) tma_load_tile(stage(b, st), bmap, kb * bk, tn * bn, full[st], part, col_mask);
      else tma_load_tile(stage(b, st), bmap, tn * bn, kb * bk, full[st], part, col_mask);
    }
  }

  // Gives stage `st` back to every loader whose copies land here (this CTA's
  // row and column of the cluster), once per warp. Relaxed: the MMAs that read
  // the stage have completed (mma_wait), so there is nothing left to order, and
  // a releasing arrive on a peer's barrier would fence at cluster scope on
  // every k-block.
  void release(const i32& st) {
    if_(lane_id() == 0, [&] {
      if (cx * cy == 1) {
        arrive_relaxed(empty[st]);
        return;
      }
      // A cluster of one row or one column: every CTA shares this one's row or column.
      if (cx == 1 || cy == 1) {
        for_(0, int32_t(cx * cy), [&](i32 q) { arrive_relaxed(map_shared_rank(empty, q)[st]); });
        return;
      }
      for_(0, int32_t(cx * cy), [&](i32 q) {
        if_(q % int32_t(cx) == cluster_ctaid_x() || q / int32_t(cx) == cluster_ctaid_y(),
            [&] { arrive_relaxed(map_shared_rank(empty, q)[st]); });
      });
    });
  }

  // Warpgroup wg's rows of tile (tm, tn): alpha * acc (+ beta * C), one chunk of
  // columns (a 128-byte panel) at a time through two chunk buffers in shared
  // memory, each chunk leaving by TMA store while the next is written. Chunks
  // instead of a whole output tile leave room for one more pipeline stage.
  void epilogue(const i32& wg, const i32& tm, const i32& tn) {
    boolean leader = thread_idx_x() % 128 == 0;
    const unsigned chunks = unsigned(bn) / chunk_cols;
    // Built for the problem's alpha when it is 1 (the usual case): no multiply per element.
    const f32 scale = s.alpha == 1.0 ? f32(1.0f) : alpha;
    for (unsigned ch = 0; ch < chunks; ++ch) {
      TileView out = stage(d, int32_t(ch % 2)).rows(wg * rows_per_mma);
      const i32 col0 = tn * bn + int32_t(ch * chunk_cols);
      if (s.beta == 0) {
        // Built for beta 0 (the problem's, known here): no C path in the kernel at all,
        // fewer registers and instructions in the consumers. The instance passes beta 0.
        // One barrier per chunk: before it, the leader waits until the previous chunk's
        // store has read its buffer, which the next chunk writes after the barrier.
        // With an odd number of chunks, a tile's first chunk reuses the buffer of the
        // previous tile's last, stored after that barrier: wait for it first.
        if (ch == 0 && chunks % 2 == 1) {
          if_(leader, [&] { bulk_wait_read(0); });
          warpgroup_sync(wg);
        }
        store_accumulator(out, acc, Columns{ch * chunk_cols, chunk_cols}, scale, f32(0.0f), out);
        fence_proxy_async();
        if_(leader, [&] { bulk_wait_read(0); });
        warpgroup_sync(wg);
      } else {
        // The store that last read this buffer (two chunks ago) is done reading. With
        // an odd number of chunks, a tile's first chunk reuses the buffer of the
        // previous tile's last: wait for every store then.
        if_(leader, [&] { bulk_wait_read(ch == 0 && chunks % 2 == 1 ? 0 : 1); });
        if_(beta != 0.0f, [&] {
          if_(leader, [&] {
            arrive_expect_tx(c_full[wg], u32(tile_load_bytes(cmap)));
            tma_load_tile(out, cmap, tm * bm, col0, c_full[wg]);
          });
          wait_local(c_full[wg]);
        }).else_([&] { warpgroup_sync(wg); });
        // One epilogue for both cases (it reads C only when beta != 0): half the code to compile.
        store_accumulator(out, acc, Columns{ch * chunk_cols, chunk_cols}, scale, beta, out);
        fence_proxy_async();
        warpgroup_sync(wg);
      }
      if_(leader, [&] {
        tma_store_tile(dmap, tm * bm, col0, out);
        bulk_commit();
      });
    }
  }
};

void warp_specialized(GemmKernel& g) {
  g.k.role("producer", 1, kGemmProducerRegisters, [&](i32) {
    g.declare_splits();
    if_(thread_idx_x() == 0, [&] {
      Var<int32_t> it = var(i32(0), "it");
      g.each_unit([&](i32 tm, i32 tn, i32, i32 kb0, i32 count) {
        for_(0, count, [&](i32 j) {
          i32 st = it % g.stages;
          if_(it >= g.stages, [&] { wait_local(g.empty[st]); });
          g.load(st, tm, tn, g.kblock(kb0, j));
          it = it + 1;
        });
      });
    });
  });
  g.k.role("consumer", g.t.consumers, gemm_consumer_registers(g.t.consumers), [&](i32 wg) {
    g.declare_splits();
    Var<int32_t> it = var(i32(0), "it");
    g.each_unit([&](i32 tm, i32 tn, i32 sp, i32, i32 count) {
      for_(0, count, [&](i32 j) {
        i32 st = it % g.stages;
        wait_local(g.full[st]);
        const TileView a = stage(g.a, st).rows(wg * g.rows_per_mma), b = stage(g.b, st);
        if (g.split_issue()) {
          // The k-block's first K step as a group of its own, then the wait for the
          // previous k-block (mma_wait(1): all but that group), then the other K
          // steps: the warpgroup waits with one K step queued on the tensor cores
          // instead of a whole k-block (see docs/gemm-perf-notes.md). The previous
          // stage goes back after those are issued: the tensor cores get them first.
          const unsigned step = 16;
          mma(g.acc, a, b, j > 0, KRange{0, step});
          mma_wait(1);
          mma(g.acc, a, b, boolean(true), KRange{step, 0});
          if_(j > 0, [&] { g.release((it - 1) % g.stages); });
        } else if (g.wide) {
          mma(g.acc, a, b, j > 0);
          // A tile wider than one wgmma takes A from registers, which ptxas keeps
          // until the MMAs that read them complete: keeping a second k-block's
          // in flight spills. Each warpgroup waits for its own; the other
          // consumer's MMAs keep the tensor cores busy meanwhile.
          mma_wait(0);
          g.release(st);
        } else {
          mma(g.acc, a, b, j > 0);
          // Keep one MMA group in flight; the one before it has finished reading its stage.
          mma_wait(1);
          if_(j > 0, [&] { g.release((it - 1) % g.stages); });
        }
        it = it + 1;
      });
      if (!g.wide) {
        mma_wait(0);
        g.release((it - 1) % g.stages);
      }
      g.finish_unit(wg, tm, tn, sp);
    });
    if_(thread_idx_x() % 128 == 0, [&] { bulk_wait(0); });
  });
}

void one_warpgroup(GemmKernel& g) {
  g.k.role("worker", 1, 0, [&](i32 wg) {
    g.declare_splits();
    boolean leader = thread_idx_x() == 0;
    Var<int32_t> it = var(i32(0), "it");  // k-blocks done by this CTA: stage it % stages
    const int32_t ahead = g.stages - 1;
    g.each_unit([&](i32 tm, i32 tn, i32 sp, i32 kb0, i32 count) {
      // The unit's k-blocks j in [0, count): the first `ahead` loads, then one more per k-block.
      if_(leader, [&] { for_(0, min(i32(ahead), count), [&](i32 j) { g.load((it + j) % g.stages, tm, tn, g.kblock(kb0, j)); }); });
      for_(0, count, [&](i32 j) {
        // The stage refilled here was read by the MMA of k-block j - 1, already waited for.
        if_(leader && j + ahead < count, [&] { g.load((it + j + ahead) % g.stages, tm, tn, g.kblock(kb0, j + ahead)); });
        i32 st = (it + j) % g.stages;
        wait_local(g.full[st]);
        mma(g.acc, stage(g.a, st), stage(g.b, st), j > 0);
        mma_wait(0);
      });
      it = it + count;
      g.finish_unit(wg, tm, tn, sp);
    });
    if_(leader, [&] { bulk_wait(0); });
  });
}

}  // namespace

unsigned gemm_consumer_registers(unsigned consumers) {
  // setmaxnreg moves registers within what the CTA got at launch (ptxas's per-thread
  // count for the block size, times its threads); asking for more blocks forever.
  const unsigned threads = 128u * (consumers + 1), launched = std::min(255u, 65536u / threads / 8u * 8u);
  return std::min(240u, (launched * threads - 128u * kGemmProducerRegisters) / (128u * consumers) / 8u * 8u);
}

uint64_t smem_bytes(const GemmShape& s, const GemmTiling& t) {
  const uint64_t in = ir::scalar_bytes(s.in);
  // Stages of A and B, two epilogue chunk buffers of bm x 128 bytes, alignment and barriers.
  return uint64_t(t.stages) * (t.bm + t.bn) * t.bk * in + 2ull * t.bm * 128 + 1024;
}

ir::Kernel build_gemm_kernel(const GemmShape& s, const GemmTiling& t) {
  KernelBuilder k("gemm");
  k.threads(t.threads());
  if (t.cluster_n * t.cluster_m > 1) k.cluster(t.cluster_n, t.cluster_m);
  GemmKernel g(s, t, k, t.warp_specialized ? t.consumers : 1);
  if (t.warp_specialized) warp_specialized(g);
  else one_warpgroup(g);
  return k.build();
}

}  // namespace tj::samples
