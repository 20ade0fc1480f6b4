#include "codegen/schedules/schedule.h"

#include "codegen/schedules/dynamic.h"
#include "codegen/schedules/static_persistent.h"

namespace tj::codegen::schedules {

ir::Expr UnitSpace::let(std::vector<ir::Stmt>& into, const std::string& name, ir::Expr value) const {
  into.push_back(ir::Declare::make(prefix + name, std::move(value), node.loc));
  return local(name);
}

ir::Expr UnitSpace::local(const std::string& name) const {
  return ir::VarRef::make(prefix + name, ir::Type::of(ir::Scalar::I32), node.loc);
}

namespace {
ir::Expr imm(int64_t v) { return ir::IntImm::make(ir::Scalar::I32, v); }
ir::Expr bin(ir::BinOp op, ir::Expr a, ir::Expr b) { return ir::Binary::make(op, std::move(a), std::move(b)); }
ir::Expr reg(ir::SpecialRegKind r) { return ir::SpecialReg::make(r); }
}  // namespace

ir::Stmt Schedule::loop(const UnitSpace& s, std::vector<ir::Stmt>& prologue, const UnitBody& body) const {
  const UnitWalk w = walk(s, prologue);
  const std::string unit = s.splits ? "u" : "t";  // without splits the unit is the tile
  return ir::For::make(s.prefix + unit, w.first, w.end, w.stride, body(s.local(unit)), s.node.loc,
                       ir::LoopUnits{s.local(unit), s.unit_count});
}

ir::Expr unit_count(const ir::ForEachTile& t, const ir::Kernel& k) {
  auto ceil_div = [](ir::Expr a, int64_t b) { return bin(ir::BinOp::Div, bin(ir::BinOp::Add, std::move(a), imm(b - 1)), imm(b)); };
  ir::Expr units = bin(ir::BinOp::Mul, ceil_div(t.tiles_m, k.cluster.y), ceil_div(t.tiles_n, k.cluster.x));
  if (t.splits && !t.schedule.cluster_splits) units = bin(ir::BinOp::Mul, units, t.splits);
  return ir::Cast::make(ir::Scalar::I64, units);
}

void declare_grouping(const UnitSpace& s, std::vector<ir::Stmt>& prologue) {
  s.let(prologue, "group_span", bin(ir::BinOp::Mul, imm(s.node.schedule.group), s.cluster_cols));
}

// The splits of a tile are adjacent in unit order, so a walk hands them to neighbouring
// clusters in the same wave (they run at the same time, and a fix-up finds its peers'
// partials written or about to be). Grouped rasterization applies to the cluster tile index.
void decode_grouped(const UnitSpace& s, const ir::Expr& unit, std::vector<ir::Stmt>& into) {
  using ir::BinOp;
  const ir::ForEachTile& t = s.node;
  const ir::Loc& loc = t.loc;
  const int64_t cx = s.kernel.cluster.x, cy = s.kernel.cluster.y, group = t.schedule.group;
  ir::Expr it = s.splits ? s.let(into, "t", bin(BinOp::Div, unit, s.splits)) : unit;
  if (s.splits) into.push_back(ir::Declare::make(t.var_split, bin(BinOp::Mod, unit, s.splits), loc));
  // Splits in the cluster: the unit is a cluster tile, the split the CTA's plane.
  if (t.schedule.cluster_splits) into.push_back(ir::Declare::make(t.var_split, reg(ir::SpecialRegKind::ClusterCtaIdZ), loc));
  ir::Expr span = s.local("group_span");
  ir::Expr first_row = s.let(into, "first_row", bin(BinOp::Mul, bin(BinOp::Div, it, span), imm(group)));
  ir::Expr rows = s.let(into, "group_rows", bin(BinOp::Min, bin(BinOp::Sub, s.cluster_rows, first_row), imm(group)));
  ir::Expr in_group = s.let(into, "in_group", bin(BinOp::Mod, it, span));
  // Rasterized: down a group's rows, then across (neighbours share operands in L2).
  // Longest rows first: across a row, then the next row up, so that the units run in
  // order of cost (the last row of a group included) and the tail holds the cheapest.
  const bool longest = t.schedule.order == ir::UnitOrder::LongestRowsFirst;
  ir::Expr row = bin(BinOp::Add, first_row, longest ? bin(BinOp::Div, in_group, s.cluster_cols) : bin(BinOp::Mod, in_group, rows));
  ir::Expr col = longest ? bin(BinOp::Mod, in_group, s.cluster_cols) : bin(BinOp::Div, in_group, rows);
  if (longest) row = bin(BinOp::Sub, bin(BinOp::Sub, s.cluster_rows, imm(1)), row);
  ir::Expr m = bin(BinOp::Add, bin(BinOp::Mul, row, imm(cy)), s.clustered() ? reg(ir::SpecialRegKind::ClusterCtaIdY) : imm(0));
  ir::Expr n = bin(BinOp::Add, bin(BinOp::Mul, col, imm(cx)), s.clustered() ? reg(ir::SpecialRegKind::ClusterCtaIdX) : imm(0));
  into.push_back(ir::Declare::make(t.var_m, m, loc));
  into.push_back(ir::Declare::make(t.var_n, n, loc));
}

const Schedule& schedule_for(ir::ScheduleKind kind) {
  switch (kind) {
    case ir::ScheduleKind::StaticPersistent: return static_persistent();
    case ir::ScheduleKind::Dynamic: return dynamic_schedule();
  }
  ir::internal_error("schedule_for: unknown schedule kind");
}

}  // namespace tj::codegen::schedules
