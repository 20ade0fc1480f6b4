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
// Split-K (splits > 1, or 0: automatic) is the DSL's SplitK (dsl/split_k.h): the
// schedule walks units (tile, split), each split owns a range of k-blocks, and the
// last MMA warpgroup to finish a tile adds the others' partials and runs the epilogue.
// S at run time: min(splits, k-blocks); with splits 0, the splits that fill the
// launched grid (at most min(k-blocks / 4, 32) and what the host's workspace holds).
// The grid is sized on the device (persistent_grid), so S follows the GPU's SM count:
// 1 (no split) once the tiles fill the GPU.
#include <algorithm>
#include <vector>

#include "dsl/dsl.h"
#include "samples/gemm.h"

#include <optional>

namespace tj::samples {

using namespace tj::dsl;

namespace {

// The swizzle of K-major operand tiles: the widest whose span divides a row of bk elements.
ir::Swizzle k_swizzle(const GemmShape& s, const GemmTiling& t) {
  const unsigned row = t.bk * ir::scalar_bytes(s.in);
  return row % 128 == 0 ? ir::Swizzle::B128 : row % 64 == 0 ? ir::Swizzle::B64 : ir::Swizzle::B32;
}

// The tail chunk's swizzle for rows of `bytes`: TMA's 32- or 64-byte swizzle where a row is
// one span, else none (96-byte rows; the tail is a narrow part of the epilogue); 128: B128.
ir::Swizzle tail_swizzle(unsigned bytes) {
  return bytes == 32 ? ir::Swizzle::B32 : bytes == 64 ? ir::Swizzle::B64 : bytes == 128 ? ir::Swizzle::B128 : ir::Swizzle::None;
}

// TMA boxes per CTA for `rows` rows of a tile shared by `ctas` CTAs: a box has at most 256 rows.
unsigned boxes_per_cta(unsigned rows, unsigned ctas) { return (rows / ctas + 255) / 256; }

// The fused epilogue's column vectors (scale, bias) the cooperative consumers stage in
// shared memory, each warpgroup its tile's bn values of each: read from global memory
// into registers as a unit starts (their latency hidden by the main loop), stored to
// shared memory after it, so that the epilogue reads them from there instead of
// waiting on global loads chunk by chunk. 0 where the epilogue reads them directly.
unsigned staged_vectors(const GemmShape& s, const GemmTiling& t) {
  // Swapped: the vectors run along the tile's rows; pingpong and coop cols: read from global memory.
  if (!t.warp_specialized || t.pingpong || t.split_cols || t.swap) return 0;
  return (s.epilogue.col_scale ? 1u : 0u) + (s.epilogue.bias ? 1u : 0u);
}

// What both kernel shapes declare.
struct GemmKernel {
  const GemmShape& s;
  const GemmTiling& t;
  KernelBuilder& k;
  // CTAs sharing A (a cluster row) and B (a column) through multicast, within this CTA's
  // plane of the cluster (split-K in the cluster: the planes run different K ranges); 1
  // and 1 without.
  unsigned cx, cy;
  unsigned a_boxes, b_boxes;  // boxes each CTA loads of its share of A's and B's tile
  bool nn;
  int32_t bm, bn, bk, stages, rows_per_mma;
  int32_t acc_cols;  // columns of a warpgroup's accumulator: bn, or its share with coop cols
  bool wide;  // an accumulator over one wgmma's 256 columns: the MMA reads A from registers
  // Each k-block's MMAs waited for and its stage given back at once: wide tiles (A from
  // registers) and release_early.
  bool waits_own() const { return wide || t.release_early; }
  // Each k-block's MMAs in two groups around the wait for the previous k-block (not waits_own()).
  bool split_issue() const { return t.split_issue && !waits_own() && t.mma_depth == 1; }
  SharedTile a, b;
  unsigned chunk_cols;  // output columns per epilogue chunk: one panel of chunk_bytes (128 or 64)
  // The columns of bn past its whole chunks (bn a multiple of 8, not of a chunk): the
  // tile's last chunk, narrower, through a buffer and maps of its own (gemm_tail_cols).
  unsigned tail_cols;
  SharedTile d;
  TileMap amap, bmap, dmap, cmap;
  std::optional<SharedTile> d_tail;
  std::optional<TileMap> dmap_tail, cmap_tail;
  i32 m, n, kk;
  f32 alpha, beta;
  std::optional<Ptr<float>> col_scale, bias;  // the epilogue's vectors, where it has them
  unsigned vectors;                    // of them staged in shared memory (staged_vectors)
  std::optional<Ptr<float>> vec_s;     // [consumer][vector][bn]: scale first, then bias
  SplitK split;              // split-K's workspace, units and fix-up (dsl/split_k.h); its parameters follow beta
  Ptr<mbarrier_t> full, empty, c_full;
  Accumulator acc;
  uint32_t stage_bytes;
  i32 tiles_m, tiles_n, kblocks;
  ir::TileSchedule schedule;
  unsigned mma_groups;
  // The edge's tiles end at m and n (row_origin): where no C or R is read from D's place
  // and each output value does not depend on which tile computes it (not stream-K, whose
  // units cut two tiles' K differently).
  bool edge_shift;
  // The MMA computes D^T = B A^T (swap): this kernel's A is the problem's B, its m the
  // problem's n; its tile's rows are D's columns, stored transposed (epilogue()).
  bool swap;

  GemmKernel(const GemmShape& s_, const GemmTiling& t_, KernelBuilder& k_, unsigned mma_groups_)
      : s(s_), t(t_), k(k_), cx(t_.multicast ? k_.cluster_shape().x : 1), cy(t_.multicast ? k_.cluster_shape().y : 1),
        a_boxes(boxes_per_cta(t_.bm, cx)), b_boxes(boxes_per_cta(s_.layout == GemmLayout::NN ? t_.bk : t_.bn, cy)),
        nn(s_.layout == GemmLayout::NN),
        bm(int32_t(t_.bm)), bn(int32_t(t_.bn)), bk(int32_t(t_.bk)), stages(int32_t(t_.stages)),
        rows_per_mma(int32_t(t_.acc_rows())), acc_cols(int32_t(t_.acc_cols())), wide(t_.acc_cols() > 256),
        // Shared tiles: A (M x K) and B (N x K, or K x N read N-major) per stage, one output tile.
        // K-major rows of bk elements: 128-byte swizzle, or 64-byte for bk = 32.
        a(k.shared_tile(s.in, "a", t.bm, t.bk, t.stages, ir::Major::K, k_swizzle(s_, t_))),
        b(nn ? k.shared_tile(s.in, "b", t.bk, t.bn, t.stages, ir::Major::MN)
             : k.shared_tile(s.in, "b", t.bn, t.bk, t.stages, ir::Major::K, k_swizzle(s_, t_))),
        chunk_cols(t_.chunk_bytes / ir::scalar_bytes(s_.out)), tail_cols(gemm_tail_cols(s_, t_)),
        // Two chunk buffers (or one: chunk_buffers) of bm x chunk_cols for the epilogue (per consumer with
        // pingpong, whose epilogues run at different times, and coop cols, where each
        // consumer stores whole rows of its own columns).
        // Swapped: each MMA warpgroup's chunk is chunk_cols rows of D (the accumulator's
        // columns) by its rows_per_mma columns of D (128-384 bytes: 128-byte swizzled panels).
        d(t_.swap ? k.shared_tile(s.out, "d", chunk_cols * mma_groups_, t_.acc_rows(), t_.chunk_buffers, ir::Major::K,
                                  ir::Swizzle::B128)
                  : k.shared_tile(s.out, "d", t.bm * t_.chunk_row_sets(), chunk_cols, t_.chunk_buffers, ir::Major::K,
                                  tail_swizzle(t_.chunk_bytes))),
        // The CTAs of a cluster row share A's tile: each loads a slice and multicasts
        // it along the row; B's slices go down the cluster column.
        amap(k.tile_map("A", a, t.bm / cx / a_boxes)),
        bmap(k.tile_map("B", b, (nn ? t.bk : t.bn) / cy / b_boxes)),
        dmap(k.tile_map("D", d, t_.swap ? chunk_cols : unsigned(rows_per_mma))),
        cmap(k.tile_map("C", d, t_.swap ? chunk_cols : unsigned(rows_per_mma))),
        // The tail chunk's buffer (one: the chunks before and after it use the other two)
        // and its maps, declared right after C's: its rows swizzled where they are 32 or
        // 64 bytes, else plain (TMA's swizzles span 32, 64 or 128 bytes).
        d_tail(!tail_cols ? std::nullopt
               : t_.swap  ? std::optional(k.shared_tile(s.out, "d_tail", tail_cols * mma_groups_, t_.acc_rows(), 1, ir::Major::K,
                                                        ir::Swizzle::B128))
                          : std::optional(k.shared_tile(s.out, "d_tail", t.bm * t_.chunk_row_sets(), tail_cols, 1,
                                                        ir::Major::K, tail_swizzle(tail_cols * ir::scalar_bytes(s_.out))))),
        dmap_tail(d_tail ? std::optional(k.tile_map("D_tail", *d_tail, t_.swap ? tail_cols : unsigned(rows_per_mma))) : std::nullopt),
        cmap_tail(d_tail ? std::optional(k.tile_map("C_tail", *d_tail, t_.swap ? tail_cols : unsigned(rows_per_mma))) : std::nullopt),
        m(k.param<int32_t>("m")), n(k.param<int32_t>("n")), kk(k.param<int32_t>("k")),
        alpha(k.param<float>("alpha")), beta(k.param<float>("beta")),
        col_scale(s_.epilogue.col_scale ? std::optional(k.param<float*>("col_scale")) : std::nullopt),
        bias(s_.epilogue.bias ? std::optional(k.param<float*>("bias")) : std::nullopt),
        vectors(staged_vectors(s_, t_)),
        vec_s(vectors ? std::optional(k.shared<float>("vec_s", uint64_t(t_.consumers) * vectors * t_.bn)) : std::nullopt),
        split(k, t.splits, kMaxSplits, mma_groups_, uint64_t(t.acc_rows()) * t.acc_cols(),
              t.split_in_cluster ? KPartition::Cluster : t.stream_k ? KPartition::StreamK : KPartition::Splits,
              t.deterministic ? PartialSum::Ordered : t.atomic_sum ? PartialSum::Atomic : PartialSum::LastAdds,
              uint64_t(t.owner_wait_us) * 1000, chunk_cols),
        // full[s]: stage s's A and B landed (the loader's arrival + the bytes);
        // empty[s]: every MMA warp of every CTA this CTA's loads reach released it.
        full(k.mbarriers("full", t.stages, 1)),
        empty(k.mbarriers("empty", t.stages, mma_groups_ * 4 * (cx + cy - 1))),
        c_full(k.mbarriers("c_full", t.warp_specialized ? t.consumers : 1, 1)),
        acc(k.accumulator("acc", unsigned(rows_per_mma), t.acc_cols())),
        stage_bytes(uint32_t((uint64_t(t.bm) + t.bn) * t.bk * ir::scalar_bytes(s.in))),
        tiles_m((m + bm - 1) / bm), tiles_n((n + bn - 1) / bn), kblocks((kk + bk - 1) / bk),
        schedule(t.dynamic ? dynamic(t.group) : static_persistent(t.group)), mma_groups(mma_groups_),
        edge_shift(t_.edge && s_.beta == 0 && !s_.epilogue.residual && !t_.stream_k), swap(t_.swap) {
    split.declare_shared(t.acc_cols());
  }

  void declare_splits() { split.split_stream_k_tail(t.stream_k_tail); split.declare_count(tiles_m, tiles_n, kblocks); }
  // body(tm, tn, split, origin, k-block count) for each unit this CTA gets.
  // Loops over a unit's k-blocks run j from 0 (the race check evaluates j > 0);
  // k-block j of the unit is kblock(origin, j).
  void each_unit(const std::function<void(i32, i32, i32, i32, i32)>& body, SrcLoc loc = SrcLoc::current()) const {
    split.for_each_unit(schedule, tiles_m, tiles_n, kblocks, body, loc);
  }
  i32 kblock(const i32& origin, const i32& j) const { return split.kblock(origin, j); }
  // Warpgroup wg after its main loop over unit (tm, tn, sp): the epilogue, after
  // split-K's fix-up where the tile's K is split.
  void finish_unit(const i32& wg, const i32& tm, const i32& tn, const i32& sp) {
    split.finish(acc, wg, tm, tn, sp, tiles_n, [&](Columns cols) { epilogue(wg, tm, tn, cols); });
  }

  // Tile (tm, tn)'s first row and column. Where the last tile row holds fewer than half a
  // tile of rows (or none: a cluster's CTA past m), the edge's tiles move back to end at m
  // (edge_shift; columns likewise), so that no TMA box reaches mostly past the operands: on
  // the H200 such a box costs more than one in bounds (a last tile row of 4 valid rows of 128
  // made a one-wave GEMM 1.41x slower), while a few rows past the edge cost less than the
  // moved tile's extra loads and stores. The moved tile's rows before the edge are the
  // previous tile's too, which computes and stores the same values. A moved column origin
  // is rounded up to a multiple of `align` elements: D's and (nn) B's innermost coordinate,
  // which a TMA store with a coordinate off 16 bytes faults on (an illegal instruction on the
  // H200 at n = 333: origin 253); the tile then reaches a few columns past n, which TMA clips.
  i32 origin(const i32& t, const i32& extent, const i32& tile, int32_t align = 1) const {
    if (!edge_shift) return t * tile;
    const i32 back = align == 1 ? extent - tile : (extent - tile + (align - 1)) / align * align;
    return select(extent >= tile && extent % tile * 2 < tile, min(t * tile, back), t * tile);
  }
  // Swapped, the rows are D's innermost coordinate.
  i32 row_origin(const i32& tm) const { return origin(tm, m, bm, swap ? kGemmColumnAlign : 1); }
  i32 col_origin(const i32& tn) const { return origin(tn, n, bn, kGemmColumnAlign); }
  // D's column of warpgroup wg's accumulator column 0: its share's with coop cols.
  i32 first_col(const i32& tn, const i32& wg) const { return t.split_cols ? col_origin(tn) + wg * acc_cols : col_origin(tn); }
  // The tile row of warpgroup wg's accumulator row 0: its rows' with coop rows; with coop
  // cols every warpgroup holds all of the tile's rows.
  i32 first_row(const i32& tm, const i32& wg) const { return t.split_cols ? row_origin(tm) : row_origin(tm) + wg * rows_per_mma; }

  // One thread: k-block kb of tile (tm, tn) into stage st, completing on full[st].
  void load(const i32& st, const i32& tm, const i32& tn, const i32& kb) {
    arrive_expect_tx(full[st], u32(stage_bytes));
    std::optional<u32> row_mask, col_mask;
    if (cx > 1) row_mask = mask_row();
    if (cy > 1) col_mask = mask_col();
    // This CTA's slice of each tile: its place in the cluster row (A) and column (B).
    i32 a_part = cx > 1 ? cluster_ctaid_x() : i32(0), b_part = cy > 1 ? cluster_ctaid_y() : i32(0);
    for (unsigned i = 0; i < a_boxes; ++i)
      tma_load_tile(stage(a, st), amap, row_origin(tm), kb * bk, full[st], a_part * int32_t(a_boxes) + int32_t(i), row_mask);
    for (unsigned i = 0; i < b_boxes; ++i) {
      i32 part = b_part * int32_t(b_boxes) + int32_t(i);
      if (nn) tma_load_tile(stage(b, st), bmap, kb * bk, col_origin(tn), full[st], part, col_mask);
      else tma_load_tile(stage(b, st), bmap, col_origin(tn), kb * bk, full[st], part, col_mask);
    }
  }

  // The boxes load() would fetch for k-block kb of tile (tm, tn), into L2 only.
  void prefetch(const i32& tm, const i32& tn, const i32& kb) {
    i32 a_part = cx > 1 ? cluster_ctaid_x() : i32(0), b_part = cy > 1 ? cluster_ctaid_y() : i32(0);
    for (unsigned i = 0; i < a_boxes; ++i) tma_prefetch_tile(amap, row_origin(tm), kb * bk, a_part * int32_t(a_boxes) + int32_t(i));
    for (unsigned i = 0; i < b_boxes; ++i) {
      i32 part = b_part * int32_t(b_boxes) + int32_t(i);
      if (nn) tma_prefetch_tile(bmap, kb * bk, col_origin(tn), part);
      else tma_prefetch_tile(bmap, col_origin(tn), kb * bk, part);
    }
  }

  // Gives stage `st` back to every loader whose copies land here (this CTA's
  // row and column of the cluster), once per warp: lane q arrives on the plane's
  // CTA of rank q, so a warp's arrivals go out in one instruction. Relaxed: the
  // MMAs that read the stage have completed (mma_wait), so there is nothing left
  // to order, and a releasing arrive on a peer's barrier would fence at cluster
  // scope on every k-block.
  void release(const i32& st) {
    if (cx * cy == 1) {
      if_(lane_id() == 0, [&] { arrive_relaxed(empty[st]); });
      return;
    }
    const i32 q = lane_id();
    // The CTAs of this one's plane (split-K in the cluster: planes along z), rank q of
    // the plane at cluster rank plane + q.
    const i32 rank = t.cluster_k > 1 ? cluster_ctaid_z() * int32_t(cx * cy) + q : q;
    // A cluster of one row or one column: every CTA shares this one's row or column.
    const Val<bool> mine = cx == 1 || cy == 1
                               ? q < int32_t(cx * cy)
                               : q < int32_t(cx * cy) && (q % int32_t(cx) == cluster_ctaid_x() || q / int32_t(cx) == cluster_ctaid_y());
    if_(mine, [&] { arrive_relaxed(map_shared_rank(empty, rank)[st]); });
  }

  // Tile column tn's values of the staged vectors this thread of a consumer warpgroup
  // stores (columns thread, + 128, ... of the tile, clamped into [0, n)), loaded now.
  std::vector<f32> prefetch_vectors(const i32& tn) const {
    std::vector<f32> out;
    const i32 t = thread_idx_x() % 128;
    for (const auto* v : {&col_scale, &bias})
      if (vectors && *v)
        for (int32_t c = 0; c < bn; c += 128) out.push_back(var((**v)[min(col_origin(tn) + c + t, n - 1)], "vec"));
    return out;
  }
  // Warpgroup wg stores them for its epilogue (the whole warpgroup, after its main loop:
  // its previous epilogue's reads ended at that epilogue's last warpgroup_sync); halved for GELU.
  void stage_vectors(const i32& wg, const std::vector<f32>& values) {
    if (!vectors) return;
    const i32 t = thread_idx_x() % 128;
    size_t i = 0;
    for (unsigned v = 0; v < vectors; ++v)
      for (int32_t c = 0; c < bn; c += 128, ++i) {
        const i32 at = (wg * int32_t(vectors) + int32_t(v)) * bn + c + t;
        const f32 value = gelu() ? values[i] * f32(0.5f) : values[i];
        if (c + 128 <= bn) (*vec_s)[at] = value;
        else if_(c + t < bn, [&] { (*vec_s)[at] = value; });
      }
    warpgroup_sync(wg);
  }
  bool gelu() const { return s.epilogue.act == GemmAct::Gelu; }

  // The fused epilogue (GemmEpilogue) at one element of warpgroup wg: its column of D
  // clamped into [0, n) (a ragged tile's columns past n are computed, and the TMA store
  // drops them); the vectors from shared memory where they are staged. GELU, 0.5 x (1 +
  // tanh(k (x + 0.044715 x^3))) with k = sqrt(2 / pi), is h + h tanh(h (2k + 8 (0.044715 k)
  // h^2)) in h = x / 2, the halving in the first multiply or the staged vectors: with a bias,
  // an FMA, a multiply, an FMA, a multiply, the tanh and an FMA per element.
  f32 fused(const Elem& e, const f32& scale, const i32& wg, const i32& tm, const i32& tn) const {
    const bool halve = gelu() && !(vectors && col_scale);  // the accumulator's factor halves, else the staged scale
    f32 x = s.alpha != 1.0 ? e.value * (halve ? scale * f32(0.5f) : scale) : halve ? e.value * f32(0.5f) : e.value;
    // Swapped: D's column is the accumulator's row (never staged: staged_vectors).
    const i32 col = swap ? min(first_row(tm, wg) + e.row, m - 1) : min(first_col(tn, wg) + e.col, n - 1);
    auto vector = [&](const Ptr<float>& global, unsigned v) {
      return vectors ? (*vec_s)[(wg * int32_t(vectors) + int32_t(v)) * bn + e.col] : global[col];
    };
    if (col_scale) x = x * vector(*col_scale, 0);
    if (bias) x = x + (halve && !vectors ? vector(*bias, 0) * f32(0.5f) : vector(*bias, col_scale ? 1 : 0));
    switch (s.epilogue.act) {
      case GemmAct::None: break;
      case GemmAct::Relu: x = max(x, f32(0.0f)); break;
      case GemmAct::Gelu: x = fma(x, approx::tanh(x * fma(x * x, f32(0.2854192651f), f32(1.5957691216f))), x); break;
      case GemmAct::Silu: x = x * approx::rcp(f32(1.0f) + approx::exp2(x * f32(-1.4426950409f))); break;
    }
    return x;
  }

  // Warpgroup wg's rows of tile (tm, tn), its columns `cols` (all of them, or this CTA's
  // share with split-K in the cluster; whole chunks, then the tail where bn has one):
  // alpha * acc (+ beta * C), or the fused epilogue (+ the residual R), one chunk of
  // columns (a panel of 128 or 64 bytes) at a time through two chunk buffers in shared memory, each
  // chunk leaving by TMA store while the next is written; the tail through its own
  // buffer, so that consecutive chunks, within a tile and across tiles, never share one.
  // Chunks instead of a whole output tile leave room for one more pipeline stage.
  void epilogue(const i32& wg, const i32& tm, const i32& tn, Columns cols) {
    boolean leader = thread_idx_x() % 128 == 0;
    const bool tail = tail_cols && cols.first + cols.count == unsigned(acc_cols);
    if (cols.first % chunk_cols != 0 || (cols.count - (tail ? tail_cols : 0)) % chunk_cols != 0)
      ir::internal_error("gemm epilogue: columns " + std::to_string(cols.first) + ".." + std::to_string(cols.first + cols.count) +
                         " are not whole chunks of " + std::to_string(chunk_cols) + (tail_cols ? " and the tail" : ""));
    // Whole chunks; with a tail, the last chunk is it.
    const unsigned full = cols.count / chunk_cols, chunks = full + (tail ? 1 : 0), ch0 = cols.first / chunk_cols;
    // Built for the problem's alpha when it is 1 (the usual case): no multiply per element.
    const f32 scale = s.alpha == 1.0 ? f32(1.0f) : alpha;
    // The global row of the chunk buffers' row 0 (a tile copy adds the view's row): the
    // consumers' rows of one tile, or with pingpong and coop cols each consumer's rows of
    // the tile (all of them) at rows wg * bm of the buffers.
    const i32 row0 = t.chunk_row_sets() > 1 ? row_origin(tm) - wg * bm : row_origin(tm);
    for (unsigned c = 0; c < chunks; ++c) {
      const unsigned ch = ch0 + c;  // the chunk of the tile; c: of this epilogue, and its buffer
      const bool is_tail = c == full;
      const unsigned width = is_tail ? tail_cols : chunk_cols;
      // This warpgroup's part of the chunk buffer: its rows of the tile, or swapped its
      // `width` rows of D (the chunk's columns of the accumulator).
      const int32_t part = swap ? int32_t(width) : rows_per_mma;
      TileView out = is_tail ? stage(*d_tail, 0).rows(wg * part) : stage(d, int32_t(c % t.chunk_buffers)).rows(wg * part);
      const TileMap& dm = is_tail ? *dmap_tail : dmap;
      const TileMap& cm = is_tail ? *cmap_tail : cmap;
      const i32 col0 = first_col(tn, wg) + int32_t(ch * chunk_cols);
      // D's row and column of the buffer's row 0 for the chunk's TMA copies (which add the
      // view's row): swapped, the chunk's columns are D's rows and the warpgroup's rows its columns.
      const i32 d_row = swap ? col0 - wg * part : row0, d_col = swap ? first_row(tm, wg) : col0;
      const Columns chunk{ch * chunk_cols, width};
      // The epilogue function into the buffer, transposed where swapped.
      auto store = [&](const ElemFn& fn) {
        if (swap) store_accumulator_transposed(out, acc, chunk, fn);
        else store_accumulator(out, acc, chunk, fn);
      };
      auto scaled = [&](const Elem& e) { return s.alpha == 1.0 ? e.value : e.value * scale; };
      // A tile's first chunk reuses the buffer of the previous tile's last: with a tail,
      // where the tail is the only chunk; without, where the whole chunks are odd.
      // With one buffer, every whole chunk reuses the one before it.
      const bool reuses_last = (t.chunk_buffers == 1 && !is_tail) || (c == 0 && (tail ? full == 0 : full % 2 == 1));
      if (s.beta == 0 && !s.epilogue.residual) {
        // Built for beta 0 (the problem's, known here): no C path in the kernel at all,
        // fewer registers and instructions in the consumers. The instance passes beta 0.
        // epilogue_lag 1: one barrier per chunk: before it, the leader waits until the
        // previous chunk's store has read its buffer, which the next chunk writes after
        // the barrier. Where a tile's first chunk reuses the previous tile's last buffer
        // (reuses_last), stored after that barrier: wait for it first. epilogue_lag 2:
        // before the write, every store but the last has read its buffer (the last one's
        // is another, unless reuses_last), so two stores stay in flight.
        const bool early = t.epilogue_lag == 2;
        if (reuses_last || early) {
          if_(leader, [&] { bulk_wait_read(reuses_last ? 0 : 1); });
          warpgroup_sync(wg);
        }
        if (s.epilogue.any()) store([&](const Elem& e) { return fused(e, scale, wg, tm, tn); });
        else if (swap) store(scaled);
        else store_accumulator(out, acc, chunk, scale, f32(0.0f), out);
        fence_proxy_async();
        if (!early) if_(leader, [&] { bulk_wait_read(0); });
        warpgroup_sync(wg);
      } else {
        // C (beta != 0) or the residual R, loaded through the map C into the chunk buffer
        // that the epilogue then overwrites. The store that last read this buffer (two
        // chunks ago) is done reading. Where a tile's first chunk reuses the previous
        // tile's last buffer (reuses_last): wait for every store then.
        if_(leader, [&] { bulk_wait_read(reuses_last ? 0 : 1); });
        auto load_c = [&] {
          if_(leader, [&] {
            arrive_expect_tx(c_full[wg], u32(tile_load_bytes(cm)));
            tma_load_tile(out, cm, d_row, d_col, c_full[wg]);
          });
          wait_local(c_full[wg]);
        };
        if (s.epilogue.residual) {
          // The fused epilogue plus R's element at the same place (e[out]: read before it is written).
          load_c();
          store([&](const Elem& e) { return fused(e, scale, wg, tm, tn) + e[out]; });
        } else {
          if_(beta != 0.0f, load_c).else_([&] { warpgroup_sync(wg); });
          // One epilogue for both cases (it reads C only when beta != 0): half the code to compile.
          if (swap) store([&](const Elem& e) { return scaled(e) + beta * e[out]; });
          else store_accumulator(out, acc, chunk, scale, beta, out);
        }
        fence_proxy_async();
        warpgroup_sync(wg);
      }
      if_(leader, [&] {
        tma_store_tile(dm, d_row, d_col, out);
        bulk_commit();
      });
    }
  }
};

// Warpgroup wg's main loop over a unit's `count` k-blocks, stages it % stages on:
// MMAs into acc, each stage released once the MMAs that read it have completed.
// Returns with every MMA waited for and every stage released.
void main_loop(GemmKernel& g, const i32& wg, const i32& count, Var<int32_t>& it) {
  for_(0, count, [&](i32 j) {
    i32 st = it % g.stages;
    wait_local(g.full[st]);
    // Cooperative: this warpgroup's rows of A and all of B's (its columns of the tile), or
    // with coop cols all of A's and its share of B's; ping-pong: all of both.
    const bool all_a = g.t.pingpong || g.t.split_cols;
    const TileView a = all_a ? stage(g.a, st) : stage(g.a, st).rows(wg * g.rows_per_mma);
    const TileView b = g.t.split_cols ? stage(g.b, st).rows(wg * g.acc_cols) : stage(g.b, st);
    // A ping-pong consumer has the tensor cores to itself: its MMAs go K step by K step
    // across its accumulator's blocks, so none waits on the one before it (see
    // docs/gemm-perf-notes.md).
    const MmaOrder order = g.t.pingpong ? MmaOrder::KSteps : MmaOrder::Blocks;
    if (g.split_issue()) {
      // The k-block's first K step as a group of its own, then the wait for the
      // previous k-block (mma_wait(1): all but that group), then the other K
      // steps: the warpgroup waits with one K step queued on the tensor cores
      // instead of a whole k-block (see docs/gemm-perf-notes.md). The previous
      // stage goes back after those are issued: the tensor cores get them first.
      const unsigned step = 16;
      mma(g.acc, a, b, j > 0, KRange{0, step}, order);
      mma_wait(1);
      mma(g.acc, a, b, boolean(true), KRange{step, 0}, order);
      if_(j > 0, [&] { g.release((it - 1) % g.stages); });
    } else if (g.waits_own()) {
      mma(g.acc, a, b, j > 0, KRange{0, 0}, order);
      // A tile wider than one wgmma takes A from registers, which ptxas keeps
      // until the MMAs that read them complete: keeping a second k-block's
      // in flight spills. With release_early, the stage goes back before the
      // next k-block's data is waited for. Each warpgroup waits for its own;
      // the other consumers' MMAs keep the tensor cores busy meanwhile.
      mma_wait(0);
      g.release(st);
    } else {
      mma(g.acc, a, b, j > 0, KRange{0, 0}, order);
      // Keep mma_depth MMA groups in flight; the one before them has finished reading its stage.
      const int32_t depth = int32_t(g.t.mma_depth);
      mma_wait(unsigned(depth));
      if_(j > depth - 1, [&] { g.release((it - depth) % g.stages); });
    }
    it = it + 1;
  });
}

// The last MMAs of a main loop over `count` k-blocks: waited for, the last mma_depth stages
// released (waits_own() did both); a unit with fewer k-blocks (split-K in the cluster: K
// shorter than the cluster gives a split none) gives back only those it read.
void drain(GemmKernel& g, Var<int32_t>& it, const i32& count) {
  if (g.waits_own()) return;
  mma_wait(0);
  for (int32_t back = 1; back <= int32_t(g.t.mma_depth); ++back) {
    if (back == 1 && !g.t.split_in_cluster) g.release((it - 1) % g.stages);
    else if_(count > back - 1, [&] { g.release((it - back) % g.stages); });
  }
}

// Cooperative: every consumer runs every unit on its share of the tile's rows.
void cooperative_consumer(GemmKernel& g, const i32& wg) {
  g.declare_splits();
  Var<int32_t> it = var(i32(0), "it");
  g.each_unit([&](i32 tm, i32 tn, i32 sp, i32, i32 count) {
    const std::vector<f32> vectors = g.prefetch_vectors(tn);
    main_loop(g, wg, count, it);
    drain(g, it, count);
    g.stage_vectors(wg, vectors);
    g.finish_unit(wg, tm, tn, sp);
  });
}

// Ping-pong: consumer wg runs the units u of this CTA with u % 2 == wg, a whole tile
// each, and skips the other's k-blocks in the pipeline (their phases of `full` too). The main loops go in turns: a
// consumer passes the turn once its last MMAs are issued, so the other's MMAs follow
// them on the tensor cores while this one drains and runs its epilogue. With an odd
// number of units consumer 0 takes one turn more; its last pass is never waited for.
void pingpong_consumer(GemmKernel& g, const i32& wg) {
  Turns turn = g.k.turns();
  g.declare_splits();
  Var<int32_t> it = var(i32(0), "it");
  Var<int32_t> u = var(i32(0), "u");
  g.each_unit([&](i32 tm, i32 tn, i32 sp, i32, i32 count) {
    if_(u % 2 == wg, [&] {
      wait_turn(turn);
      main_loop(g, wg, count, it);
      pass_turn(turn);
      drain(g, it, count);
      g.finish_unit(wg, tm, tn, sp);
    }).else_([&] {
      // The other consumer's k-blocks: their stages' phases pass this one by.
      skip_phases(g.full, it, count);
      it = it + count;
    });
    u = u + 1;
  });
}

void warp_specialized(GemmKernel& g) {
  g.k.role("producer", 1, kGemmProducerRegisters, [&](i32) {
    g.declare_splits();
    if_(thread_idx_x() == 0, [&] {
      Var<int32_t> it = var(i32(0), "it");
      g.each_unit([&](i32 tm, i32 tn, i32, i32 origin, i32 count) {
        for_(0, count, [&](i32 j) {
          // L2 prefetch `ahead` k-blocks beyond the load, issued before the wait for a free
          // stage: the unit's first k-blocks at its start, then one per load.
          if (const int32_t ahead = int32_t(g.t.prefetch); ahead > 0) {
            if_(j == 0, [&] { for_(1, min(count, i32(ahead)), [&](i32 q) { g.prefetch(tm, tn, g.kblock(origin, q)); }); });
            if_(j + ahead < count, [&] { g.prefetch(tm, tn, g.kblock(origin, j + ahead)); });
          }
          i32 st = it % g.stages;
          if_(it >= g.stages, [&] { wait_local(g.empty[st]); });
          g.load(st, tm, tn, g.kblock(origin, j));
          it = it + 1;
        });
      });
    });
  });
  g.k.role("consumer", g.t.consumers, gemm_consumer_registers(g.t.consumers), [&](i32 wg) {
    if (g.t.pingpong) pingpong_consumer(g, wg);
    else cooperative_consumer(g, wg);
    if_(thread_idx_x() % 128 == 0, [&] { bulk_wait(0); });
  });
}

void one_warpgroup(GemmKernel& g) {
  g.k.role("worker", 1, 0, [&](i32 wg) {
    g.declare_splits();
    boolean leader = thread_idx_x() == 0;
    Var<int32_t> it = var(i32(0), "it");  // k-blocks done by this CTA: stage it % stages
    const int32_t ahead = g.stages - 1;
    g.each_unit([&](i32 tm, i32 tn, i32 sp, i32 origin, i32 count) {
      // The unit's k-blocks j in [0, count): the first `ahead` loads, then one more per k-block.
      if_(leader, [&] { for_(0, min(i32(ahead), count), [&](i32 j) { g.load((it + j) % g.stages, tm, tn, g.kblock(origin, j)); }); });
      for_(0, count, [&](i32 j) {
        // The stage refilled here was read by the MMA of k-block j - 1, already waited for.
        if_(leader && j + ahead < count, [&] { g.load((it + j + ahead) % g.stages, tm, tn, g.kblock(origin, j + ahead)); });
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

unsigned gemm_launch_registers(unsigned threads) { return std::min(255u, 65536u / threads / 8u * 8u); }

unsigned gemm_consumer_registers(unsigned consumers) {
  // setmaxnreg moves registers within what the CTA got at launch (ptxas's per-thread
  // count for the block size, times its threads); asking for more blocks forever.
  const unsigned threads = 128u * (consumers + 1), launched = gemm_launch_registers(threads);
  return std::min(240u, (launched * threads - 128u * kGemmProducerRegisters) / (128u * consumers) / 8u * 8u);
}

unsigned gemm_tail_cols(const GemmShape& s, const GemmTiling& t) { return t.acc_cols() % (t.chunk_bytes / unsigned(ir::scalar_bytes(s.out))); }

uint64_t smem_bytes(const GemmShape& s, const GemmTiling& t) {
  const uint64_t in = ir::scalar_bytes(s.in);
  // Stages of A and B, one or two epilogue chunk buffers of bm x chunk_bytes (per consumer with
  // pingpong or coop cols) and the tail's of bm x its columns (1024-byte aligned), alignment
  // and barriers.
  const uint64_t tail = uint64_t(t.bm) * gemm_tail_cols(s, t) * ir::scalar_bytes(s.out);
  const uint64_t chunk_buffers = (uint64_t(t.chunk_buffers) * t.bm * t.chunk_bytes + (tail + 1023) / 1024 * 1024) * t.chunk_row_sets();
  const uint64_t vectors = uint64_t(t.consumers) * staged_vectors(s, t) * t.bn * 4;
  // Split-K in the cluster: S - 1 received shares of acc_rows x bn / S f32 per MMA warpgroup.
  const uint64_t planes = t.cluster_k;
  const uint64_t exchange = t.split_in_cluster ? uint64_t(t.tile_groups()) * (planes - 1) * t.acc_rows() * (t.acc_cols() / planes) * 4 : 0;
  return uint64_t(t.stages) * (t.bm + t.bn) * t.bk * in + chunk_buffers + vectors + exchange + 1024;
}

ir::Kernel build_gemm_kernel(const GemmShape& s, const GemmTiling& t) {
  KernelBuilder k("gemm");
  k.threads(t.threads());
  if (t.cluster_n * t.cluster_m * t.cluster_k > 1) k.cluster(t.cluster_n, t.cluster_m, t.cluster_k);
  k.dependent_launch(t.pdl);
  GemmKernel g(s, t, k, t.tile_groups());
  if (t.warp_specialized) warp_specialized(g);
  else one_warpgroup(g);
  return k.build();
}

}  // namespace tj::samples
