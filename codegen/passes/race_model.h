// What the three parts of the race check share (verify_races.h is the pass) beyond
// the analyses they use (codegen/analysis/: guards, agents, shared-memory accesses):
// how findings become errors, allowed hazards (allow_race) or "not checked" lines.
#pragma once

#include <string>
#include <vector>

#include "codegen/analysis/agents.h"
#include "codegen/analysis/guards.h"
#include "codegen/analysis/shared_accesses.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen::race {

// "CTA rank 2", "CTA ranks 0, 1 and 3" of a bit set.
std::string ranks_text(uint32_t ranks);

// "line 31"
std::string line_of(const ir::Loc& l);

// One line of the race check's report.
struct RaceCheck {
  enum Outcome { Verified, NotChecked, Allowed } outcome = Verified;
  std::string subject;  // "cluster epochs", "barrier 'full' in the loop at f.cpp:12", ...
  std::string detail;   // why not checked, or the hazard that was allowed and why
};
std::string to_string(const RaceCheck& c);

struct Findings {
  std::vector<Diagnostic> errors;
  std::vector<RaceCheck> checks;
  // An error, unless a statement at one of `locs` is in allow_race: then an Allowed line.
  void hazard(const ir::Kernel& k, const std::string& subject, std::vector<ir::Loc> locs, Diagnostic d);
};

}  // namespace tj::codegen::race
