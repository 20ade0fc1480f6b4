// Whether IR reaches another CTA's shared memory: map_shared_rank, or a
// multicast TMA load or try_cancel (which write peers' shared memory and signal
// their barriers). Shared by the entry- and exit-barrier passes.
#pragma once

#include "dsl/ir/visitor.h"

namespace tj::codegen {

inline bool reaches_peer_shared(const ir::Stmt& s) {
  struct Finder : ir::Visitor {
    bool found = false;
    void visit_node(const ir::MapSharedRank&) override { found = true; }
    void visit_node(const ir::TmaLoad& n) override {
      found |= n.mask != nullptr;
      ir::Visitor::visit_node(n);
    }
    void visit_node(const ir::ClcTryCancel& n) override {
      found |= n.multicast;  // the answer lands in every CTA of the cluster
      ir::Visitor::visit_node(n);
    }
  } f;
  f.visit(s);
  return f.found;
}

}  // namespace tj::codegen
