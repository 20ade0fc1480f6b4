#include "codegen/passes/race_model.h"


namespace tj::codegen::race {

using namespace tj::ir;

std::string ranks_text(uint32_t ranks) {
  std::vector<unsigned> r;
  for (unsigned i = 0; i < 32; ++i)
    if ((ranks >> i) & 1u) r.push_back(i);
  if (r.empty()) return "no CTA";
  std::string out = r.size() == 1 ? "CTA rank " : "CTA ranks ";
  for (size_t i = 0; i < r.size(); ++i)
    out += (i == 0 ? "" : i + 1 == r.size() ? " and " : ", ") + std::to_string(r[i]);
  return out;
}

std::string line_of(const Loc& l) { return l.known() ? "line " + std::to_string(l.line) : "an unknown line"; }

std::string to_string(const RaceCheck& c) {
  switch (c.outcome) {
    case RaceCheck::Verified: return c.subject + ": verified" + (c.detail.empty() ? "" : " (" + c.detail + ")");
    case RaceCheck::NotChecked: return c.subject + ": not checked: " + c.detail;
    case RaceCheck::Allowed: return c.subject + ": allowed: " + c.detail;
  }
  return c.subject;
}

void Findings::hazard(const Kernel& k, const std::string& subject, std::vector<Loc> locs, Diagnostic d) {
  // Loop bodies are walked twice: the same finding once.
  for (const Diagnostic& e : errors)
    if (e.message == d.message && e.loc.line == d.loc.line) return;
  for (const RaceCheck& c : checks)
    if (c.outcome == RaceCheck::Allowed && c.detail.rfind(d.loc.str() + ": " + d.message, 0) == 0) return;
  for (const Loc& l : locs)
    if (const RaceAllowance* a = k.race_allowance(l)) {
      checks.push_back({RaceCheck::Allowed, subject,
                        d.loc.str() + ": " + d.message + " [allow_race at " + a->where.str() + ": \"" + a->reason + "\"]"});
      return;
    }
  errors.push_back(std::move(d));
}

}  // namespace tj::codegen::race
