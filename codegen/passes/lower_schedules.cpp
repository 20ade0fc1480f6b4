#include "codegen/passes/lower_schedules.h"

#include <string>

#include "codegen/schedules/schedule.h"
#include "dsl/ir/mutator.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

Expr imm(int64_t v) { return IntImm::make(Scalar::I32, v); }
Expr bin(BinOp op, Expr a, Expr b) { return Binary::make(op, std::move(a), std::move(b)); }

class Lowering : public Mutator {
 public:
  Lowering(const Kernel& k, const Target& target) : k_(k), target_(target) {}

 protected:
  Stmt mutate_node(const ForEachTile& t, const Stmt&) override { return lower(t); }

 private:
  // The unit space every schedule walks (cluster tiles x splits), then the schedule's
  // walk over this CTA's units, each decoded into the tile the body sees.
  Stmt lower(const ForEachTile& t) {
    const schedules::Schedule& schedule = schedules::schedule_for(t.schedule.kind);
    schedules::UnitSpace s{t, k_, target_, "tj_sched" + std::to_string(n_++) + "_", {}, {}, {}, {}, {}};
    const int64_t cx = k_.cluster.x, cy = k_.cluster.y;
    std::vector<Stmt> outer;
    s.cluster_rows = s.let(outer, "rows", bin(BinOp::Div, bin(BinOp::Add, t.tiles_m, imm(cy - 1)), imm(cy)));
    s.cluster_cols = s.let(outer, "cols", bin(BinOp::Div, bin(BinOp::Add, t.tiles_n, imm(cx - 1)), imm(cx)));
    s.cluster_tiles = s.let(outer, "total", bin(BinOp::Mul, s.cluster_rows, s.cluster_cols));
    s.splits = t.splits ? s.let(outer, "splits", t.splits) : nullptr;
    s.units = s.splits ? s.let(outer, "units", bin(BinOp::Mul, s.cluster_tiles, s.splits)) : s.cluster_tiles;
    const schedules::UnitWalk walk = schedule.walk(s, outer);

    const std::string unit_name = s.splits ? "u" : "t";  // without splits the unit is the tile
    std::vector<Stmt> body;
    schedule.decode(s, s.local(unit_name), body);
    body.push_back(mutate(t.body));
    outer.push_back(For::make(s.prefix + unit_name, walk.first, walk.end, walk.stride, Block::make(std::move(body), t.loc), t.loc));
    return Block::make(std::move(outer), t.loc);
  }

  const Kernel& k_;
  const Target& target_;
  int n_ = 0;
};

}  // namespace

Kernel lower_schedules(const Kernel& k, const Target& target) {
  Kernel out = k;
  out.body = Lowering(k, target).mutate(k.body);
  return out;
}

}  // namespace tj::codegen
