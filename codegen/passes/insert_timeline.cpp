#include "codegen/passes/insert_timeline.h"

#include <string>
#include <vector>

#include "dsl/diagnostic.h"
#include "dsl/ir/mutator.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

Expr i64c(int64_t v) { return IntImm::make(Scalar::I64, v); }
Expr u64c(int64_t v) { return IntImm::make(Scalar::U64, v); }
Expr bin(BinOp op, Expr a, Expr b) { return Binary::make(op, std::move(a), std::move(b)); }
Expr u64of(Expr e) { return Cast::make(Scalar::U64, std::move(e)); }
Expr reg(SpecialRegKind r) { return SpecialReg::make(r); }
Expr timer(const Loc& loc) { return Intrinsic::make(IntrinsicOp::GlobalTimer, {}, loc); }

// The marked loops' unit counts, summed (null: none).
class Counts final : public Visitor {
 public:
  Expr total;
  void visit_node(const For& n) override { note(n.units), Visitor::visit_node(n); }
  void visit_node(const While& n) override { note(n.units), Visitor::visit_node(n); }

 private:
  void note(const std::optional<LoopUnits>& u) {
    if (u) total = total ? bin(BinOp::Add, total, u->count) : u->count;
  }
};

// Rewrites each marked loop's body into a recorded one (and, for a kernel without one,
// the whole body: timed()).
class Record final : public Mutator {
 public:
  Record(const Kernel& k, Expr capacity) : k_(k), capacity_(std::move(capacity)) {}

  // { mask = the lanes here; t0 = timer; unit = u.unit; body;
  //   if (warp_leader_of(mask)) { t1 = timer; i = count++; if (i < capacity) record } }
  // The lanes that start the iteration meet again before one of them records: lanes that
  // diverged in the body (thread 0 issuing copies, say) would each elect a leader.
  Stmt timed(const Stmt& body, const LoopUnits& u, const Loc& loc) {
    const std::string p = "tj_tl" + std::to_string(n_++) + "_";
    auto local = [&](const std::string& name, Scalar s) { return VarRef::make(p + name, Type::of(s), loc); };
    std::vector<Stmt> out;
    out.push_back(Declare::make(p + "mask", Intrinsic::make(IntrinsicOp::WarpActive, {}, loc), loc));
    out.push_back(Declare::make(p + "t0", timer(loc), loc));
    out.push_back(Declare::make(p + "unit", u.unit, loc));
    out.push_back(body);

    std::vector<Stmt> rec;
    rec.push_back(Declare::make(p + "t1", timer(loc), loc));
    const Expr count = VarRef::make(kTimelineCount, Type::pointer(Scalar::U32, Space::Global), loc);
    rec.push_back(AtomicFetchAdd::make(p + "i", count, IntImm::make(Scalar::I32, 0), IntImm::make(Scalar::U32, 1),
                                       MemoryOrder::Relaxed, MemoryScope::Gpu, loc));
    const Expr i = Cast::make(Scalar::I64, local("i", Scalar::U32));
    const Expr records = VarRef::make(kTimelineRecords, Type::pointer(Scalar::U64, Space::Global), loc);
    auto word = [&](int w) { return bin(BinOp::Add, bin(BinOp::Mul, i, i64c(kTimelineWords)), i64c(w)); };
    const Expr unit = u64of(Cast::make(Scalar::U32, local("unit", Scalar::I32)));
    const Expr sm = u64of(Intrinsic::make(IntrinsicOp::SmId, {}, loc));
    std::vector<Stmt> write;
    write.push_back(Store::make(records, word(0), local("t0", Scalar::U64), loc));
    write.push_back(Store::make(records, word(1), local("t1", Scalar::U64), loc));
    write.push_back(Store::make(records, word(2), bin(BinOp::BitOr, unit, bin(BinOp::Shl, sm, u64c(32))), loc));
    write.push_back(Store::make(records, word(3), bin(BinOp::BitOr, cta_index(), bin(BinOp::Shl, warp(), u64c(32))), loc));
    rec.push_back(If::make(bin(BinOp::Lt, i, capacity_), Block::make(std::move(write), loc), nullptr, loc));
    out.push_back(If::make(Intrinsic::make(IntrinsicOp::WarpLeaderOf, {local("mask", Scalar::U32)}, loc), Block::make(std::move(rec), loc),
                           nullptr, loc));
    return Block::make(std::move(out), loc);
  }

  // The CTA's linear index in the grid.
  static Expr cta_index() {
    Expr x = u64of(reg(SpecialRegKind::BlockIdxX)), y = u64of(reg(SpecialRegKind::BlockIdxY)), z = u64of(reg(SpecialRegKind::BlockIdxZ));
    Expr nx = u64of(reg(SpecialRegKind::GridDimX)), ny = u64of(reg(SpecialRegKind::GridDimY));
    return bin(BinOp::Add, x, bin(BinOp::Mul, nx, bin(BinOp::Add, y, bin(BinOp::Mul, ny, z))));
  }

 protected:
  Stmt mutate_node(const For& n, const Stmt& self) override {
    Stmt inner = Mutator::mutate_node(n, self);
    if (!n.units) return inner;
    const For& f = *inner->as<For>();
    return For::make(f.var, f.begin, f.end, f.step, timed(f.body, *f.units, f.loc), f.loc, f.units);
  }
  Stmt mutate_node(const While& n, const Stmt& self) override {
    Stmt inner = Mutator::mutate_node(n, self);
    if (!n.units) return inner;
    const While& w = *inner->as<While>();
    return While::make(w.cond, timed(w.body, *w.units, w.loc), w.loc, w.units);
  }

 private:
  // The warp's index in the CTA.
  Expr warp() const {
    Expr x = u64of(reg(SpecialRegKind::ThreadIdxX)), y = u64of(reg(SpecialRegKind::ThreadIdxY)), z = u64of(reg(SpecialRegKind::ThreadIdxZ));
    Expr linear = bin(BinOp::Add, x, bin(BinOp::Mul, u64c(k_.block.x), bin(BinOp::Add, y, bin(BinOp::Mul, u64c(k_.block.y), z))));
    return bin(BinOp::Div, linear, u64c(32));
  }

  const Kernel& k_;
  Expr capacity_;
  int n_ = 0;
};

}  // namespace

Kernel insert_timeline(const Kernel& k) {
  Counts counts;
  counts.visit(k.body);
  Kernel out = k;
  // Without a loop of units, each CTA's whole run is its one unit, numbered by its place
  // in the grid: the units of a launch are its clusters' CTAs.
  const bool whole = !counts.total;
  const Expr grid_ctas = bin(BinOp::Mul, Cast::make(Scalar::I64, reg(SpecialRegKind::GridDimX)),
                             bin(BinOp::Mul, Cast::make(Scalar::I64, reg(SpecialRegKind::GridDimY)),
                                 Cast::make(Scalar::I64, reg(SpecialRegKind::GridDimZ))));
  const LoopUnits per_cta{Cast::make(Scalar::I32, Record::cta_index()), bin(BinOp::Div, grid_ctas, i64c(k.cluster.count()))};
  const Expr total = whole ? per_cta.count : counts.total;
  const int64_t warps = (int64_t(k.block.count()) + 31) / 32;
  const Expr capacity = bin(BinOp::Mul, total, i64c(int64_t(k.cluster.count()) * warps));
  out.params.push_back(Param{kTimelineCount, Type::pointer(Scalar::U32, Space::Global), k.loc, Workspace{i64c(1), false}});
  out.params.push_back(Param{kTimelineRecords, Type::pointer(Scalar::U64, Space::Global), k.loc,
                             Workspace{bin(BinOp::Mul, capacity, i64c(kTimelineWords)), false}});
  Record record(out, capacity);
  out.body = whole ? record.timed(k.body, per_cta, k.loc) : record.mutate(k.body);
  return out;
}

}  // namespace tj::codegen
