#include "codegen/passes/lower_schedules.h"

#include <map>
#include <memory>
#include <string>

#include "codegen/analysis/ir_queries.h"
#include "codegen/schedules/schedule.h"
#include "dsl/ir/mutator.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

Expr imm(int64_t v) { return IntImm::make(Scalar::I32, v); }
Expr bin(BinOp op, Expr a, Expr b) { return Binary::make(op, std::move(a), std::move(b)); }

using Plans = std::map<ScheduleKind, std::shared_ptr<const schedules::KernelPlan>>;

class Lowering : public Mutator {
 public:
  Lowering(const Kernel& k, const Target& target, const Plans& plans) : k_(k), target_(target), plans_(plans) {}

 protected:
  Stmt mutate_node(const ForEachTile& t, const Stmt&) override { return lower(t); }

 private:
  // The unit space every schedule walks (cluster tiles x splits), then the schedule's
  // loop over this CTA's units, each decoded into the tile the body sees.
  Stmt lower(const ForEachTile& t) {
    const schedules::Schedule& schedule = schedules::schedule_for(t.schedule.kind);
    schedules::UnitSpace s{t, k_, target_, "tj_sched" + std::to_string(n_++) + "_", {}, {}, {}, {}, {}, {}, nullptr};
    if (auto p = plans_.find(t.schedule.kind); p != plans_.end()) s.plan = p->second.get();
    // A cluster takes a block of cx x cy tiles (with the splits in the cluster, each plane
    // along z the same block: the splits are the cluster's, not units of the walk).
    const bool in_cluster = t.schedule.cluster_splits;
    const int64_t cx = k_.cluster.x, cy = k_.cluster.y;
    std::vector<Stmt> outer;
    s.cluster_rows = s.let(outer, "rows", bin(BinOp::Div, bin(BinOp::Add, t.tiles_m, imm(cy - 1)), imm(cy)));
    s.cluster_cols = s.let(outer, "cols", bin(BinOp::Div, bin(BinOp::Add, t.tiles_n, imm(cx - 1)), imm(cx)));
    s.cluster_tiles = s.let(outer, "total", bin(BinOp::Mul, s.cluster_rows, s.cluster_cols));
    s.splits = t.splits && !in_cluster ? s.let(outer, "splits", t.splits) : nullptr;
    s.units = s.splits ? s.let(outer, "units", bin(BinOp::Mul, s.cluster_tiles, s.splits)) : s.cluster_tiles;
    s.unit_count = schedules::unit_count(t, k_);
    auto body = [&](const Expr& unit) {
      std::vector<Stmt> b;
      schedule.decode(s, unit, b);
      b.push_back(mutate(t.body));
      return Block::make(std::move(b), t.loc);
    };
    Stmt loop = schedule.loop(s, outer, body);
    outer.push_back(std::move(loop));
    return Block::make(std::move(outer), t.loc);
  }

  const Kernel& k_;
  const Target& target_;
  const Plans& plans_;
  int n_ = 0;
};

}  // namespace

Kernel lower_schedules(const Kernel& k, const Target& target) {
  Kernel out = k;
  // Each schedule the kernel uses prepares the kernel once (shared buffers, workspace).
  Plans plans;
  for_each_stmt(k.body, [&](const StmtNode& s) {
    if (const ForEachTile* t = s.as<ForEachTile>(); t && !plans.count(t->schedule.kind))
      plans[t->schedule.kind] = schedules::schedule_for(t->schedule.kind).prepare(out, target);
  });
  out.body = Lowering(out, target, plans).mutate(k.body);
  return out;
}

}  // namespace tj::codegen
