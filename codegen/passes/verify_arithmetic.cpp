#include "codegen/passes/verify_arithmetic.h"

#include <set>

#include "codegen/analysis/eval.h"
#include "codegen/analysis/guards.h"
#include "codegen/analysis/ir_queries.h"
#include "dsl/ir/loops.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// The integer divisions and shifts of an expression.
struct Operations : Visitor {
  std::vector<const Binary*> found;
  void visit_node(const Binary& n) override {
    const bool divides = n.op == BinOp::Div || n.op == BinOp::Mod, shifts = n.op == BinOp::Shl || n.op == BinOp::Shr;
    if ((divides || shifts) && is_integer(n.type.scalar)) found.push_back(&n);
    Visitor::visit_node(n);
  }
  using Visitor::visit_node;
};

class Arithmetic {
 public:
  Arithmetic(const Kernel& k, std::vector<Diagnostic>& out) : k_(k), d_(single_assignment_defs(k)), out_(out) {}

  void statement(const StmtNode& s) {
    Operations ops;
    if (const If* i = s.as<If>()) ops.visit(i->cond);
    else if (std::optional<LoopView> l = as_loop(s)) {
      for (const Expr& e : l->control_exprs()) ops.visit(e);
    } else if (!s.as<Role>() && !s.as<Block>()) {  // their statements are visited on their own
      dispatch(s, [&](const auto& n) { ops.visit_node(n); });
    }
    for (const Binary* b : ops.found)
      if (seen_.insert(b).second) check(s, *b);
  }

 private:
  void check(const StmtNode& s, const Binary& b) {
    const EvalEnv env{k_.cluster, k_.block, std::nullopt, std::nullopt, nullptr, &d_};
    std::optional<int64_t> v = eval_int(b.b, env);
    if (!v) return;
    const char* sign = b.op == BinOp::Div ? " / " : b.op == BinOp::Mod ? " % " : b.op == BinOp::Shl ? " << " : " >> ";
    const std::string what = to_string(b.a) + sign + to_string(b.b);
    if ((b.op == BinOp::Div || b.op == BinOp::Mod) && *v == 0) {
      out_.push_back({s.loc,
                      std::string(b.op == BinOp::Div ? "integer division" : "integer remainder") + " by zero: " + what + " divides by 0 (the result is undefined; the GPU does not trap)",
                      "divide by a value that is not 0, or test the divisor with if_ or select before dividing"});
      return;
    }
    const int64_t width = int64_t(scalar_bytes(b.type.scalar)) * 8;
    if ((b.op == BinOp::Shl || b.op == BinOp::Shr) && (*v < 0 || *v >= width))
      out_.push_back({s.loc,
                      "shift by " + std::to_string(*v) + ": " + what + " shifts a " + std::to_string(width) +
                          "-bit value, outside 0.." + std::to_string(width - 1) +
                          " (the result is undefined)",
                      "shift by 0 to " + std::to_string(width - 1) + " bits, or widen the operand first"});
  }

  const Kernel& k_;
  Defs d_;
  std::vector<Diagnostic>& out_;
  std::set<const Binary*> seen_;  // a node shared by several statements is reported once
};

}  // namespace

std::vector<Diagnostic> verify_arithmetic(const ir::Kernel& k) {
  std::vector<Diagnostic> out;
  Arithmetic a(k, out);
  for_each_stmt(k.body, [&](const StmtNode& s) { a.statement(s); });
  return out;
}

}  // namespace tj::codegen
