// The timeline (LowerOptions::timeline): every iteration of a loop whose iterations are
// units of work (ir::LoopUnits: for_each_tile's loops, while_units) records, for each
// warp that ran it (one lane of the lanes that began the iteration, once they have met
// again), the unit's number, the SM, and %globaltimer at the iteration's start and end. The records go to two workspace parameters the host reads after a launch:
//   tj_timeline_count (u32[1]): records written, counting those past the capacity;
//   tj_timeline (u64[4 x capacity]): record i at [4i, 4i + 4):
//     start ns, end ns, unit | sm << 32, CTA (linear in the grid) | warp << 32.
// A kernel with no marked loop records each CTA's whole run as one unit, numbered by the
// CTA's place in the grid (a kernel whose grid follows the problem).
// The capacity is the units x CTAs per cluster x warps per CTA (each warp of each CTA
// records each unit of its cluster at most once). The host zeroes the count before a
// launch it records; records past the capacity are counted, not written.
#pragma once

#include <cstdint>

#include "dsl/ir/kernel.h"

namespace tj::codegen {

inline constexpr const char* kTimelineCount = "tj_timeline_count";
inline constexpr const char* kTimelineRecords = "tj_timeline";
inline constexpr unsigned kTimelineWords = 4;  // u64 words per record

// The kernel with its marked loops (or, without one, its whole body) recording.
ir::Kernel insert_timeline(const ir::Kernel& k);

}  // namespace tj::codegen
