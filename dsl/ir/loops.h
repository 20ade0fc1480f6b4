// The IR's loops seen alike: a counted For (index, begin, end, step) or a While whose
// trip count is data (its condition). Analyses that walk control flow ask as_loop
// instead of naming each loop node, so a new loop form is taught here, once; what they
// know of a counted loop's index they cannot assume of a while loop.
#pragma once

#include <optional>

#include "dsl/ir/ir.h"

namespace tj::ir {

struct LoopView {
  const StmtNode* node = nullptr;  // the loop itself (its identity)
  std::string var;                 // the index; empty for a while loop
  Expr begin, end, step;           // null for a while loop
  Expr cond;                       // the while loop's condition; null for a counted loop
  Stmt body;
  bool counted() const { return !var.empty(); }
  // The expressions the loop evaluates itself (bounds, or the condition).
  std::vector<Expr> control_exprs() const;
};

// The loop `s` is, if it is one.
std::optional<LoopView> as_loop(const StmtNode& s);

}  // namespace tj::ir
