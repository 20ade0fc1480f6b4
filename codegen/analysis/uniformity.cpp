#include "codegen/analysis/uniformity.h"

#include <algorithm>
#include <optional>
#include <set>

#include "dsl/ir/loops.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// Every value a local takes (its initial value and each assignment's) and what decides
// whether and how often an assignment runs: the conditions and loop controls between the
// local's declaration and the assignment.
struct LocalValues {
  std::vector<Expr> values, controls;
};
using LocalMap = std::map<std::string, LocalValues>;

void collect_locals(const Stmt& s, std::vector<Expr>& controls, std::map<std::string, size_t>& declared_at, LocalMap& out) {
  if (!s) return;
  if (const Declare* d = s->as<Declare>()) {
    declared_at[d->name] = controls.size();
    out[d->name].values.push_back(d->init);
  } else if (const Assign* a = s->as<Assign>()) {
    if (const VarRef* v = a->var->as<VarRef>()) {
      LocalValues& lv = out[v->name];
      lv.values.push_back(a->value);
      const auto at = declared_at.find(v->name);
      const size_t from = at == declared_at.end() ? 0 : std::min(at->second, controls.size());
      lv.controls.insert(lv.controls.end(), controls.begin() + std::ptrdiff_t(from), controls.end());
    }
  } else if (const Block* b = s->as<Block>()) {
    for (const Stmt& c : b->body) collect_locals(c, controls, declared_at, out);
  } else if (const If* i = s->as<If>()) {
    controls.push_back(i->cond);
    collect_locals(i->then_body, controls, declared_at, out);
    collect_locals(i->else_body, controls, declared_at, out);
    controls.pop_back();
  } else if (std::optional<LoopView> l = as_loop(*s)) {
    const size_t n = controls.size();
    for (const Expr& e : l->control_exprs()) controls.push_back(e);
    collect_locals(l->body, controls, declared_at, out);
    controls.resize(n);
  } else if (const Role* r = s->as<Role>()) {
    collect_locals(r->body, controls, declared_at, out);
  } else if (const ForEachTile* t = s->as<ForEachTile>()) {
    collect_locals(t->body, controls, declared_at, out);
  }
}

Uniform of_register(SpecialRegKind r) {
  switch (r) {
    case SpecialRegKind::ThreadIdxX:
    case SpecialRegKind::ThreadIdxY:
    case SpecialRegKind::ThreadIdxZ:
    case SpecialRegKind::LaneId: return Uniform::Thread;
    case SpecialRegKind::BlockIdxX:
    case SpecialRegKind::BlockIdxY:
    case SpecialRegKind::BlockIdxZ:
    case SpecialRegKind::ClusterCtaRank:
    case SpecialRegKind::ClusterCtaIdX:
    case SpecialRegKind::ClusterCtaIdY:
    case SpecialRegKind::ClusterCtaIdZ: return Uniform::Cta;
    default: return Uniform::Cluster;  // shapes of the block, grid and cluster; the cluster's id
  }
}

class Walk : public Visitor {
 public:
  Walk(const Kernel& k, const LoopScope& loops, const std::map<std::string, Expr>* defs)
      : k_(k), loops_(loops), defs_(defs) {}
  Uniform result = Uniform::Cluster;

  void visit_node(const SpecialReg& n) override { worsen(of_register(n.reg)); }
  // A load may differ between threads, unless from a shared buffer whose reads are the
  // same in every thread of the CTA (SharedBuffer::uniform_reads), at a uniform index.
  void visit_node(const Load& n) override {
    if (const SharedRef* r = n.ptr->as<SharedRef>())
      if (const SharedBuffer* b = k_.find_shared(r->name); b && b->uniform_reads) {
        worsen(Uniform::Cta);
        return visit(n.index);
      }
    worsen(Uniform::Thread);
  }
  void visit_node(const FragElem&) override { worsen(Uniform::Thread); }
  // A shuffle or warp reduction reads other lanes: per thread, whatever its operands; so is a clock.
  void visit_node(const Intrinsic& n) override {
    if (intrinsic_is_warp_op(n.op)) return worsen(Uniform::Thread);
    if (intrinsic_rule(n.op) == IntrinsicRule::Clock) return worsen(Uniform::Thread);  // a new value at each read
    if (intrinsic_rule(n.op) == IntrinsicRule::Leader) return worsen(Uniform::Thread);
    Visitor::visit_node(n);
  }
  void visit_node(const VarRef& n) override {
    for (const Param& p : k_.params)
      if (p.name == n.name) return;  // a kernel parameter
    auto loop = loops_.find(n.name);
    if (loop != loops_.end()) return worsen(loop->second);
    // A local declared once and never assigned: as uniform as its initial value.
    if (defs_ && depth_ < kMaxDepth)
      if (auto d = defs_->find(n.name); d != defs_->end()) {
        ++depth_;
        visit(d->second);
        --depth_;
        return;
      }
    // A local assigned more than once: as uniform as the least uniform of its values and
    // of what decides its assignments. A local read while its own values are being
    // looked at adds nothing (the least fixed point: the join of the rest).
    if (defs_ && depth_ < kMaxDepth) {
      if (in_progress_.count(n.name)) return;
      const LocalMap& locals = all_locals();
      if (auto l = locals.find(n.name); l != locals.end()) {
        in_progress_.insert(n.name);
        ++depth_;
        for (const Expr& v : l->second.values) visit(v);
        for (const Expr& c : l->second.controls) visit(c);
        --depth_;
        in_progress_.erase(n.name);
        return;
      }
    }
    worsen(Uniform::Thread);
  }
  // Loops and conditions inside a value (none in expressions) need no scope here.
  using Visitor::visit_node;

 private:
  void worsen(Uniform u) { result = std::max(result, u); }
  const LocalMap& all_locals() {
    if (!locals_) {
      locals_.emplace();
      std::vector<Expr> controls;
      std::map<std::string, size_t> declared_at;
      collect_locals(k_.body, controls, declared_at, *locals_);
    }
    return *locals_;
  }
  std::optional<LocalMap> locals_;
  std::set<std::string> in_progress_;
  static constexpr int kMaxDepth = 64;  // locals defined from locals; deeper counts as per thread
  const Kernel& k_;
  const LoopScope& loops_;
  const std::map<std::string, Expr>* defs_;
  int depth_ = 0;
};

}  // namespace

Uniform uniformity(const Expr& e, const Kernel& k, const LoopScope& loops, const std::map<std::string, Expr>* defs) {
  Walk w(k, loops, defs);
  w.visit(e);
  return w.result;
}

}  // namespace tj::codegen
