// The three parts of the race check; verify_races.cpp runs them in this order.
#pragma once

#include "codegen/passes/race_model.h"

namespace tj::codegen {
struct BarrierPhases;
}

namespace tj::codegen::race {

// Cluster epochs: generic accesses to a shared buffer that a peer reaches through
// map_shared_rank, split by cluster barriers (cluster_arrive / cluster_wait modelled
// as the two halves they are).
void check_cluster_epochs(const ir::Kernel& k, Findings& out);

// The async proxy: TMA and bulk-copy destinations read before their barrier's wait,
// sources of pending TMA stores overwritten before bulk_wait_read, generic writes read
// by a TMA store or an MMA without fence_proxy_async, MMA operands overwritten and
// accumulators read before mma_wait, pipeline stages refilled before release and
// released before their reads completed.
void check_async_proxy(const ir::Kernel& k, Findings& out);

// mbarrier arrivals: per barrier, phase and CTA rank, the arrivals equal the count
// the barrier was declared with; a wait nothing arrives for never completes.
void check_arrivals(const ir::Kernel& k, Findings& out);

// Part of the arrival check: two waits of one thread on one barrier in one pass of a
// phase scope, where the arrivals complete one phase per pass (race_wait_steps.cpp).
void check_wait_steps(const ir::Kernel& k, const BarrierPhases& phases, Findings& out);

}  // namespace tj::codegen::race
