// The race check (issue 10): races between CTAs of a cluster through distributed
// shared memory, between the async proxy and ordinary accesses, and mbarriers
// whose arrivals do not add up, found on the IR before anything runs. Its parts
// are in race_epochs.cpp, race_async.cpp and race_arrivals.cpp; what they share
// in race_model.h. A hazard is an error in DSL terms naming both statements and
// the fix, unless one of its statements is inside allow_race(reason, ...): then
// it is reported as allowed. What cannot be decided is reported as not checked.
#pragma once

#include <string>
#include <vector>

#include "codegen/passes/race_model.h"
#include "codegen/target.h"

namespace tj::codegen {

struct RaceReport {
  std::vector<Diagnostic> errors;
  std::vector<race::RaceCheck> checks;  // verified, not checked (why) and allowed hazards
  double seconds = 0;                   // the check's own time
  double epochs_seconds = 0, async_seconds = 0, arrivals_seconds = 0;  // its parts
};

RaceReport check_races(const ir::Kernel& k);

// The errors of check_races, as a verification pass.
std::vector<Diagnostic> verify_races(const ir::Kernel& k, const Target& target);

}  // namespace tj::codegen
