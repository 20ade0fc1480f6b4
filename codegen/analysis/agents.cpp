#include "codegen/analysis/agents.h"

#include <algorithm>

#include "dsl/ir/visitor.h"

namespace tj::codegen {

using namespace tj::ir;

bool concurrent(const Agent& a, const Agent& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return true;
  return false;
}

bool splits_threads(const Kernel& k, const Expr& cond, const LoopScope&) {
  struct Finder : Visitor {
    bool found = false;
    void visit_node(const SpecialReg& n) override {
      found |= n.reg == SpecialRegKind::ThreadIdxX || n.reg == SpecialRegKind::ThreadIdxY ||
               n.reg == SpecialRegKind::ThreadIdxZ || n.reg == SpecialRegKind::LaneId;
    }
  } f;
  f.visit(cond);
  return f.found && k.block.count() > 1;
}

}  // namespace tj::codegen
