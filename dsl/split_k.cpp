#include "dsl/split_k.h"

#include "dsl/clock.h"
#include "dsl/cluster.h"
#include "dsl/fragment.h"

namespace tj::dsl {

namespace {
// Nanoseconds between the owner's looks at its tile's counter (SplitK::owner_poll).
constexpr uint64_t kOwnerPollPauseNs = 256;
}  // namespace

SplitK::SplitK(KernelBuilder& k, unsigned requested, unsigned max_splits, unsigned mma_groups, uint64_t slot_elements,
               KPartition partition, PartialSum sum, uint64_t owner_wait_ns, unsigned share_quantum)
    : k_(k), requested_(requested), max_splits_(max_splits), mma_groups_(mma_groups), slot_elements_(slot_elements),
      partition_(partition), sum_(sum), owner_wait_ns_(owner_wait_ns), share_quantum_(share_quantum),
      workspace_(k.workspace<float>("workspace", sum == PartialSum::Atomic)), counters_(k.workspace<uint32_t>("counters", true)) {
  if (sum == PartialSum::Atomic && partition == KPartition::Cluster)
    ir::internal_error("split-K in the cluster: its partials meet in shared memory, not by atomic adds in a workspace");
}

void SplitK::declare_shared(unsigned acc_cols) {
  if (partition_ == KPartition::Cluster) {
    const unsigned splits = k_.cluster_shape().z;
    if (splits < 2) ir::internal_error("split-K in the cluster: a cluster of " + k_.cluster_shape().str() + ", no planes along z");
    if (acc_cols == 0) ir::internal_error("split-K in the cluster: declare_shared without the accumulator's width");
    acc_cols_ = acc_cols;
    xbuf_ = k_.dynamic_shared<float>("split_xchg", uint64_t(mma_groups_) * (splits - 1) * (slot_elements_ / splits));
    xfull_ = k_.mbarriers("split_full", mma_groups_, 1);
    // free[w]: what this CTA's warpgroup w sent has been read. By columns every other plane
    // reads a share (S - 1 arrivals). By rows only the K = S / groups planes that own
    // warpgroup w's rows read, each after reading: K arrivals where this plane does not
    // own them (free), K - 1 where it does (free_own). A plane that reads nothing never
    // arrives, so no arrival runs a phase ahead of the wait it answers.
    if (share_plan(acc_cols, splits, 0).by_rows) {
      const unsigned owners = splits / mma_groups_;
      xfree_ = k_.mbarriers("split_free", mma_groups_, owners);
      if (owners > 1) xfree_own_ = k_.mbarriers("split_free_own", mma_groups_, owners - 1);
    } else {
      xfree_ = k_.mbarriers("split_free", mma_groups_, splits - 1);
    }
    return;
  }
  if (active()) old_ = k_.shared<uint32_t>("split_old", mma_groups_);
}

void SplitK::declare_count(const i32& tiles_m, const i32& tiles_n, const i32& kblocks, SrcLoc loc) {
  if (partition_ == KPartition::StreamK) {
    declare_stream_k(tiles_m, tiles_n, kblocks, loc);
    return;
  }
  if (partition_ == KPartition::Cluster) {
    const i32 splits = i32(int32_t(k_.cluster_shape().z));
    // emplace: each role declares its own (values are not reassigned across bodies).
    count_.emplace(splits), count_expr_.emplace(splits), kblocks_.emplace(kblocks);
    sent_.reset();  // each role declares its own
    sent_.emplace(var(i32(0), "cluster_sent"));
    return;
  }
  if (requested_ == 1) return;
  const int32_t ccx = int32_t(k_.cluster_shape().x), ccy = int32_t(k_.cluster_shape().y);
  auto automatic = [&] {
    const i32 cluster_tiles = ((tiles_m + (ccy - 1)) / ccy) * ((tiles_n + (ccx - 1)) / ccx);
    const i32 launched = ccx * ccy > 1 ? num_clusters_x() : grid_dim_x();
    return max(i32(1), min(min(kblocks / 4, i32(int32_t(max_splits_))), launched / cluster_tiles));
  };
  const i32 splits = requested_ == 0 ? automatic() : min(i32(int32_t(requested_)), kblocks);
  count_.emplace(var(splits, "splits"));
  // The walk gets the expression, not the role's local: its unit count (a timeline's
  // bound) is then readable in every role and by the host.
  count_expr_.emplace(splits);
  // Tiles are numbered over the grid padded to whole clusters (finish()); per tile, S
  // slots (Atomic: one) and one counter for each MMA warpgroup. A launch whose S is 1
  // touches neither.
  const i64 tiles = cast<int64_t>((tiles_m + (ccy - 1)) / ccy * ccy) * cast<int64_t>((tiles_n + (ccx - 1)) / ccx * ccx);
  const i64 groups = i64(int64_t(mma_groups_)), none = i64(int64_t(0));
  const boolean split = splits > 1;
  const i64 slots = sum_ == PartialSum::Atomic ? tiles * groups : tiles * cast<int64_t>(splits) * groups;
  k_.size_workspace(workspace_, select(split, slots * i64(int64_t(slot_elements_)), none), loc);
  k_.size_workspace(counters_, select(split, tiles * groups, none), loc);
}

const i32& SplitK::count() const {
  if (!count_) ir::internal_error("split-K: the split count is read before declare_count");
  return *count_;
}

void SplitK::for_each_unit(const ir::TileSchedule& schedule, const i32& tiles_m, const i32& tiles_n, const i32& kblocks,
                           const std::function<void(i32, i32, i32, i32, i32)>& body, SrcLoc loc) const {
  if (partition_ == KPartition::StreamK) {
    for_each_stream_k_unit(schedule, tiles_m, tiles_n, kblocks, body, loc);
    return;
  }
  if (partition_ == KPartition::Cluster) {
    if (!count_) ir::internal_error("split-K in the cluster: the walk is built before declare_count");
    for_each_tile_split_in_cluster(
        schedule, tiles_m, tiles_n,
        [&](i32 tm, i32 tn, i32 sp) {
          const i32 first = sp * kblocks / count();
          body(tm, tn, sp, first, (sp + 1) * kblocks / count() - first);
        },
        loc);
    return;
  }
  if (requested_ == 1) {
    for_each_tile(schedule, tiles_m, tiles_n, [&](i32 tm, i32 tn) { body(tm, tn, i32(0), i32(0), kblocks); }, loc);
    return;
  }
  if (!count_expr_) ir::internal_error("split-K: the walk is built before declare_count");
  for_each_tile(
      schedule, tiles_m, tiles_n, *count_expr_,
      [&](i32 tm, i32 tn, i32 sp) {
        const i32 first = sp * kblocks / count();
        body(tm, tn, sp, first, (sp + 1) * kblocks / count() - first);
      },
      loc);
}

i32 SplitK::kblock(const i32& origin, const i32& j) const {
  if (partition_ == KPartition::StreamK) return origin - j;
  return active() ? origin + j : j;
}

// Memory ordering (PTX memory consistency model):
//  1. every thread: st.global of its partial (weak stores);
//  2. warpgroup_sync (bar.sync): when it completes, the participating threads' prior
//     memory accesses are performed relative to each other; in the model it orders them
//     before the leader's next operations (base causality at CTA scope);
//  3. the leader: atom.acq_rel.gpu.global.add.u32 on the tile's counter. Its release
//     half is cumulative: everything ordered before it (the whole warpgroup's partial,
//     through step 2) is visible at gpu scope to any thread whose acquire reads this
//     value or a later one in the counter's RMW chain (atomics to one location form a
//     release sequence);
//  4. the leader that reads S - 1 is the last: its acquire half synchronizes with the
//     S - 1 earlier releases, so their partials are visible to it; it then writes the
//     value to shared memory and step 5's bar.sync carries that ordering to the rest of
//     its warpgroup;
//  5. warpgroup_sync, then every thread ld.global's the others' partials.
// The counter goes back to 0 (a plain store by the last arriver: no other unit of this
// launch touches it again; the next launch is ordered after this one).
// Atomic: step 1 is each thread's red.relaxed.gpu adds into the tile's one slot (morally
// strong, ordered before the leader's release by step 2 as the stores are); the last
// arriver's loads of the slot then see every contributor's adds, and its stores of 0
// are ordered before the next launch's adds by the launch boundary.
void SplitK::finish(const Accumulator& acc, const i32& wg, const i32& tm, const i32& tn, const i32& sp, const i32& tiles_n,
                    const std::function<void(Columns)>& epilogue) const {
  if (partition_ == KPartition::StreamK) {
    finish_stream_k(acc, wg, sp, epilogue);
    return;
  }
  if (partition_ == KPartition::Cluster) {
    finish_in_cluster(acc, wg, sp, epilogue);
    return;
  }
  if (requested_ == 1) {
    epilogue(Columns{0, acc.n});
    return;
  }
  if (uint64_t(acc.m) * acc.n != slot_elements_)
    ir::internal_error("split-K: accumulator '" + acc.name + "' is not the workspace slot's size");
  const int32_t cx_all = int32_t(k_.cluster_shape().x), groups = int32_t(mma_groups_);
  // Tiles are numbered over the grid padded to whole clusters (the schedule hands out
  // whole cluster tiles, ragged ones included); a tile's S slots are adjacent.
  const i32 tile = tm * ((tiles_n + (cx_all - 1)) / cx_all * cx_all) + tn;
  const i32 counter = tile * groups + wg;
  auto slot = [&](const i32& split) { return sum_ == PartialSum::Atomic ? counter : (tile * count() + split) * groups + wg; };
  Var<bool> last = var(boolean(true), "last");
  if_(count() > 1, [&] {
    if (sum_ == PartialSum::Ordered) fix_up(acc, wg, counter, i32(0), count(), count() - 1, sp, slot, last);
    else finish_owned(acc, wg, counter, i32(0), count(), i32(0), sp, owner_wait_ns_, slot, last);
  });
  if_(last, [&] { epilogue(Columns{0, acc.n}); });
}

// The splits of a tile are the cluster's planes along z: the CTA at (x, y, z) holds split
// z of the tile at (x, y) of the cluster's block, and its peers are (x, y, z') for the
// other planes z'. Memory ordering: st.async's writes complete on the receiver's barrier,
// whose phase its threads wait for at cluster scope (wait: mbarrier try_wait
// acquire.cluster), so the partials are visible to the loads after it. The receiver's
// warpgroup reads them, meets (warpgroup_sync: those loads are performed before the
// leader's next operations), then its leader arrives on each sender's `free` barrier
// (release, cluster scope); a sender waits for that phase (acquire) before its next
// st.async into the same slots.
SplitK::Share SplitK::share_plan(unsigned acc_n, unsigned splits, unsigned r) const {
  const unsigned q = share_quantum_;
  if (q == 0 || q % 8 != 0 || acc_n % q != 0)
    ir::internal_error("split-K in the cluster: share quantum " + std::to_string(q) + " for " + std::to_string(acc_n) + " columns");
  if (acc_n % splits == 0 && acc_n / splits % q == 0) return {false, 0, Columns{r * (acc_n / splits), acc_n / splits}};
  const unsigned chunks = acc_n / q, pieces = mma_groups_ * chunks;
  if (pieces % splits != 0 || chunks % (pieces / splits) != 0)
    ir::internal_error("split-K in the cluster: " + std::to_string(mma_groups_) + " warpgroups x " + std::to_string(chunks) +
                       " column pieces of " + std::to_string(q) + " do not deal out to " + std::to_string(splits) +
                       " planes within one warpgroup each");
  const unsigned per = pieces / splits, first = r * per;
  return {true, first / chunks, Columns{first % chunks * q, per * q}};
}

// The splits of a tile are the cluster's planes along z: the CTA at (x, y, z) holds split
// z of the tile at (x, y) of the cluster's block, and its peers are (x, y, z') for the
// other planes z'. Memory ordering: st.async's writes complete on the receiver's barrier,
// whose phase its threads wait for at cluster scope (wait: mbarrier try_wait
// acquire.cluster), so the partials are visible to the loads after it. The receiver's
// warpgroup reads them, meets (warpgroup_sync: those loads are performed before the
// leader's next operations), then its leader arrives on each sender's `free` barrier
// (release, cluster scope); a sender waits for that phase (acquire) before its next
// st.async into the same slots. With shares by rows only the owners of a share's rows
// receive, read and arrive (declare_shared), and only they wait on `full`.
void SplitK::finish_in_cluster(const Accumulator& acc, const i32& wg, const i32& sp,
                               const std::function<void(Columns)>& epilogue) const {
  const ir::Dim3 cluster = k_.cluster_shape();
  const unsigned splits = cluster.z;
  if (uint64_t(acc.m) * acc.n != slot_elements_ || acc.n != acc_cols_)
    ir::internal_error("split-K: accumulator '" + acc.name + "' is not the size declare_shared was given");
  std::vector<Share> plan;
  for (unsigned r = 0; r < splits; ++r) plan.push_back(share_plan(acc.n, splits, r));
  const bool by_rows = plan.front().by_rows;
  const boolean leader = thread_idx_x() % 128 == 0;
  const int32_t others = int32_t(splits) - 1, plane = int32_t(cluster.x * cluster.y);
  // The rank of this CTA's peer in plane q.
  auto peer = [&](unsigned q) { return cluster_ctarank() % plane + int32_t(q) * plane; };
  // Whether this warpgroup takes part in plane q's share (by rows: only its owner's rows).
  auto in_share = [&](unsigned q, const std::function<void()>& body) {
    if (by_rows) {
      if_(wg == int32_t(plan[q].group), body);
    } else {
      body();
    }
  };
  // Slot of sender place s in a receiver: per warpgroup by columns; by rows the plane's
  // one receiving warpgroup has them all.
  auto slot = [&](int32_t s) { return by_rows ? i32(s) : wg * others + s; };
  // A split without k-blocks (K shorter than the splits) ran no MMA to clear acc.
  if_((sp + 1) * *kblocks_ / count() == sp * *kblocks_ / count(), [&] { fill(acc, f32(0.0f)); });
  // By rows: the warpgroup whose rows this plane's share is in (plan[sp].group in closed
  // form, so that the checks can evaluate it), and whether this one is it.
  const unsigned per = plan[0].cols.count / share_quantum_;  // by rows: chunks per plane
  const unsigned chunks = acc.n / share_quantum_;
  const i32 own_group = by_rows ? sp * int32_t(per) / int32_t(chunks) : i32(0);
  const boolean owner = by_rows ? wg == own_group : boolean(true);
  // The peers have read what this warpgroup sent them for its previous tile.
  if_(*sent_ > 0, [&] {
    if (!by_rows) {
      wait((*xfree_)[wg]);
      return;
    }
    if_(!owner, [&] { wait((*xfree_)[wg]); });
    if (xfree_own_) if_(owner, [&] { wait((*xfree_own_)[wg]); });
  });
  // Split r's share goes to split r: each split sends the others their share, into slot
  // (its place among the senders) of their buffer.
  for (unsigned r = 0; r < splits; ++r)
    if_(sp == int32_t(r), [&] {
      for (unsigned q = 0; q < splits; ++q) {
        if (q == r) continue;
        in_share(q, [&] {
          send_accumulator_partial(map_shared_rank(*xbuf_, peer(q)), acc, plan[q].cols, slot(int32_t(r > q ? r - 1 : r)),
                                   map_shared_rank(*xfull_, peer(q))[wg]);
        });
      }
    });
  *sent_ = *sent_ + 1;
  // This warpgroup's S - 1 partials of plane r's share landed.
  auto received = [&](unsigned r) {
    if_(leader, [&] { arrive_expect_tx((*xfull_)[wg], u32(uint32_t(others) * acc.m * plan[r].cols.count * 4)); });
    wait((*xfull_)[wg]);
  };
  if (!by_rows) received(0);  // every share the same width
  // Added in split order (slot order), whatever order they landed in.
  for (unsigned r = 0; r < splits; ++r)
    if_(sp == int32_t(r), [&] {
      in_share(r, [&] {
        if (by_rows) received(r);
        for (int32_t s = 0; s < others; ++s) add_accumulator_partial(*xbuf_, acc, plan[r].cols, slot(s));
      });
    });
  warpgroup_sync(wg);
  // What the peers sent is read: their free barriers. By rows only an owner read: it
  // arrives on each other plane's barrier for these rows (free_own where that plane owns
  // them too).
  if (by_rows) {
    for (unsigned q = 0; q < splits; ++q) {
      const int32_t gq = int32_t(plan[q].group);
      if (xfree_own_)
        if_(leader && owner && sp != int32_t(q) && own_group == gq, [&] { arrive(map_shared_rank(*xfree_own_, peer(q))[wg]); });
      if_(leader && owner && own_group != gq, [&] { arrive(map_shared_rank(*xfree_, peer(q))[wg]); });
    }
  } else {
    if_(leader, [&] {
      for (unsigned q = 0; q < splits; ++q) if_(sp != int32_t(q), [&] { arrive(map_shared_rank(*xfree_, peer(q))[wg]); });
    });
  }
  for (unsigned r = 0; r < splits; ++r) if_(sp == int32_t(r), [&] { in_share(r, [&] { epilogue(plan[r].cols); }); });
}

void SplitK::owner_poll(const i32& wg, const i32& counter, const i32& others, uint64_t wait_ns, Var<bool>& early) const {
  if_(thread_idx_x() % 128 == 0, [&] {
    Var<uint32_t> seen = var(atomic_fetch_add(counters_[counter], u32(0u), ir::MemoryOrder::Acquire, ir::MemoryScope::Gpu),
                             "owner_seen");
    if (wait_ns > 0) {
      const u64 start = var(global_timer(), "owner_poll_start");
      while_(seen != cast<uint32_t>(others) && global_timer() - start < u64(wait_ns), [&] {
        // A pause on the timer between looks: the counters of neighbouring tiles share
        // cache lines, and a look is an atomic at L2 that the others' count-ins queue behind.
        const u64 pause = var(global_timer(), "owner_pause");
        while_(global_timer() - pause < u64(kOwnerPollPauseNs), [] {});
        seen = atomic_fetch_add(counters_[counter], u32(0u), ir::MemoryOrder::Acquire, ir::MemoryScope::Gpu);
      });
    }
    (*old_)[wg] = seen;
  });
  warpgroup_sync(wg);
  early = (*old_)[wg] == cast<uint32_t>(others);
}

void SplitK::finish_owned(const Accumulator& acc, const i32& wg, const i32& counter, const i32& first, const i32& end,
                          const i32& owner, const i32& me, uint64_t wait_ns, const std::function<i32(const i32&)>& slot,
                          Var<bool>& last) const {
  const i32 others = end - first - 1;
  Var<bool> early = var(boolean(false), "owner_early");
  if_(me == owner, [&] { owner_poll(wg, counter, others, wait_ns, early); });
  if_(early, [&] {
    if_(thread_idx_x() % 128 == 0, [&] { counters_[counter] = u32(0u); });
    add_partials(acc, first, end, me, slot, false);
  }).else_([&] {
    // The others count up to `others` without the owner, to others + 1 with it: only an
    // arrival that finds `others` before it is the last.
    fix_up(acc, wg, counter, first, end, others, me, slot, last);
  });
}

void SplitK::fix_up(const Accumulator& acc, const i32& wg, const i32& counter, const i32& first, const i32& end, const i32& others,
                    const i32& own,
                    const std::function<i32(const i32&)>& slot, Var<bool>& last) const {
  boolean leader = thread_idx_x() % 128 == 0;
  if (sum_ == PartialSum::Atomic) reduce_accumulator_partial(workspace_, acc, slot(own));
  else store_accumulator_partial(workspace_, acc, slot(own));
  warpgroup_sync(wg);
  if_(leader, [&] {
    (*old_)[wg] = atomic_fetch_add(counters_[counter], u32(1u), ir::MemoryOrder::AcqRel, ir::MemoryScope::Gpu);
  });
  warpgroup_sync(wg);
  last = (*old_)[wg] == cast<uint32_t>(others);
  if_(last, [&] {
    if_(leader, [&] { counters_[counter] = u32(0u); });
    add_partials(acc, first, end, own, slot, true);
  });
}

void SplitK::add_partials(const Accumulator& acc, const i32& first, const i32& end, const i32& own,
                          const std::function<i32(const i32&)>& slot, bool own_published) const {
  if (sum_ == PartialSum::Atomic) {
    if (own_published) fill(acc, f32(0.0f));
    take_accumulator_partial(workspace_, acc, slot(first));
    return;
  }
  if (sum_ == PartialSum::Ordered) {
    fill(acc, f32(0.0f));
    for_(first, end, [&](i32 q) { add_accumulator_partial(workspace_, acc, slot(q)); });
    return;
  }
  for_(first, end, [&](i32 q) { if_(q != own, [&] { add_accumulator_partial(workspace_, acc, slot(q)); }); });
}

}  // namespace tj::dsl
