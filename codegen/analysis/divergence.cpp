#include "codegen/analysis/divergence.h"

#include <set>

#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// The loads and lane-leader queries in an expression, through the single definitions
// of the locals it reads; not inside warp shuffles and reductions.
struct Reads : Visitor {
  const std::map<std::string, Expr>* defs;
  std::set<std::string> seen;
  std::vector<const Load*> loads;
  std::vector<const Intrinsic*> leaders;
  explicit Reads(const std::map<std::string, Expr>* d) : defs(d) {}
  void visit_node(const Load& n) override {
    loads.push_back(&n);
    Visitor::visit_node(n);
  }
  void visit_node(const VarRef& n) override {
    if (!defs) return;
    if (auto it = defs->find(n.name); it != defs->end() && seen.insert(n.name).second) visit(it->second);
  }
  void visit_node(const Intrinsic& n) override {
    if (intrinsic_is_warp_op(n.op)) return;
    if (n.op == IntrinsicOp::WarpLeader || n.op == IntrinsicOp::WarpLeaderOf) leaders.push_back(&n);
    Visitor::visit_node(n);
  }
  using Visitor::visit_node;
};

std::string buffer_name(const Expr& ptr) {
  if (const VarRef* v = ptr->as<VarRef>()) return v->name;
  if (const SharedRef* s = ptr->as<SharedRef>()) return s->name;
  return "memory";
}

}  // namespace

std::optional<Divergence> divergence(const Expr& e, const std::vector<ThreadEnv>& threads) {
  if (!e || threads.size() < 2) return std::nullopt;
  Reads reads(threads.front().env.defs);
  reads.visit(e);
  for (const Load* l : reads.loads) {
    std::optional<int64_t> first;
    for (const ThreadEnv& t : threads) {
      const std::optional<int64_t> i = eval_int(l->index, t.env);
      if (!i) break;
      if (!first) first = i;
      else if (*i != *first)
        return Divergence{l->loc, buffer_name(l->ptr) + "[...] is read at index " + std::to_string(*first) + " in thread " +
                                      std::to_string(threads.front().linear) + " and at index " + std::to_string(*i) + " in thread " +
                                      std::to_string(t.linear)};
    }
  }
  for (const Intrinsic* n : reads.leaders)
    for (size_t i = 1; i < threads.size(); ++i)
      if (threads[i].linear / 32 == threads.front().linear / 32)
        return Divergence{n->loc, std::string(intrinsic_name(n->op)) + "() is true in one lane of a warp: threads " +
                                      std::to_string(threads.front().linear) + " and " + std::to_string(threads[i].linear) +
                                      " may see different values"};
  return std::nullopt;
}

}  // namespace tj::codegen
