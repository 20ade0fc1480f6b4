#include "codegen/analysis/uniformity.h"

#include <algorithm>

#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

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
  void visit_node(const Load& n) override { worsen(Uniform::Thread); }
  void visit_node(const FragElem&) override { worsen(Uniform::Thread); }
  // A shuffle or warp reduction reads other lanes: per thread, whatever its operands; so is a clock.
  void visit_node(const Intrinsic& n) override {
    if (intrinsic_is_warp_op(n.op)) return worsen(Uniform::Thread);
    if (intrinsic_rule(n.op) == IntrinsicRule::Clock) return worsen(Uniform::Thread);  // a new value at each read
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
    worsen(Uniform::Thread);
  }

 private:
  void worsen(Uniform u) { result = std::max(result, u); }
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
