// A launch's timeline: which SM ran each unit of work, from when to when. The kernel is
// compiled with LowerOptions::timeline (codegen/passes/insert_timeline.h says what it
// records), launched once more with its count cleared, and its records read back and
// merged: one TimelineUnit per (CTA, unit), the span of the warp that finished it last.
// Not the first start to the last end over its warps: warps that do not wait for each
// other (a producer running stages ahead, warps with nothing to do in a unit and off to
// the next) would stretch that span over time the unit did not use. Nor the longest
// warp's: under a dynamic schedule a warp with nothing to do spends its iteration waiting
// for the scheduler's next claim, which takes as long as the unit before.
// Used by `tilejit run --timeline` (cli/timeline_svg.h draws it).
#pragma once

#include <cstdint>
#include <vector>

#include "generators/runner.h"

namespace tj::samples {

struct TimelineUnit {
  uint32_t unit = 0, sm = 0;
  uint64_t cta = 0;             // linear in the grid
  uint64_t start = 0, end = 0;  // %globaltimer, ns
};

struct Timeline {
  std::vector<TimelineUnit> units;  // in order of start
  uint64_t records = 0;             // warp records the launch wrote ...
  uint64_t capacity = 0;            // ... and the room it had (records past it are lost)
  RunReport report;                 // the recorded launch: its shape and its output check
};

// How many units could run at once: per SM, the most of `units` that overlap in time there,
// summed over the SMs (the SM count when each SM ran one at a time).
int concurrent_slots(const std::vector<TimelineUnit>& units);

// The records `words` holds (kTimelineWords u64 each; `records` of them, at most what
// `words` holds), one per (CTA, unit): its last warp's; sorted by start.
std::vector<TimelineUnit> merge_timeline_records(const std::vector<uint64_t>& words, uint64_t records);

// Compiles `s` with the timeline for `target` (through `cache`), launches it on `device`
// once to bind its buffers, then once more with the count cleared and the outputs
// poisoned, and reads the records back; the outputs are checked when `verify`.
Timeline record_timeline(const Sample& s, const Config& c, const codegen::Target& target, const Device& device,
                         rt::Cache* cache, uint64_t seed, bool verify);

// The lower bound of a makespan on `sms` SMs that each run one unit at a time, from the
// units' durations (ns): max(total / sms, largest). A unit of a cluster of C CTAs occupies
// C SMs for its duration: pass each CTA's unit (every element of the grid) once.
// pair_ns: the sms-th and (sms + 1)-th longest units added (two of the sms + 1 longest
// share an SM), 0 with at most sms units; max(bound_ns, pair_ns) is a bound too, and the
// one that counts for equal units that do not divide the SMs (133 on 132: two units long).
struct MakespanBound {
  double total_ns = 0, largest_ns = 0, bound_ns = 0, pair_ns = 0;
  bool work_bound() const { return total_ns > 0 && bound_ns > largest_ns; }  // total / SMs decides it
  double with_pair_ns() const { return bound_ns > pair_ns ? bound_ns : pair_ns; }
};
MakespanBound makespan_bound(std::vector<double> unit_ns, int sms);

}  // namespace tj::samples
