// mbarrier arrivals counted pass by pass (race_arrivals.cpp uses it where its counts per
// phase cannot decide): the phase scope's loop index bound, in each thread, to the value
// it takes in the j-th pass (begin + j x step, both evaluated for that thread: a
// warpgroup's loop that starts at its own index, say), and each enclosing loop's index
// to its first values. Decides phases whose barrier index or conditions depend on the
// pass: a ring's `it % stages`, a ping-pong's `it % 2 == wg`, consumers that take
// alternate passes of one ring.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/analysis/barrier_phases.h"
#include "codegen/analysis/conditions.h"

namespace tj::codegen::race {

struct PassCounts {
  bool ok = true;       // every pass brings 0 or `want` arrivals to each barrier in each CTA
  std::string passes;   // "passes 0 to 9 of the loop at f.cpp:12" (enclosing loops: passes 0 to 3 each)
  // When not ok: where, and how many arrived in which pass.
  unsigned rank = 0;
  int64_t index = 0;
  uint64_t got = 0;
  std::string pass;     // "pass 2 of the loop at f.cpp:12"
};

// nullopt where a bound, condition, index, rank or mask still does not evaluate.
std::optional<PassCounts> count_by_passes(const ir::Kernel& k, const Defs& defs, ConditionEval& eval, const PhaseScope& scope,
                                          const std::vector<const BarrierEvent*>& events, uint64_t want);

}  // namespace tj::codegen::race
