#include "codegen/schedules/static_persistent.h"

namespace tj::codegen::schedules {
namespace {

using namespace tj::ir;

Expr imm(int64_t v) { return IntImm::make(Scalar::I32, v); }
Expr bin(BinOp op, Expr a, Expr b) { return Binary::make(op, std::move(a), std::move(b)); }
Expr reg(SpecialRegKind r) { return SpecialReg::make(r); }

class StaticPersistent final : public Schedule {
 public:
  std::string_view name() const override { return "static_persistent"; }

  UnitWalk walk(const UnitSpace& s, std::vector<Stmt>& prologue) const override {
    s.let(prologue, "group_span", bin(BinOp::Mul, imm(s.node.schedule.group), s.cluster_cols));
    if (s.clustered()) return {reg(SpecialRegKind::ClusterIdX), s.units, reg(SpecialRegKind::NumClustersX)};
    return {reg(SpecialRegKind::BlockIdxX), s.units, reg(SpecialRegKind::GridDimX)};
  }

  // Unit u: cluster tile u / splits, split u % splits. The splits of a tile are adjacent
  // in unit order, so the walk hands them to neighbouring clusters in the same wave (they
  // run at the same time, and a fix-up finds its peers' partials written or about to be).
  // Grouped rasterization applies to the cluster tile index.
  void decode(const UnitSpace& s, const Expr& unit, std::vector<Stmt>& into) const override {
    const ForEachTile& t = s.node;
    const Loc& loc = t.loc;
    const int64_t cx = s.kernel.cluster.x, cy = s.kernel.cluster.y, group = t.schedule.group;
    Expr it = s.splits ? s.let(into, "t", bin(BinOp::Div, unit, s.splits)) : unit;
    if (s.splits) into.push_back(Declare::make(t.var_split, bin(BinOp::Mod, unit, s.splits), loc));
    Expr span = s.local("group_span");
    Expr first_row = s.let(into, "first_row", bin(BinOp::Mul, bin(BinOp::Div, it, span), imm(group)));
    Expr rows = s.let(into, "group_rows", bin(BinOp::Min, bin(BinOp::Sub, s.cluster_rows, first_row), imm(group)));
    Expr in_group = s.let(into, "in_group", bin(BinOp::Mod, it, span));
    Expr m = bin(BinOp::Add, bin(BinOp::Mul, bin(BinOp::Add, first_row, bin(BinOp::Mod, in_group, rows)), imm(cy)),
                 s.clustered() ? reg(SpecialRegKind::ClusterCtaIdY) : imm(0));
    Expr n = bin(BinOp::Add, bin(BinOp::Mul, bin(BinOp::Div, in_group, rows), imm(cx)),
                 s.clustered() ? reg(SpecialRegKind::ClusterCtaIdX) : imm(0));
    into.push_back(Declare::make(t.var_m, m, loc));
    into.push_back(Declare::make(t.var_n, n, loc));
  }
};

}  // namespace

const Schedule& static_persistent() {
  static const StaticPersistent schedule;
  return schedule;
}

}  // namespace tj::codegen::schedules
