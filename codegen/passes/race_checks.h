// The three parts of the race check; verify_races.cpp runs them in this order.
#pragma once

#include "codegen/passes/race_model.h"

#include <optional>
#include <string>
#include <vector>

namespace tj::codegen {
struct BarrierPhases;
struct PhaseScope;
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

// Where the phases of barrier array `name` come from, seen from the waits of `waiting`:
// null when one pass of that scope meets one phase of each barrier (every arriving scope
// brings at most one phase per pass and passes as often); else why that is not known.
// `arrivals` gets the arrivals' locations (race_wait_steps.cpp).
std::optional<std::string> one_phase_per_pass(const BarrierPhases& phases, const PhaseScope& waiting, const std::string& name,
                                              std::vector<ir::Loc>& arrivals);

// Part of the arrival check: in a loop whose waits on a ring of barriers meet one phase of
// each barrier per iteration, every thread takes each barrier's phases (wait or
// skip_phases) at a fixed distance in iterations from the ones that complete them
// (race_phase_lag.cpp).
void check_phase_lag(const ir::Kernel& k, const BarrierPhases& phases, Findings& out);

}  // namespace tj::codegen::race
