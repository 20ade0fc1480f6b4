// Human-readable IR text, used by `tilejit compile --emit ir`, by
// TILEJIT_DUMP_IR and by tests.
#pragma once

#include <string>

#include "dsl/ir/kernel.h"

namespace tj::ir {

std::string to_string(const Expr& e);
std::string to_string(const Stmt& s, int indent = 0);
std::string to_string(const StmtNode& s, int indent = 0);
// The first line of s's text alone: compound statements (loops, ifs, roles, blocks)
// without printing their bodies (emission writes it above every statement).
std::string first_line(const StmtNode& s);
std::string to_string(const Kernel& k);

}  // namespace tj::ir
