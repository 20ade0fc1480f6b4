#include "codegen/uniformity.h"

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
  Walk(const Kernel& k, const LoopScope& loops) : k_(k), loops_(loops) {}
  Uniform result = Uniform::Cluster;

  void visit_node(const SpecialReg& n) override { worsen(of_register(n.reg)); }
  void visit_node(const Load& n) override { worsen(Uniform::Thread); }
  void visit_node(const VarRef& n) override {
    for (const Param& p : k_.params)
      if (p.name == n.name) return;  // a kernel parameter
    auto loop = loops_.find(n.name);
    worsen(loop != loops_.end() ? loop->second : Uniform::Thread);
  }

 private:
  void worsen(Uniform u) { result = std::max(result, u); }
  const Kernel& k_;
  const LoopScope& loops_;
};

}  // namespace

Uniform uniformity(const Expr& e, const Kernel& k, const LoopScope& loops) {
  Walk w(k, loops);
  w.visit(e);
  return w.result;
}

}  // namespace tj::codegen
