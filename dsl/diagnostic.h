// User-facing errors: what is wrong, where in the user's code, and the fix.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "dsl/ir/types.h"

namespace tj {

struct Diagnostic {
  ir::Loc loc;
  std::string message;  // what is wrong, in DSL terms, with the numbers
  std::string fix;      // how to fix it; may be empty

  // "file.cpp:12: error: <message>\n  fix: <fix>"
  std::string str() const;
};

// A user error: bad DSL use, an impossible launch shape, a spec that does not
// make sense. Carries one or more diagnostics; what() is all of them.
class UserError : public std::runtime_error {
 public:
  explicit UserError(std::vector<Diagnostic> diags);
  UserError(ir::Loc loc, std::string message, std::string fix = {});
  // Each distinct diagnostic once, in the order given.
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }

 private:
  UserError(std::vector<Diagnostic> distinct_diags, int);
  std::vector<Diagnostic> diags_;
};

}  // namespace tj
