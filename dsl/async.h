// Asynchronous copies and mbarriers: TMA loads and stores (with multicast),
// DSMEM bulk copies and st.async, and the barriers they complete on.
//
// Barriers are declared with KernelBuilder::mbarriers and initialized for you
// at kernel start. wait() tracks each barrier's phase per thread: a thread
// that waits must wait on every phase of that barrier, in order.
#pragma once

#include <vector>

#include "dsl/builder.h"

namespace tj::dsl {

using BarrierRef = Ref<mbarrier_t>;

// A buffer element of any type, as the start of the bytes a copy reads or writes.
struct Slot {
  ir::Expr ptr, index;
  template <DslScalar T>
  Slot(const Ref<T>& r) : ptr(r.ptr()), index(r.index()) {}
  Slot(ir::Expr p, ir::Expr i) : ptr(std::move(p)), index(std::move(i)) {}
};

// Arrive on a barrier: this CTA's (bar[i]) or a peer's (map_shared_rank(bar, r)[i]).
void arrive(const BarrierRef& bar, SrcLoc loc = SrcLoc::current());
// Arrive without ordering this thread's earlier memory accesses: for giving a
// slot back once its reads have completed (after mma_wait, say). Cheaper than
// arrive() on a peer's barrier, whose release covers the whole cluster.
void arrive_relaxed(const BarrierRef& bar, SrcLoc loc = SrcLoc::current());
// Announce `bytes` more transaction bytes for the current phase, then arrive.
void arrive_expect_tx(const BarrierRef& bar, const u32& bytes, SrcLoc loc = SrcLoc::current());
// Wait until the barrier's current phase completes, then move to the next phase.
void wait(const BarrierRef& bar, SrcLoc loc = SrcLoc::current());
// The same with a CTA-scope acquire: for phases completed by TMA loads (multicast
// included) and arrivals that publish no data (arrive_relaxed); not for a peer's
// DSMEM stores, which only a cluster-scope acquire makes visible.
void wait_local(const BarrierRef& bar, SrcLoc loc = SrcLoc::current());
// Let `count` phases of the ring `bars` pass without waiting, one of each of
// bars[first % n], bars[(first + 1) % n], ... (n: the array's barriers): this thread's
// next wait on each is for the phase after. For a consumer that takes some of a
// pipeline's stages and leaves the others to another (ping-pong consumers over one
// producer's stages). It orders nothing: the data of skipped phases is not this thread's.
void skip_phases(const Ptr<mbarrier_t>& bars, const i32& first, const i32& count, SrcLoc loc = SrcLoc::current());

// One box of `map` at `coords` (innermost first, in elements) into dst and the
// following bytes; completes on `bar` with the box's bytes.
void tma_load(const Slot& dst, const TensorMap& map, const std::vector<i32>& coords, const BarrierRef& bar,
              SrcLoc loc = SrcLoc::current());
// The same box delivered to every CTA of the cluster whose bit is set in
// `cta_mask`, at the same shared-memory offset, completing on each one's `bar`.
void tma_load_multicast(const Slot& dst, const TensorMap& map, const std::vector<i32>& coords,
                        const BarrierRef& bar, const u32& cta_mask, SrcLoc loc = SrcLoc::current());
// sm_100a, for a CTA pair's 2-CTA MMA (.cta_group::2): the box lands in this CTA (with
// a mask, in each CTA of `cta_mask`) like the two above, but completes on `bar`'s
// barrier in the pair leader, the even CTA of ranks (2k, 2k + 1): the leader's
// arrive_expect_tx announces both CTAs' bytes; the odd CTA's own `bar` gets none.
// The cluster must hold whole pairs (an even number of CTAs).
void tma_load_pair(const Slot& dst, const TensorMap& map, const std::vector<i32>& coords, const BarrierRef& bar,
                   SrcLoc loc = SrcLoc::current());
void tma_load_pair_multicast(const Slot& dst, const TensorMap& map, const std::vector<i32>& coords,
                             const BarrierRef& bar, const u32& cta_mask, SrcLoc loc = SrcLoc::current());
// The box a tma_load of `map` at `coords` would fetch, brought into L2 only: no shared
// memory, no barrier, nothing to wait for. Issued a few k-blocks ahead of the load, it
// keeps more of a stream's DRAM reads in flight than the pipeline's stages hold.
void tma_prefetch(const TensorMap& map, const std::vector<i32>& coords, SrcLoc loc = SrcLoc::current());
// One box from shared memory (src and the following bytes) to `map` at `coords`.
void tma_store(const TensorMap& map, const std::vector<i32>& coords, const Slot& src,
               SrcLoc loc = SrcLoc::current());
// Close the group of bulk stores issued so far by this thread.
void bulk_commit(SrcLoc loc = SrcLoc::current());
// Wait until at most `pending` committed groups are still writing global memory.
void bulk_wait(unsigned pending = 0, SrcLoc loc = SrcLoc::current());
// Wait until at most `pending` groups still read their shared-memory sources.
void bulk_wait_read(unsigned pending = 0, SrcLoc loc = SrcLoc::current());
// Make this thread's shared-memory writes visible to the TMA engine (before a tma_store).
void fence_proxy_async(SrcLoc loc = SrcLoc::current());

// `bytes` (a multiple of 16) from our shared memory to a peer's (dst from
// map_shared_rank), completing on the peer's barrier `bar` (also mapped).
void bulk_copy_to_peer(const Slot& dst, const Slot& src, uint32_t bytes, const BarrierRef& bar,
                       SrcLoc loc = SrcLoc::current());
// One value into a peer's shared memory, completing on the peer's barrier.
void st_async(const Ref<uint32_t>& dst, const u32& value, const BarrierRef& bar, SrcLoc loc = SrcLoc::current());
void st_async(const Ref<float>& dst, const f32& value, const BarrierRef& bar, SrcLoc loc = SrcLoc::current());

// ---- multicast masks (u32; bit r is cluster rank r) ----
// Every CTA of the cluster.
u32 mask_all();
// Only CTA `rank`.
u32 mask_rank(const i32& rank);
// The CTAs in this CTA's row of the cluster (same cluster_ctaid_y), from the cluster's
// shape at run time.
u32 mask_row();
// The CTAs in this CTA's column (same cluster_ctaid_x): needs k.cluster() set first (a
// later k.cluster() of another shape is refused).
u32 mask_col(SrcLoc loc = SrcLoc::current());

}  // namespace tj::dsl
