// dynamic(group, slots, order): each cluster starts with the unit of its cluster id and
// claims every next unit at run time, "ask first, then compute": the claim for the next
// unit is issued before the current unit's work; its answer lands in shared memory and
// completes on an mbarrier; a predicate says whether a unit was claimed, the unit is
// read only when it was, and the loop ends on the predicate (no sentinel unit).
//
// One thread claims for the whole cluster (the scheduler: the lowest-numbered thread of
// CTA rank 0 that walks the schedule) and every walker of every CTA receives, through a
// ring of `slots` answers in shared memory: 'tj_dyn_answer' (4 u32 per slot), full
// barriers 'tj_dyn_full' (one arrival per phase: the scheduler's, with the answer's 16
// bytes on sm_100a) and, per for_each_tile that walks the schedule, an empty ring
// 'tj_dyn_empty<i>' in rank 0 on which each of its walkers in every CTA gives the slot
// back after reading it. The scheduler reuses a slot once every empty ring released it.
//
// sm_100a: clusterlaunchcontrol.try_cancel (.multicast::cluster::all for clusters of
// more than one CTA: the answer lands in every CTA), is_canceled, get_first_ctaid::x; the
// grid is one cluster per unit (Kernel::schedule_grid), so a claimed cluster is one that
// has not started, and its unit is its cluster id. No try_cancel follows a failed one.
// sm_90a: a persistent grid; unit = cluster count + atom.add on a per-launch counter
// (the answer {claimed, unit} stored into rank 0, st.async into the peers)
// (workspace 'tj_dyn_counter', zeroed when allocated). Every cluster that runs a unit
// ends with exactly one failed claim, so a launch makes exactly `units` claims: the one
// that reads units - 1 is the last, and resets the counter to 0 for the next launch.
#pragma once

#include "codegen/schedules/schedule.h"

namespace tj::codegen::schedules {

const Schedule& dynamic_schedule();

}  // namespace tj::codegen::schedules
