// Thread-block cluster operations: distributed shared memory and the cluster barrier.
#pragma once

#include "dsl/builder.h"

namespace tj::dsl {

// The same shared buffer inside CTA `cta_rank` of this cluster (mapa). Loads,
// stores and atomic_add on the result reach the peer's shared memory.
template <DslScalar T>
Ptr<T> map_shared_rank(const Ptr<T>& buffer, const i32& cta_rank, SrcLoc loc = SrcLoc::current()) {
  return Ptr<T>(ir::MapSharedRank::make(buffer.expr(), cta_rank.expr(), ir::Loc::from(loc)));
}

// CTA pairs (sm_100a's 2-CTA MMA: tcgen05 with CtaGroup::Two, tma_load_pair): ranks 2k
// and 2k + 1 of a cluster of whole pairs work as one; the even CTA leads (it issues the
// pair's MMAs, its barriers receive the pair's TMA bytes). Plain rank arithmetic, for
// any target; one thread of a warp to issue for it: warp_leader().
inline i32 pair_leader_rank() { return cluster_ctarank() & i32(~1); }  // the even CTA of this CTA's pair
inline i32 pair_peer_rank() { return cluster_ctarank() ^ i32(1); }     // the other CTA of the pair
inline boolean is_pair_leader() { return cluster_ctarank() % 2 == 0; }

// Every thread of every CTA in the cluster arrives and waits: arrive.release + wait.acquire.
void cluster_sync(SrcLoc loc = SrcLoc::current());
// The arrive half. Release (default) publishes this thread's earlier writes to the
// cluster; relaxed publishes nothing and is cheaper.
void cluster_arrive(ir::MemoryOrder order = ir::MemoryOrder::Release, SrcLoc loc = SrcLoc::current());
void cluster_arrive_relaxed(SrcLoc loc = SrcLoc::current());
// The wait half (acquire): returns once every thread of the cluster has arrived.
void cluster_wait(SrcLoc loc = SrcLoc::current());

}  // namespace tj::dsl
