// Split-K, the DSL half of a schedule whose units cover part of K: each output tile's K
// is cut into S ranges run as separate work units (the schedule walks (tile, split)
// units; codegen/schedules lowers the walk); after its main loop, each MMA warpgroup of
// a unit writes its partial accumulator to a workspace slot and counts itself in on the
// tile's counter, and the one that arrives last adds the other partials and runs the
// epilogue. No unit waits on another without a time bound (the owner's optional wait, below): no
// deadlock whatever order the units run in.
//
// The workspace belongs to the schedule and the runtime allocates it: "workspace" (f32
// partials) and "counters" (u32, zeroed when allocated; the kernel leaves them at 0) are
// workspace parameters (KernelBuilder::workspace), declared by the constructor in that
// order and sized by declare_count from the split count the kernel computes, so that a
// launch's buffers hold exactly what its units touch. With S = 1 they hold nothing.
//
//   SplitK sk(k, splits, 32, mma_groups, acc_m * acc_n);
//   sk.declare_shared();                       // after the kernel's other shared buffers
//   k.role("consumer", 2, 232, [&](i32 wg) {
//     sk.declare_count(tiles_m, tiles_n, kblocks);
//     sk.for_each_unit(schedule, tiles_m, tiles_n, kblocks, [&](i32 tm, i32 tn, i32 sp, i32 origin, i32 count) {
//       ...main loop over k-blocks sk.kblock(origin, j), j < count...
//       sk.finish(acc, wg, tm, tn, sp, tiles_n, [&] { epilogue(); });
//     });
//   });
#pragma once

#include <functional>
#include <optional>

#include "dsl/tile.h"

namespace tj::dsl {

// How a tile's K is partitioned into units.
//  - Splits: S equal ranges per tile (S = `requested`, see declare_count).
//  - StreamK: the Stream-K hybrid. With T cluster tiles over W clusters, the last
//    T % W tiles and, when there is one, the full wave before them (or all T when
//    T < W) are "stream-K tiles": their k-blocks, one sequence in tile order, are cut
//    into W equal ranges, one per cluster (fewer when each would get under 4
//    k-blocks); the other tiles run whole, a full wave each. A cluster runs its range
//    first (a tile each time the range crosses one), then its whole tiles. A tile split
//    between clusters is finished by its owner, the cluster with its first k-blocks
//    (the end of that cluster's range), without storing its own partial when it finds
//    the others counted in; else by its last contributor, as with split-K. Each
//    cluster holds at most two partial tiles (its range's first and last), so the
//    workspace has two slots per cluster.
//  - Cluster: S = the cluster's size along z, and the S splits of a tile run on the CTAs
//    of one cluster at once, one plane each (for_each_tile_split_in_cluster; each plane
//    walks the same cluster tiles, sharing operands by multicast within the plane as
//    usual). Each CTA finishes 1/S of the tile's columns: it sends the other columns of its partial to the CTAs that finish
//    them, straight from registers into their shared memory (st.async on their barrier),
//    adds the S - 1 partials it receives and runs the epilogue on its columns. Nothing
//    goes through global memory, and no unit waits on a counter; a CTA sends a tile's
//    partials only after its peers have read the previous tile's (a barrier of its own
//    that they arrive on).
// How a tile's partials (Splits, StreamK) meet in the workspace:
//  - LastAdds: each contributor stores its partial in a slot of its own; the last to
//    count in adds the others' to its own.
//  - Ordered: as LastAdds, but the last adds every partial (its own included) in a fixed
//    order, so the result does not depend on which contributor finishes last (Cluster:
//    the partials are added in rank order whatever the timing, so it always is).
//  - Atomic (not Cluster): one slot per shared tile (and MMA warpgroup and CTA), zeroed when allocated;
//    each contributor adds its partial into it with atomic adds at L2
//    (reduce_accumulator_partial), and the last to count in takes the sum and leaves the
//    slot at 0 (take_accumulator_partial). The last then reads one partial instead of
//    S - 1, and the slots take 1/S of the memory; the order of the additions is the
//    order in which the adds reach L2.
enum class PartialSum : uint8_t { LastAdds, Ordered, Atomic };
// Split-K's owner (split 0) waits up to `owner_wait_ns` (%globaltimer) for the other
// splits to count in, then adds their partials without storing its own; past that it
// stores and counts in like them. The wait is bounded, so no unit ever depends on one
// that may not be running: any order of units still finishes. 0: one look, no wait.
enum class KPartition : uint8_t { Splits, StreamK, Cluster };
// Fewest k-blocks a cluster's share of the stream-K tiles is cut to: below that the
// partial's store and add cost more than the k-blocks they spread. (Hosts that size a
// stream-K launch's workspace mirror the plan with it.)
inline constexpr int32_t kStreamKMinShare = 4;

class SplitK {
 public:
  // requested: S (1: no split; > 1: min(S, k-blocks); 0: chosen per launch, see
  // declare_count), at most max_splits (Cluster: the cluster's size along z, whatever is asked); mma_groups: the warpgroups of a CTA that each
  // own an accumulator (one workspace slot and counter each per tile); slot_elements:
  // the elements of one such accumulator (m x n), one workspace slot.
  // Cluster: share_quantum is the narrowest column range the epilogue writes (a multiple
  // of 8). Where acc.n / S is a multiple of it, every warpgroup of plane r writes columns
  // [r * acc.n / S, ...); else the tile's (warpgroup, quantum) pieces are dealt out to
  // the planes in warpgroup-major order, mma_groups * acc.n / quantum / S each, and a
  // plane's pieces must lie in one warpgroup's rows: that warpgroup alone adds and writes
  // them (see share_plan).
  SplitK(KernelBuilder& k, unsigned requested, unsigned max_splits, unsigned mma_groups, uint64_t slot_elements,
         KPartition partition = KPartition::Splits, PartialSum sum = PartialSum::LastAdds, uint64_t owner_wait_ns = 0,
         unsigned share_quantum = 8);

  // Stream-K only, before declare_count: the stream-K tiles are the last, partial wave's alone
  // (all tiles when they do not fill one), each cut into S = clusters / those tiles equal
  // ranges, one per cluster; the ranges of one index start and end together, walking the same
  // k-blocks of their tiles at the same time (the hybrid's shares of 1-2 tiles do so only in
  // their first and last tiles). Where S would be under 2, or a range under kStreamKMinShare k-blocks,
  // the launch runs the hybrid. Each cluster then holds at most one partial tile.
  void split_stream_k_tail(bool on) { split_tail_ = on; }

  // The shared buffer through which a warpgroup's leader broadcasts its counter value
  // (only with S != 1). Declared separately so that the kernel places it after its own
  // shared buffers. Cluster: acc_cols is the accumulator's width (acc.n), which decides
  // between shares by columns and by rows (share_plan) and so the barriers' counts.
  void declare_shared(unsigned acc_cols = 0);

  // S for this launch, as a local of the role that calls it (each role computes the
  // same value): at most one split per k-block (a split with no k-block would have no
  // MMA to clear its accumulator), at least 1. requested 0: the splits that fill the
  // launched grid, min(kblocks / 4, max_splits, clusters / cluster tiles). tiles_m,
  // tiles_n and kblocks are expressions of the kernel's parameters: the workspace's
  // size is the same expression, evaluated by the host before each launch.
  void declare_count(const i32& tiles_m, const i32& tiles_n, const i32& kblocks, SrcLoc loc = SrcLoc::current());
  const i32& count() const;

  // body(tm, tn, split, origin, k-block count) for each unit this CTA gets; k-block j of
  // the unit (j in [0, count)) is kblock(origin, j). Split s of S owns k-blocks
  // [s * kblocks / S, (s + 1) * kblocks / S), walked upwards from the first. Without a
  // split the unit is the tile, all of K. Stream-K: `split` is the stream-K tile's index,
  // or -1 for a whole tile, and every unit walks its k-blocks downwards from its last.
  // The shares' first units all start with the launch and their last ones end together
  // (the shares are equal), so walked downwards the concurrent units of each group read
  // the same k-block of K at the same time, and the tiles that share an A row panel or a
  // B column panel find it in L2 (walked upwards, the first units would start at k-blocks
  // as different as their shares' starts: on the H200, 8576 x 512 x 8192 read its A twice
  // from DRAM). The loops carry the caller's line.
  void for_each_unit(const ir::TileSchedule& schedule, const i32& tiles_m, const i32& tiles_n, const i32& kblocks,
                     const std::function<void(i32, i32, i32, i32, i32)>& body, SrcLoc loc = SrcLoc::current()) const;
  // K-block j of the unit whose origin for_each_unit gave.
  i32 kblock(const i32& origin, const i32& j) const;

  // Warpgroup wg (of the role) after its main loop over unit (tm, tn, sp): without a
  // split, the epilogue; with one, the fix-up, running `epilogue` in the warpgroup that
  // finishes the tile last after adding the other splits' partials into `acc`. The
  // epilogue gets the columns of acc it writes: all of them, or with Cluster this CTA's
  // share (see share_plan; with pieces by rows, only the warpgroup that owns them runs it).
  void finish(const Accumulator& acc, const i32& wg, const i32& tm, const i32& tn, const i32& sp, const i32& tiles_n,
              const std::function<void(Columns)>& epilogue) const;

 private:
  bool active() const { return requested_ != 1 || partition_ == KPartition::StreamK; }
  void declare_stream_k(const i32& tiles_m, const i32& tiles_n, const i32& kblocks, SrcLoc loc);
  void for_each_stream_k_unit(const ir::TileSchedule& schedule, const i32& tiles_m, const i32& tiles_n, const i32& kblocks,
                              const std::function<void(i32, i32, i32, i32, i32)>& body, SrcLoc loc) const;
  void finish_stream_k(const Accumulator& acc, const i32& wg, const i32& sp, const std::function<void(Columns)>& epilogue) const;
  void finish_in_cluster(const Accumulator& acc, const i32& wg, const i32& sp, const std::function<void(Columns)>& epilogue) const;
  // Cluster: what plane r of S finishes. by_rows false: the columns `cols` in every
  // warpgroup; true: the columns `cols` of warpgroup `group` only.
  struct Share {
    bool by_rows;
    unsigned group;
    Columns cols;
  };
  Share share_plan(unsigned acc_n, unsigned splits, unsigned r) const;
  // The fix-up of a tile shared by contributors [first, end), this one `own`: its partial
  // into slot(own), counted in on `counter`; `last` says whether it came last (after the
  // `others`, end - first - 1, written as the kernel computes it), and then
  // the counter is reset and the others' partials are added (add_partials).
  void fix_up(const Accumulator& acc, const i32& wg, const i32& counter, const i32& first, const i32& end, const i32& others,
              const i32& own, const std::function<i32(const i32&)>& slot, Var<bool>& last) const;
  // Adds the partials of contributors [first, end) into acc: the others' (skipping `own`),
  // or, Ordered, every one of them in order after clearing acc; Atomic: takes the tile's
  // one slot (slot(first)), after clearing acc where `own_published` (its own partial is
  // in the slot too).
  void add_partials(const Accumulator& acc, const i32& first, const i32& end, const i32& own,
                    const std::function<i32(const i32&)>& slot, bool own_published) const;
  // The owner's look at `counter` (its warpgroup's leader, acquire): whether `others`
  // have counted in, polling for up to wait_ns; the whole warpgroup gets the answer.
  void owner_poll(const i32& wg, const i32& counter, const i32& others, uint64_t wait_ns, Var<bool>& early) const;
  // The fix-up of a tile shared by contributors [first, end) with an owner, `owner`: the
  // owner adds the others' partials when owner_poll finds them in, else every
  // contributor goes through fix_up.
  void finish_owned(const Accumulator& acc, const i32& wg, const i32& counter, const i32& first, const i32& end,
                    const i32& owner, const i32& me, uint64_t wait_ns, const std::function<i32(const i32&)>& slot,
                    Var<bool>& last) const;

  KernelBuilder& k_;
  unsigned requested_, max_splits_, mma_groups_;
  uint64_t slot_elements_;
  KPartition partition_;
  PartialSum sum_;
  uint64_t owner_wait_ns_;
  unsigned share_quantum_;
  unsigned acc_cols_ = 0;  // Cluster: acc.n (declare_shared)
  bool split_tail_ = false;  // StreamK: split_stream_k_tail
  // Stream-K, per launch (locals of the role, declare_count): clusters, stream-K tiles,
  // their k-blocks, the clusters that share them, cluster tiles and k-blocks per tile;
  // and, from the parameters and the grid, a bound on the walk's iterations over every
  // cluster (its tiles plus a share boundary per cluster), for the timeline.
  struct StreamKPlan {
    i32 workers, sk_tiles, sk_iters, sk_workers, rows, cols, tiles, kblocks;
    i64 unit_bound;
  };
  std::optional<StreamKPlan> sk_;
  Ptr<float> workspace_;
  Ptr<uint32_t> counters_;
  std::optional<Ptr<uint32_t>> old_;  // each warpgroup's counter value, broadcast
  std::optional<i32> count_;          // S, a local of the role (declare_count)
  std::optional<i32> count_expr_;     // S as an expression of the parameters and the grid
  // Cluster: the exchange buffer ([warpgroup][S - 1 slots] of acc.m x acc.n / S f32), its
  // barriers (full: a warpgroup's S - 1 partials landed; free: the peers have read what
  // this warpgroup sent them), k-blocks per tile, and the role's count of sent units.
  std::optional<Ptr<float>> xbuf_;
  std::optional<Ptr<mbarrier_t>> xfull_, xfree_;
  // By rows: a warpgroup that owns its plane's share waits on free_own (the other owners
  // of its rows read what it sent), one that does not on free (all owners of its rows);
  // free_own is absent where a share's rows have one owner (it sends nothing).
  std::optional<Ptr<mbarrier_t>> xfree_own_;
  std::optional<i32> kblocks_;
  std::optional<Var<int32_t>> sent_;
};

}  // namespace tj::dsl
