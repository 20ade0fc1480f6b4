#include "dsl/diagnostic.h"

#include <set>

namespace tj {

std::string Diagnostic::str() const {
  std::string out = loc.str() + ": error: " + message;
  if (!fix.empty()) out += "\n  fix: " + fix;
  return out;
}

namespace {
std::string join(const std::vector<Diagnostic>& diags) {
  std::string out;
  for (const Diagnostic& d : diags) out += (out.empty() ? "" : "\n") + d.str();
  return out;
}
// Each diagnostic once, in the order first found (two checks, or a check run twice, may
// find the same).
std::vector<Diagnostic> distinct(std::vector<Diagnostic> diags) {
  std::vector<Diagnostic> out;
  std::set<std::string> seen;
  for (Diagnostic& d : diags)
    if (seen.insert(d.str()).second) out.push_back(std::move(d));
  return out;
}
}  // namespace

UserError::UserError(std::vector<Diagnostic> diags) : UserError(distinct(std::move(diags)), 0) {}
UserError::UserError(std::vector<Diagnostic> diags, int) : std::runtime_error(join(diags)), diags_(std::move(diags)) {}

UserError::UserError(ir::Loc loc, std::string message, std::string fix)
    : UserError(std::vector<Diagnostic>{Diagnostic{std::move(loc), std::move(message), std::move(fix)}}) {}

}  // namespace tj
