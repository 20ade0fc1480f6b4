// Stream-K, SplitK's second partition (dsl/split_k.h says what it computes): the
// per-launch plan, each cluster's walk over its units, and the fix-up of the tiles
// that clusters share.
#include "dsl/cluster.h"
#include "dsl/diagnostic.h"
#include "dsl/fragment.h"
#include "dsl/split_k.h"

namespace tj::dsl {

void SplitK::declare_stream_k(const i32& tiles_m, const i32& tiles_n, const i32& kblocks, SrcLoc loc) {
  const int32_t ccx = int32_t(k_.cluster_shape().x), ccy = int32_t(k_.cluster_shape().y), ctas = ccx * ccy;
  // As expressions of the parameters and the grid first: the host sizes the workspace from them.
  const i32 workers = ctas > 1 ? num_clusters_x() : grid_dim_x();
  const i32 rows = (tiles_m + (ccy - 1)) / ccy, cols = (tiles_n + (ccx - 1)) / ccx, tiles = rows * cols;
  // The partial last wave, with the full wave before it when there is one; no stream-K
  // tile when the tiles divide into full waves. Split tail (split_stream_k_tail): the last
  // wave's tiles alone, `tail_splits` ranges each, where that makes 2 or more of at least
  // kStreamKMinShare k-blocks.
  const i32 rem = tiles % workers, waves = tiles / workers;
  const i32 hybrid_tiles = select(rem == 0, i32(0), select(waves == 0, tiles, rem + workers));
  const i32 tail_splits = workers / max(rem, i32(1));
  const std::optional<boolean> tail =
      split_tail_ ? std::optional<boolean>(rem > 0 && tail_splits >= 2 && kblocks / tail_splits >= kStreamKMinShare) : std::nullopt;
  const i32 sk_tiles = tail ? select(*tail, rem, hybrid_tiles) : hybrid_tiles;
  // Two slots per cluster, CTA and MMA warpgroup (Atomic: one per stream-K tile, CTA and
  // warpgroup, beside its counter); a counter per stream-K tile, CTA and warpgroup. A
  // launch without stream-K tiles touches neither.
  const i64 groups = i64(int64_t(mma_groups_)) * i64(int64_t(ctas)), none = i64(int64_t(0));
  const boolean used = sk_tiles > 0;
  const i64 slots = sum_ == PartialSum::Atomic ? cast<int64_t>(sk_tiles) * groups : cast<int64_t>(workers) * i64(int64_t(2)) * groups;
  k_.size_workspace(workspace_, select(used, slots * i64(int64_t(slot_elements_)), none), loc);
  k_.size_workspace(counters_, select(used, cast<int64_t>(sk_tiles) * groups, none), loc);
  // Then as locals of the role, computed once.
  const i32 v_tiles = var(sk_tiles, "sk_tiles"), iters = var(v_tiles * kblocks, "sk_iters");
  const i32 hybrid_share = max(i32(1), min(workers, iters / kStreamKMinShare));
  // emplace: each role's plan is its own (values are not reassigned across bodies).
  sk_.emplace(StreamKPlan{var(workers, "sk_workers"),
                    v_tiles,
                    iters,
                    var(tail ? select(*tail, rem * tail_splits, hybrid_share) : hybrid_share, "sk_share_workers"),
                    var(rows, "sk_rows"),
                    var(cols, "sk_cols"),
                    var(tiles, "sk_cluster_tiles"),
                    kblocks,
                    cast<int64_t>(tiles) + cast<int64_t>(workers)});
}

namespace {
// The first of the stream-K k-blocks that cluster q (of `share` clusters) runs: q * iters / share.
i32 share_begin(const i32& q, const i32& iters, const i32& share) {
  return cast<int32_t>(cast<int64_t>(q) * cast<int64_t>(iters) / cast<int64_t>(share));
}
// The cluster whose share holds stream-K k-block x: the largest q with share_begin(q) <= x.
i32 share_of(const i32& x, const i32& iters, const i32& share) {
  return cast<int32_t>((cast<int64_t>(x + 1) * cast<int64_t>(share) - i64(int64_t(1))) / cast<int64_t>(iters));
}
i32 this_worker(const KernelBuilder& k) { return k.cluster_shape().count() > 1 ? cluster_id_x() : block_idx_x(); }
}  // namespace

void SplitK::for_each_stream_k_unit(const ir::TileSchedule& schedule, const i32& tiles_m, const i32& tiles_n,
                                    const i32& kblocks, const std::function<void(i32, i32, i32, i32, i32)>& body,
                                    SrcLoc loc) const {
  (void)tiles_m, (void)tiles_n, (void)kblocks;  // declare_count's plan holds them
  if (schedule.kind != ir::ScheduleKind::StaticPersistent)
    throw UserError(ir::Loc::from(loc), "stream-K with a " + std::string(ir::schedule_name(schedule.kind)) +
                                            " schedule: stream-K fixes each cluster's share of the k-blocks before the "
                                            "launch, so no unit is left to claim at run time",
                    "give stream-K static_persistent(group); dynamic(...) takes split-K or whole tiles");
  if (!sk_) ir::internal_error("stream-K: units walked before declare_count");
  const StreamKPlan& p = *sk_;
  const int32_t ccx = int32_t(k_.cluster_shape().x), ccy = int32_t(k_.cluster_shape().y);
  const bool clustered = ccx * ccy > 1;
  const i32 w = this_worker(k_);
  const boolean shares = w < p.sk_workers;
  const i32 end = var(select(shares, share_begin(w + 1, p.sk_iters, p.sk_workers), i32(0)), "sk_end");
  Var<int32_t> it = var(select(shares, share_begin(w, p.sk_iters, p.sk_workers), i32(0)), "sk_it");
  Var<int32_t> whole = var(p.sk_tiles + w, "sk_whole");  // the next whole tile: one wave apart
  // A unit of the timeline: the cluster tile of the iteration, a share's or a whole one.
  while_units(
      it < end || whole < p.tiles, select(it < end, it / p.kblocks, whole), p.unit_bound,
      [&] {
        const i32 streamed = var(select(it < end, i32(1), i32(0)), "sk_streamed");
        const i32 ct = var(select(streamed == 1, it / p.kblocks, whole), "sk_tile");
        const i32 first = var(select(streamed == 1, it % p.kblocks, i32(0)), "sk_first");
        const i32 count = var(select(streamed == 1, min(p.kblocks - first, end - it), p.kblocks), "sk_count");
        // Grouped rasterization of cluster tile ct, as the static schedule numbers tiles.
        const int32_t group = int32_t(schedule.group);
        const i32 span = i32(group) * p.cols, first_row = (ct / span) * group;
        const i32 group_rows = min(p.rows - first_row, i32(group)), in_group = ct % span;
        const i32 tm = (first_row + in_group % group_rows) * ccy + (clustered ? cluster_ctaid_y() : i32(0));
        const i32 tn = (in_group / group_rows) * ccx + (clustered ? cluster_ctaid_x() : i32(0));
        // The unit's origin for kblock(): its last k-block (stream-K units walk K downwards).
        body(tm, tn, select(streamed == 1, ct, i32(-1)), first + count - 1, count);
        it = it + streamed * count;
        whole = whole + (i32(1) - streamed) * p.workers;
      },
      loc);
}

// The fix-up, after the main loop over a unit: sp < 0 (a whole tile), or a stream-K
// tile run whole by one cluster, goes straight to the epilogue. A tile shared by the
// clusters wf..wl: the contributors count themselves in on the tile's counter once their
// partial is stored (slot 0 of a cluster: the tile where its share begins; slot 1: where
// it ends), and the last adds the others' partials and runs the epilogue. The owner,
// wf, holds the tile's first k-blocks at the end of its share, so the others are usually
// done by then: when its leader finds all of them counted in (an acquire load of the
// counter), it adds their partials without storing its own or counting in. Otherwise,
// and always when Ordered, it is a contributor like the others (Atomic: slot = counter, one per
// stream-K tile). Ordering as in
// SplitK::finish; the counter's last value (others, or others + 1) goes back to 0.
void SplitK::finish_stream_k(const Accumulator& acc, const i32& wg, const i32& sp, const std::function<void(Columns)>& epilogue) const {
  if (!sk_) ir::internal_error("stream-K: finish before declare_count");
  if (uint64_t(acc.m) * acc.n != slot_elements_)
    ir::internal_error("stream-K: accumulator '" + acc.name + "' is not the workspace slot's size");
  const StreamKPlan& p = *sk_;
  const int32_t ctas = int32_t(k_.cluster_shape().count()), groups = int32_t(mma_groups_);
  const i32 rank = ctas > 1 ? cluster_ctarank() : i32(0);
  Var<bool> last = var(boolean(true), "sk_last");
  if_(sp >= 0, [&] {
    const i32 x0 = sp * p.kblocks;  // the tile's first k-block in the stream-K sequence
    const i32 wf = var(share_of(x0, p.sk_iters, p.sk_workers), "sk_first_share");
    const i32 wl = var(share_of(x0 + p.kblocks - 1, p.sk_iters, p.sk_workers), "sk_last_share");
    if_(wf != wl, [&] {
      const i32 counter = (sp * ctas + rank) * groups + wg, me = this_worker(k_);
      auto slot = [&](const i32& q) {
        if (sum_ == PartialSum::Atomic) return counter;
        const i32 which = select(share_begin(q, p.sk_iters, p.sk_workers) >= x0, i32(0), i32(1));
        return ((q * 2 + which) * ctas + rank) * groups + wg;
      };
      if (sum_ == PartialSum::Ordered) {
        fix_up(acc, wg, counter, wf, wl + 1, wl - wf, me, slot, last);
        return;
      }
      // The owner looks once: the others' pieces open their shares, long done by the end of its own.
      finish_owned(acc, wg, counter, wf, wl + 1, wf, me, 0, slot, last);
    });
  });
  if_(last, [&] { epilogue(Columns{0, acc.n}); });
}

}  // namespace tj::dsl
