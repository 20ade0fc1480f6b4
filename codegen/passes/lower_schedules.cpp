#include "codegen/passes/lower_schedules.h"

#include <string>

#include "dsl/ir/mutator.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

Expr imm(int64_t v) { return IntImm::make(Scalar::I32, v); }
Expr bin(BinOp op, Expr a, Expr b) { return Binary::make(op, std::move(a), std::move(b)); }
Expr reg(SpecialRegKind r) { return SpecialReg::make(r); }

class Lowering : public Mutator {
 public:
  explicit Lowering(const Kernel& k) : k_(k) {}

 protected:
  Stmt mutate_node(const ForEachTile& t, const Stmt&) override { return lower(t); }

 private:
  // Units u = first, first + stride, ... of [0, cluster tiles x splits): cluster tile
  // u / splits, split u % splits. The splits of a tile are adjacent in unit order, so
  // the static walk hands them to neighbouring clusters in the same wave (they run
  // at the same time, and their fix-up finds its peers' partials written or about
  // to be). Grouped rasterization applies to the cluster tile index.
  Stmt lower(const ForEachTile& t) {
    const std::string p = "tj_sched" + std::to_string(n_++) + "_";
    const Loc& loc = t.loc;
    const bool clustered = k_.cluster.count() > 1;
    const int64_t cx = k_.cluster.x, cy = k_.cluster.y, group = t.schedule.group;
    auto var = [&](const std::string& name) { return VarRef::make(p + name, Type::of(Scalar::I32), loc); };
    std::vector<Stmt> outer;
    auto let = [&](std::vector<Stmt>& into, const std::string& name, Expr value) {
      into.push_back(Declare::make(p + name, std::move(value), loc));
      return var(name);
    };
    // The grid of cluster tiles, walked in groups of `group` cluster rows.
    Expr ctm = let(outer, "rows", bin(BinOp::Div, bin(BinOp::Add, t.tiles_m, imm(cy - 1)), imm(cy)));
    Expr ctn = let(outer, "cols", bin(BinOp::Div, bin(BinOp::Add, t.tiles_n, imm(cx - 1)), imm(cx)));
    Expr total = let(outer, "total", bin(BinOp::Mul, ctm, ctn));
    Expr splits = t.splits ? let(outer, "splits", t.splits) : nullptr;
    Expr units = splits ? let(outer, "units", bin(BinOp::Mul, total, splits)) : total;
    Expr span = let(outer, "group_span", bin(BinOp::Mul, imm(group), ctn));
    Expr first = clustered ? reg(SpecialRegKind::ClusterIdX) : reg(SpecialRegKind::BlockIdxX);
    Expr stride = clustered ? reg(SpecialRegKind::NumClustersX) : reg(SpecialRegKind::GridDimX);

    std::vector<Stmt> body;
    Expr unit = var(splits ? "u" : "t");  // without splits the unit is the tile (the old loop, unchanged)
    Expr it = splits ? let(body, "t", bin(BinOp::Div, unit, splits)) : unit;
    if (splits) body.push_back(Declare::make(t.var_split, bin(BinOp::Mod, unit, splits), loc));
    Expr first_row = let(body, "first_row", bin(BinOp::Mul, bin(BinOp::Div, it, span), imm(group)));
    Expr rows = let(body, "group_rows", bin(BinOp::Min, bin(BinOp::Sub, ctm, first_row), imm(group)));
    Expr in_group = let(body, "in_group", bin(BinOp::Mod, it, span));
    Expr m = bin(BinOp::Add, bin(BinOp::Mul, bin(BinOp::Add, first_row, bin(BinOp::Mod, in_group, rows)), imm(cy)),
                 clustered ? reg(SpecialRegKind::ClusterCtaIdY) : imm(0));
    Expr n = bin(BinOp::Add, bin(BinOp::Mul, bin(BinOp::Div, in_group, rows), imm(cx)),
                 clustered ? reg(SpecialRegKind::ClusterCtaIdX) : imm(0));
    body.push_back(Declare::make(t.var_m, m, loc));
    body.push_back(Declare::make(t.var_n, n, loc));
    body.push_back(mutate(t.body));
    outer.push_back(For::make(p + (splits ? "u" : "t"), first, units, stride, Block::make(std::move(body), loc), loc));
    return Block::make(std::move(outer), loc);
  }

  const Kernel& k_;
  int n_ = 0;
};

}  // namespace

Kernel lower_schedules(const Kernel& k, const Target&) {
  Kernel out = k;
  out.body = Lowering(k).mutate(k.body);
  return out;
}

}  // namespace tj::codegen
