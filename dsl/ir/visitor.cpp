#include "dsl/ir/visitor.h"

namespace tj::ir {

void Visitor::visit(const Expr& e) {
  if (e) dispatch(*e, [&](const auto& n) { visit_node(n); });
}
void Visitor::visit(const Stmt& s) {
  if (s) dispatch(*s, [&](const auto& n) { visit_node(n); });
}

// The children of each node kind, in evaluation order.
void Visitor::visit_node(const IntImm&) {}
void Visitor::visit_node(const FloatImm&) {}
void Visitor::visit_node(const BoolImm&) {}
void Visitor::visit_node(const VarRef&) {}
void Visitor::visit_node(const SharedRef&) {}
void Visitor::visit_node(const SpecialReg&) {}
void Visitor::visit_node(const Unary& n) { visit(n.a); }
void Visitor::visit_node(const Binary& n) { visit(n.a); visit(n.b); }
void Visitor::visit_node(const Cast& n) { visit(n.a); }
void Visitor::visit_node(const Select& n) { visit(n.cond); visit(n.a); visit(n.b); }
void Visitor::visit_node(const MapSharedRank& n) { visit(n.buffer); visit(n.rank); }
void Visitor::visit_node(const Load& n) { visit(n.ptr); visit(n.index); }
void Visitor::visit_node(const VectorPack& n) {
  for (const Expr& l : n.lanes) visit(l);
}
void Visitor::visit_node(const VectorLane& n) { visit(n.vec); }
void Visitor::visit_node(const FragElem&) {}
void Visitor::visit_node(const Intrinsic& n) {
  for (const Expr& a : n.args) visit(a);
}

void Visitor::visit_node(const Block& n) {
  for (const Stmt& s : n.body) visit(s);
}
void Visitor::visit_node(const Declare& n) { visit(n.init); }
void Visitor::visit_node(const Assign& n) { visit(n.var); visit(n.value); }
void Visitor::visit_node(const Store& n) { visit(n.ptr); visit(n.index); visit(n.value); }
void Visitor::visit_node(const AtomicAdd& n) { visit(n.ptr); visit(n.index); visit(n.value); }
void Visitor::visit_node(const AtomicFetchAdd& n) { visit(n.ptr); visit(n.index); visit(n.value); }
void Visitor::visit_node(const For& n) {
  visit(n.begin), visit(n.end), visit(n.step), visit(n.body);
  if (n.units) visit(n.units->unit), visit(n.units->count);
}
void Visitor::visit_node(const While& n) {
  visit(n.cond), visit(n.body);
  if (n.units) visit(n.units->unit), visit(n.units->count);
}
void Visitor::visit_node(const If& n) { visit(n.cond); visit(n.then_body); visit(n.else_body); }
void Visitor::visit_node(const SyncThreads&) {}
void Visitor::visit_node(const ClusterBarrier&) {}
void Visitor::visit_node(const MbarrierInit& n) { visit(n.bar); visit(n.index); }
void Visitor::visit_node(const Fence&) {}
void Visitor::visit_node(const MbarrierArrive& n) { visit(n.bar); visit(n.index); visit(n.tx); visit(n.mask); }
void Visitor::visit_node(const MbarrierWait& n) { visit(n.bar); visit(n.index); }
void Visitor::visit_node(const MbarrierSkip& n) { visit(n.bar); visit(n.first); visit(n.count); }
void Visitor::visit_node(const TmaLoad& n) {
  visit(n.tmap);
  for (const Expr& c : n.coords) visit(c);
  visit(n.dst); visit(n.dst_index); visit(n.bar); visit(n.bar_index); visit(n.mask);
}
void Visitor::visit_node(const TmaStore& n) {
  visit(n.tmap);
  for (const Expr& c : n.coords) visit(c);
  visit(n.src); visit(n.src_index);
}
void Visitor::visit_node(const TmaPrefetch& n) {
  visit(n.tmap);
  for (const Expr& c : n.coords) visit(c);
}
void Visitor::visit_node(const BulkGroup&) {}
void Visitor::visit_node(const BulkCopy& n) { visit(n.dst); visit(n.dst_index); visit(n.src); visit(n.src_index); visit(n.bar); visit(n.bar_index); }
void Visitor::visit_node(const StAsync& n) { visit(n.dst); visit(n.dst_index); visit(n.value); visit(n.bar); visit(n.bar_index); }
void Visitor::visit_node(const ClcTryCancel& n) { visit(n.response); visit(n.response_index); visit(n.bar); visit(n.bar_index); }

void Visitor::visit_node(const TmemOp& n) {
  if (n.slot) visit(n.slot), visit(n.slot_index);
  if (n.addr) visit(n.addr);
}

void Visitor::visit_node(const Role& n) { visit(n.body); }
void Visitor::visit_node(const NamedBarrier& n) { visit(n.id); }
void Visitor::visit_tile(const TileOperand& t) { visit(t.tile); visit(t.stage); visit(t.row); }
void Visitor::visit_node(const Mma& n) {
  if (n.a_fragment.empty()) visit_tile(n.a);
  visit_tile(n.b);
  visit(n.accumulate);
  if (n.acc_stage) visit(n.acc_stage);
}
void Visitor::visit_node(const MmaWait&) {}
void Visitor::visit_node(const AccStore& n) {
  visit_tile(n.dst);
  if (n.c) visit_tile(*n.c);
  visit(n.epilogue);
  if (n.acc_stage) visit(n.acc_stage);
}
void Visitor::visit_node(const FragMap& n) { visit(n.value); }
void Visitor::visit_node(const RowReduce&) {}
void Visitor::visit_node(const RowStore& n) { visit(n.ptr); visit(n.index); visit(n.valid); }
void Visitor::visit_node(const AccPartial& n) { visit(n.ptr); visit(n.slot); visit(n.bar); visit(n.bar_index); }
void Visitor::visit_node(const ForEachTile& n) { visit(n.tiles_m); visit(n.tiles_n); visit(n.splits); visit(n.body); }

}  // namespace tj::ir
