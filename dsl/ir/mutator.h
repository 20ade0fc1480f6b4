// Rewriting the IR. Mutator walks a tree and rebuilds it bottom-up: each node kind has
// a hook generated from node_kinds.def whose default mutates the node's children and
// rebuilds it through its make() when a child changed (the same node when none did).
// A pass overrides the kinds it rewrites and calls the base to keep descending, so a
// new node kind is taught once, here and in Visitor, not in every pass.
#pragma once

#include "dsl/ir/ir.h"

namespace tj::ir {

class Mutator {
 public:
  virtual ~Mutator() = default;
  Expr mutate(const Expr& e);  // null stays null
  Stmt mutate(const Stmt& s);

 protected:
  // `self` is the node as a shared pointer, returned when nothing changes.
#define TJ_EXPR(Name) virtual Expr mutate_node(const Name& n, const Expr& self);
#define TJ_STMT(Name) virtual Stmt mutate_node(const Name& n, const Stmt& self);
#include "dsl/ir/node_kinds.def"

  TileOperand mutate_tile(const TileOperand& t);
  std::vector<Expr> mutate_all(const std::vector<Expr>& es);
  std::optional<LoopUnits> mutate_units(const std::optional<LoopUnits>& u);
};

}  // namespace tj::ir
