// The attention kernel, written with the DSL's tiles and accumulators as values
// (samples/attention.h says what it computes). Per CTA: query block qb of head bh.
//
//   producer warpgroup (one thread): the unit's Q into Q buffer u % q_stages, then K and V
//     block j into stage j % stages, each after the consumers have released its previous
//     use (with two Q buffers a persistent CTA's next Q lands while this unit runs);
//   consumer warpgroup w (rows w * 64 .. + 64 of the block): waits for Q, then for each
//   key block j:
//     S = Q K_j^T                                   (wgmma, f32 in registers)
//     S = -inf where key >= seq_k or (causal) key > query (only in blocks that reach there)
//     alpha = m;  m = max(m, rowmax S);  alpha = 2^((alpha - m) c)   c = log2(e) / sqrt(d)
//     P = 2^(S c - m c);  l = l alpha + rowsum P;  O = O alpha;  O += bf16(P) V_j
//   then O / l and the logsumexp (m c + log2 l) ln 2 out, O through the warpgroup's own
//   rows of the Q tile (dead once its last MMA has completed). S = Q K_{j+1}^T is issued with
//   O += P V_j, in turns with the other consumer warpgroups, and block j + 1's softmax
//   runs while P V_j is still on the tensor cores.
//
// Scores are kept unscaled (the max is taken on S itself); c is folded into the
// exponent as one fma per element. The first key block always holds key 0, which
// every query sees, so m is finite from then on and a fully masked later block
// gives P = 0 and alpha = 1 without NaNs.
#include <cmath>
#include <functional>
#include <optional>

#include "dsl/dsl.h"
#include "samples/attention.h"

namespace tj::samples {

using namespace tj::dsl;

namespace {

// TMA through 3-D maps (d, seq, batch * head): the DSL's tile maps are 2-D, and a 2-D
// view of [batch * head * seq, d] would let a ragged block's store spill into the next
// head. These mirror tma_load_tile / tma_store_tile's panel walk with the head as the
// third coordinate; the verifier still checks each box against the tile's panels.
TensorMap tile_map_3d(KernelBuilder& k, const std::string& name, const SharedTile& t, unsigned box_rows) {
  return k.tensor_map<bf16>(name, {t.layout.panel_cols(), box_rows, 1}, t.layout.swizzle);
}

// map's box rows into stage `st` of tile t from tile_row on, from rows [row, ...) of head
// bh, completing on bar. Takes the caller's location, as the DSL's own ops do: the checks
// tell loads apart by it.
void load_tile_rows(const SharedTile& t, const i32& st, const i32& tile_row, const TensorMap& map, const i32& row, const i32& bh,
               const BarrierRef& bar, SrcLoc loc = SrcLoc::current()) {
  const ir::TileLayout& l = t.layout;
  const int32_t pc = int32_t(l.panel_cols());
  for (unsigned p = 0; p < l.panels(); ++p) {
    i32 offset = st * int32_t(l.stage_elems()) + int32_t(p * l.panel_elems()) + tile_row * pc;
    tma_load(Slot(t.ref, offset.expr()), map, {i32(int32_t(p) * pc), row, bh}, bar, loc);
  }
}

// map's box rows of stage `st` of tile t from tile_row on, to rows [row, ...) of head bh
// (one bulk group the caller commits).
void store_tile_rows(const SharedTile& t, const i32& st, const i32& tile_row, const TensorMap& map, const i32& row, const i32& bh,
                SrcLoc loc = SrcLoc::current()) {
  const ir::TileLayout& l = t.layout;
  const int32_t pc = int32_t(l.panel_cols());
  for (unsigned p = 0; p < l.panels(); ++p) {
    i32 offset = st * int32_t(l.stage_elems()) + int32_t(p * l.panel_elems()) + tile_row * pc;
    tma_store(map, {i32(int32_t(p) * pc), row, bh}, Slot(t.ref, offset.expr()), loc);
  }
}

// Columns of the f32 tile that receives each row's logsumexp: one 128-byte swizzled
// panel, every column holding the row's value (so that column 0 of a row, wherever the
// swizzle put it, is read without knowing the swizzle).
constexpr unsigned kLseCols = 32;

}  // namespace

unsigned attention_consumer_registers(unsigned consumers) {
  // As the GEMM's consumers: what setmaxnreg can move within the CTA's launch registers.
  const unsigned threads = 128u * (consumers + 1), launched = std::min(255u, 65536u / threads / 8u * 8u);
  return std::min(240u, (launched * threads - 128u * kAttentionProducerRegisters) / (128u * consumers) / 8u * 8u);
}

unsigned attention_fragment_registers(const AttentionShape& s, const AttentionTiling& t) {
  // S and O as f32 (64 x n / 128 threads), P as bf16 pairs, four row fragments of 2.
  return 64 * t.block_n / 128 + 64 * unsigned(s.panel_dim()) / 128 + 64 * t.block_n / 256 + 4 * 2;
}

uint64_t attention_smem_bytes(const AttentionShape& s, const AttentionTiling& t) {
  const uint64_t d = uint64_t(s.panel_dim()), bm = t.block_m();
  // Q (bf16, also the output's tile) per Q buffer, K and V per stage, the logsumexp rows, alignment and barriers.
  return uint64_t(t.q_stages) * bm * d * 2 + uint64_t(t.stages) * 2 * t.block_n * d * 2 + bm * kLseCols * 4 + 1024;
}

ir::Kernel build_attention_kernel(const AttentionShape& s, const AttentionTiling& t) {
  KernelBuilder k("attention");
  k.threads(t.threads());
  const unsigned d = unsigned(s.panel_dim()), bm = t.block_m(), bn = t.block_n, stages = t.stages;  // d: the tiles' (c: head_dim's)
  const ir::Scalar bf = ir::Scalar::BF16;
  // Q, and the output on its way out: each consumer warpgroup writes O / l over its own
  // 64 rows once the MMAs that read them have completed (at d 256 a separate output tile
  // and 2 stages of K and V would not fit).
  SharedTile q = k.shared_tile(bf, "q", bm, d, t.q_stages);
  SharedTile kt = k.shared_tile(bf, "kt", bn, d, stages);
  // V as keys x d, N (d) contiguous: the B operand of P V read MN-major.
  SharedTile v = k.shared_tile(bf, "v", bn, d, stages, ir::Major::MN);
  SharedTile lse_rows = k.shared_tile(ir::Scalar::F32, "lse_rows", bm, kLseCols);
  TensorMap qmap = tile_map_3d(k, "Q", q, 64), kmap = tile_map_3d(k, "K", kt, bn), vmap = tile_map_3d(k, "V", v, bn),
            omap = tile_map_3d(k, "O", q, 64);
  Ptr<float> lse = k.param<float*>("lse");
  i32 seq_q = k.param<int32_t>("seq_q"), seq_k = k.param<int32_t>("seq_k");
  // full_k[s] / full_v[s]: K / V of the stage landed; empty_k[s] / empty_v[s]: each
  // consumer warp released it (K once S is computed, V a turn later, after P V);
  // q_full[b]: Q buffer b landed; q_empty[b]: each consumer's output store has read its rows.
  auto full_k = k.mbarriers("full_k", stages, 1), empty_k = k.mbarriers("empty_k", stages, 4 * t.consumers);
  auto full_v = k.mbarriers("full_v", stages, 1), empty_v = k.mbarriers("empty_v", stages, 4 * t.consumers);
  auto q_full = k.mbarriers("q_full", t.q_stages, 1), q_empty = k.mbarriers("q_empty", t.q_stages, t.consumers);
  const int32_t qstages = int32_t(t.q_stages);
  Accumulator sc = k.accumulator("s", 64, bn), acc_o = k.accumulator("acc_o", 64, d);
  RowFragment m = k.row_fragment("m", 64), l = k.row_fragment("l", 64), alpha = k.row_fragment("alpha", 64);
  OperandFragment p = k.operand_fragment("p", 64, bn, bf);  // P = bf16(exp(S - m)), A of O += P V

  const float c = float(1.4426950408889634 / std::sqrt(double(s.head_dim)));  // log2(e) / sqrt(d)
  const int32_t ibm = int32_t(bm), ibn = int32_t(bn);
  const i32 bh_count = k.param<int32_t>("bh_count"), qblocks = (seq_q + (ibm - 1)) / ibm;
  // Key blocks query block qb reads: causal stops after its last query's key.
  auto key_blocks = [&](const i32& qb) {
    const i32 kv_end = s.causal ? min(seq_k, qb * ibm + ibm) : seq_k;
    return (kv_end + (ibn - 1)) / ibn;
  };
  // Each role's walk over its units (query block qb, head bh): one per CTA from the grid,
  // or a persistent walk of the schedule (dynamic: causal's longest query blocks first).
  // The body also gets `it`, the key blocks this role has walked before the unit, and
  // `u`, the units: the K/V stages and the Q buffers carry on from one unit to the next.
  auto each_unit = [&](const std::function<void(i32, i32, const i32&, const i32&)>& body) {
    Var<int32_t> it = var(i32(0), "it"), u = var(i32(0), "u");
    if (t.schedule == AttentionSchedule::Grid) {
      // Causal: query blocks in reverse launch order, so that the longest (the last, which
      // read every key block before them) start first and the short ones fill the tail.
      body(s.causal ? grid_dim_x() - 1 - block_idx_x() : block_idx_x(), block_idx_y(), it, u);
      return;
    }
    const ir::TileSchedule sched = t.schedule == AttentionSchedule::Static
                                       ? static_persistent()
                                       : dynamic(8, 2, s.causal ? ir::UnitOrder::LongestRowsFirst : ir::UnitOrder::Rasterized);
    for_each_tile(sched, qblocks, bh_count, [&](i32 qb, i32 bh) {
      body(qb, bh, it, u);
      it = it + key_blocks(qb);
      u = u + 1;
    });
  };

  k.role("producer", 1, kAttentionProducerRegisters, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      each_unit([&](i32 qb, i32 bh, const i32& it, const i32& u) {
        const i32 qs = u % qstages;
        if_(u >= qstages, [&] { wait_local(q_empty[qs]); });
        arrive_expect_tx(q_full[qs], u32(uint32_t(bm * d * 2)));
        for (unsigned w = 0; w < t.consumers; ++w)
          load_tile_rows(q, qs, i32(int32_t(64 * w)), qmap, qb * ibm + int32_t(64 * w), bh, q_full[qs]);
        for_(0, key_blocks(qb), [&](i32 j) {
          const i32 n = it + j, st = n % int32_t(stages);
          if_(n >= int32_t(stages), [&] { wait_local(empty_k[st]); });
          arrive_expect_tx(full_k[st], u32(uint32_t(bn * d * 2)));
          load_tile_rows(kt, st, i32(0), kmap, j * ibn, bh, full_k[st]);
          if_(n >= int32_t(stages), [&] { wait_local(empty_v[st]); });
          arrive_expect_tx(full_v[st], u32(uint32_t(bn * d * 2)));
          load_tile_rows(v, st, i32(0), vmap, j * ibn, bh, full_v[st]);
        });
      });
    });
  });

  // A consumer's output store reads its rows of Q buffer qs; once it has (bulk_wait_read),
  // the rows go back to the producer for a later unit's Q. With one Q buffer that must
  // happen before the next unit (its Q lands there). With two, under the static walk at
  // d 128, it happens under the next unit's first MMA, off the path between units (on the
  // H100: 0.2-1.3% faster at d 128, 2-3% slower at d 64, docs/performance-log.md). The
  // dynamic walk (causal's) keeps the wait at the unit's end: not measured deferred.
  const bool deferred_release = t.q_stages > 1 && t.schedule == AttentionSchedule::Static && d >= 128;
  auto give_back_q = [&](const i32& tid, const i32& qs) {
    if_(tid == 0, [&] {
      bulk_wait_read(0);
      arrive_relaxed(q_empty[qs]);
    });
  };

  k.role("consumer", t.consumers, attention_consumer_registers(t.consumers), [&](i32 wg) {
    const i32 tid = thread_idx_x() % 128;
    // With one consumer there is no one to take turns with.
    std::optional<Turns> turn;
    if (t.consumers > 1) turn = k.turns();
    each_unit([&](i32 qb, i32 bh, const i32& it, const i32& u) {
      const i32 q0 = qb * ibm, row0 = q0 + wg * 64;  // the warpgroup's first query, within the head
      const i32 blocks = key_blocks(qb);
      const i32 qs = u % qstages;
      const TileView qrows = stage(q, qs).rows(wg * 64);
      wait_local(q_full[qs]);
      fill(acc_o, f32(0.0f));
      fill(m, f32(-INFINITY));
      fill(l, f32(0.0f));
      // Block j's mask, running max, exponentials (S becomes P, still f32) and row sums.
      auto softmax = [&](const i32& j) {
        const i32 key0 = j * ibn;
        // The mask, only in blocks that reach past seq_k or (causal) past a query's diagonal.
        boolean ragged = key0 + ibn > seq_k;
        boolean masked = s.causal ? (ragged || key0 + (ibn - 1) > row0) : ragged;
        if_(masked, [&] {
          acc_map(sc, [&](const Elem& e) {
            const i32 key = key0 + e.col;
            const boolean out = s.causal ? (key >= seq_k || key > row0 + e.row) : key >= seq_k;
            return select(out, f32(-INFINITY), e.value);
          });
        });
        copy(alpha, m);  // m before this block
        row_max(m, sc, /*combine=*/true);
        row_map(alpha, [&](const Elem& e) { return approx::exp2((e.value - e[m]) * f32(c)); });
        acc_map(sc, [&](const Elem& e) { return approx::exp2(fma(e.value, f32(c), -(e[m] * f32(c)))); });
        row_map(l, [&](const Elem& e) { return e.value * e[alpha]; });
        row_sum(l, sc, /*combine=*/true);
      };
      // Ping-pong: the warpgroups issue their MMAs in turns, so that one's softmax runs
      // while the other's MMAs keep the tensor cores busy. Turn j issues S_j = Q K_j^T and
      // O += P_{j-1} V_{j-1} (P converted at the end of turn j - 1), waits for S_j only and
      // runs its softmax while P V still runs; then O is rescaled and P_j converted.
      const i32 first = it % int32_t(stages);
      if (turn) wait_turn(*turn);
      wait_local(full_k[first]);
      mma(sc, qrows, stage(kt, first), boolean(false));
      if (turn) pass_turn(*turn);
      // With two Q buffers the previous unit's output store is waited for here, under this
      // unit's first MMA, rather than at the end of that unit.
      if (deferred_release) if_(u > 0, [&] { give_back_q(tid, (u + (qstages - 1)) % qstages); });
      mma_wait(0);
      if_(lane_id() == 0, [&] { arrive_relaxed(empty_k[first]); });
      softmax(i32(0));
      convert(p, sc);
      for_(1, blocks, [&](i32 j) {
        i32 st = (it + j) % int32_t(stages), prev = (it + j - 1) % int32_t(stages);
        if (turn) wait_turn(*turn);
        wait_local(full_k[st]);
        mma(sc, qrows, stage(kt, st), boolean(false));
        wait_local(full_v[prev]);
        mma(acc_o, registers(p), stage(v, prev), boolean(true));
        if (turn) pass_turn(*turn);
        mma_wait(1, {sc});
        // The MMAs that read a stage have completed: nothing left to order.
        if_(lane_id() == 0, [&] { arrive_relaxed(empty_k[st]); });
        softmax(j);
        mma_wait(0);
        if_(lane_id() == 0, [&] { arrive_relaxed(empty_v[prev]); });
        acc_map(acc_o, [&](const Elem& e) { return e.value * e[alpha]; });
        convert(p, sc);
      });
      const i32 last = (it + blocks - 1) % int32_t(stages);
      if (turn) wait_turn(*turn);
      wait_local(full_v[last]);
      mma(acc_o, registers(p), stage(v, last), boolean(true));
      if (turn) pass_turn(*turn);
      mma_wait(0);
      if_(lane_id() == 0, [&] { arrive_relaxed(empty_v[last]); });

      // out = O / l (bf16) and lse = (m c + log2 l) ln 2, through shared memory: O over this
      // warpgroup's rows of Q, which no MMA reads any more (mma_wait(0) above).
      row_map(alpha, [&](const Elem& e) { return approx::rcp(e[l]); });
      store_accumulator(qrows, acc_o, [&](const Elem& e) { return e.value * e[alpha]; });
      store_accumulator(stage(lse_rows, 0).rows(wg * 64), acc_o, Columns{0, kLseCols}, [&](const Elem& e) {
        return (e[m] * f32(c) + approx::log2(e[l])) * f32(0.6931471805599453f);
      });
      fence_proxy_async();
      warpgroup_sync(wg);
      // One thread stores O from this warpgroup's rows of the Q buffer and, once the store
      // has read them, gives the rows back to the producer for a later unit's Q.
      if_(tid == 0, [&] {
        // Rows past seq_q are clipped by the 3-D map within this head; a block wholly past it is skipped.
        if_(row0 < seq_q, [&] {
          store_tile_rows(q, qs, wg * 64, omap, row0, bh);
          bulk_commit();
        });
      });
      if (!deferred_release) give_back_q(tid, qs);
      if_(tid < 64 && row0 + tid < seq_q, [&] {
        Ptr<float> rows(lse_rows.ref);
        lse[cast<int64_t>(bh) * cast<int64_t>(seq_q) + cast<int64_t>(row0 + tid)] = rows[(wg * 64 + tid) * int32_t(kLseCols)];
      });
      // The next unit's epilogue rewrites lse_rows: every thread has read its rows of it.
      if (t.schedule != AttentionSchedule::Grid) warpgroup_sync(wg);
    });
    // The last unit's store has read its rows before the CTA's shared memory goes away.
    if (deferred_release) if_(tid == 0, [&] { bulk_wait_read(0); });
  });
  return k.build();
}

}  // namespace tj::samples
