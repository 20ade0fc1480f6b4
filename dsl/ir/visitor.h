// Walking the IR. Visitor is a recursive walk whose per-kind hooks are
// generated from node_kinds.def; override the kinds you care about and call
// the base to keep descending. dispatch() calls a generic callable with the
// concrete node type.
#pragma once

#include "dsl/ir/ir.h"

namespace tj::ir {

template <class F>
decltype(auto) dispatch(const ExprNode& e, F&& f) {
  switch (e.kind) {
#define TJ_EXPR(Name) \
  case ExprKind::Name: return f(static_cast<const Name&>(e));
#include "dsl/ir/node_kinds.def"
  }
  internal_error("dispatch: bad expression kind");
}

template <class F>
decltype(auto) dispatch(const StmtNode& s, F&& f) {
  switch (s.kind) {
#define TJ_STMT(Name) \
  case StmtKind::Name: return f(static_cast<const Name&>(s));
#include "dsl/ir/node_kinds.def"
  }
  internal_error("dispatch: bad statement kind");
}

class Visitor {
 public:
  virtual ~Visitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);

#define TJ_EXPR(Name) virtual void visit_node(const Name& n);
#define TJ_STMT(Name) virtual void visit_node(const Name& n);
#include "dsl/ir/node_kinds.def"

 protected:
  void visit_tile(const TileOperand& t);
};

}  // namespace tj::ir
