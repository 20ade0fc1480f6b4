#include "dsl/diagnostic.h"

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
}  // namespace

UserError::UserError(std::vector<Diagnostic> diags) : std::runtime_error(join(diags)), diags_(std::move(diags)) {}

UserError::UserError(ir::Loc loc, std::string message, std::string fix)
    : UserError(std::vector<Diagnostic>{Diagnostic{std::move(loc), std::move(message), std::move(fix)}}) {}

}  // namespace tj
