#include "dsl/ir/loops.h"

namespace tj::ir {

std::vector<Expr> LoopView::control_exprs() const {
  if (counted()) return {begin, end, step};
  return {cond};
}

std::optional<LoopView> as_loop(const StmtNode& s) {
  if (const For* f = s.as<For>()) return LoopView{&s, f->var, f->begin, f->end, f->step, nullptr, f->body};
  if (const While* w = s.as<While>()) return LoopView{&s, {}, nullptr, nullptr, nullptr, w->cond, w->body};
  return std::nullopt;
}

}  // namespace tj::ir
