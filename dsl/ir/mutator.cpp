#include "dsl/ir/mutator.h"

#include "dsl/ir/visitor.h"

namespace tj::ir {

Expr Mutator::mutate(const Expr& e) {
  if (!e) return e;
  return dispatch(*e, [&](const auto& n) { return mutate_node(n, e); });
}
Stmt Mutator::mutate(const Stmt& s) {
  if (!s) return s;
  return dispatch(*s, [&](const auto& n) { return mutate_node(n, s); });
}

TileOperand Mutator::mutate_tile(const TileOperand& t) { return {mutate(t.tile), mutate(t.stage), mutate(t.row)}; }
std::vector<Expr> Mutator::mutate_all(const std::vector<Expr>& es) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr& e : es) out.push_back(mutate(e));
  return out;
}

namespace {
bool same(const TileOperand& a, const TileOperand& b) { return a.tile == b.tile && a.stage == b.stage && a.row == b.row; }
}  // namespace

// ---- expressions: leaves stay, the others rebuild when a child changed ----
Expr Mutator::mutate_node(const IntImm&, const Expr& self) { return self; }
Expr Mutator::mutate_node(const FloatImm&, const Expr& self) { return self; }
Expr Mutator::mutate_node(const BoolImm&, const Expr& self) { return self; }
Expr Mutator::mutate_node(const VarRef&, const Expr& self) { return self; }
Expr Mutator::mutate_node(const SharedRef&, const Expr& self) { return self; }
Expr Mutator::mutate_node(const SpecialReg&, const Expr& self) { return self; }
Expr Mutator::mutate_node(const Unary& n, const Expr& self) {
  Expr a = mutate(n.a);
  return a == n.a ? self : Unary::make(n.op, a, n.loc);
}
Expr Mutator::mutate_node(const Binary& n, const Expr& self) {
  Expr a = mutate(n.a), b = mutate(n.b);
  return a == n.a && b == n.b ? self : Binary::make(n.op, a, b, n.loc);
}
Expr Mutator::mutate_node(const Cast& n, const Expr& self) {
  Expr a = mutate(n.a);
  return a == n.a ? self : Cast::make(n.type.scalar, a, n.loc);
}
Expr Mutator::mutate_node(const Select& n, const Expr& self) {
  Expr c = mutate(n.cond), a = mutate(n.a), b = mutate(n.b);
  return c == n.cond && a == n.a && b == n.b ? self : Select::make(c, a, b, n.loc);
}
Expr Mutator::mutate_node(const MapSharedRank& n, const Expr& self) {
  Expr buf = mutate(n.buffer), rank = mutate(n.rank);
  return buf == n.buffer && rank == n.rank ? self : MapSharedRank::make(buf, rank, n.loc);
}
Expr Mutator::mutate_node(const Load& n, const Expr& self) {
  Expr p = mutate(n.ptr), i = mutate(n.index);
  return p == n.ptr && i == n.index ? self : Load::make(p, i, n.loc);
}
Expr Mutator::mutate_node(const VectorPack& n, const Expr& self) {
  std::vector<Expr> lanes = mutate_all(n.lanes);
  return lanes == n.lanes ? self : VectorPack::make(std::move(lanes), n.loc);
}
Expr Mutator::mutate_node(const FragElem&, const Expr& self) { return self; }
Expr Mutator::mutate_node(const VectorLane& n, const Expr& self) {
  Expr v = mutate(n.vec);
  return v == n.vec ? self : VectorLane::make(v, n.lane, n.loc);
}
Expr Mutator::mutate_node(const Intrinsic& n, const Expr& self) {
  std::vector<Expr> args = mutate_all(n.args);
  // `to` is the result scalar for the rules that name it (Reinterpret's pointee).
  return args == n.args ? self : Intrinsic::make(n.op, std::move(args), n.loc, n.type.scalar);
}

// ---- statements ----
Stmt Mutator::mutate_node(const Block& n, const Stmt& self) {
  std::vector<Stmt> body;
  body.reserve(n.body.size());
  bool changed = false;
  for (const Stmt& s : n.body) {
    body.push_back(mutate(s));
    changed |= body.back() != s;
  }
  return changed ? Block::make(std::move(body), n.loc) : self;
}
Stmt Mutator::mutate_node(const Declare& n, const Stmt& self) {
  Expr init = mutate(n.init);
  return init == n.init ? self : Declare::make(n.name, init, n.loc);
}
Stmt Mutator::mutate_node(const Assign& n, const Stmt& self) {
  Expr var = mutate(n.var), value = mutate(n.value);
  return var == n.var && value == n.value ? self : Assign::make(var, value, n.loc);
}
Stmt Mutator::mutate_node(const Store& n, const Stmt& self) {
  Expr p = mutate(n.ptr), i = mutate(n.index), v = mutate(n.value);
  return p == n.ptr && i == n.index && v == n.value ? self : Store::make(p, i, v, n.loc);
}
Stmt Mutator::mutate_node(const AtomicAdd& n, const Stmt& self) {
  Expr p = mutate(n.ptr), i = mutate(n.index), v = mutate(n.value);
  return p == n.ptr && i == n.index && v == n.value ? self : AtomicAdd::make(p, i, v, n.loc);
}
Stmt Mutator::mutate_node(const AtomicFetchAdd& n, const Stmt& self) {
  Expr p = mutate(n.ptr), i = mutate(n.index), v = mutate(n.value);
  return p == n.ptr && i == n.index && v == n.value ? self : AtomicFetchAdd::make(n.result, p, i, v, n.order, n.scope, n.loc);
}
std::optional<LoopUnits> Mutator::mutate_units(const std::optional<LoopUnits>& u) {
  if (!u) return u;
  return LoopUnits{mutate(u->unit), mutate(u->count)};
}
Stmt Mutator::mutate_node(const For& n, const Stmt& self) {
  Expr b = mutate(n.begin), e = mutate(n.end), st = mutate(n.step);
  Stmt body = mutate(n.body);
  std::optional<LoopUnits> u = mutate_units(n.units);
  const bool same_units = !u || (u->unit == n.units->unit && u->count == n.units->count);
  return b == n.begin && e == n.end && st == n.step && body == n.body && same_units ? self : For::make(n.var, b, e, st, body, n.loc, u);
}
Stmt Mutator::mutate_node(const While& n, const Stmt& self) {
  Expr c = mutate(n.cond);
  Stmt body = mutate(n.body);
  std::optional<LoopUnits> u = mutate_units(n.units);
  const bool same_units = !u || (u->unit == n.units->unit && u->count == n.units->count);
  return c == n.cond && body == n.body && same_units ? self : While::make(c, body, n.loc, u);
}
Stmt Mutator::mutate_node(const If& n, const Stmt& self) {
  Expr c = mutate(n.cond);
  Stmt t = mutate(n.then_body), e = mutate(n.else_body);
  return c == n.cond && t == n.then_body && e == n.else_body ? self : If::make(c, t, e, n.loc);
}
Stmt Mutator::mutate_node(const SyncThreads&, const Stmt& self) { return self; }
Stmt Mutator::mutate_node(const ClusterBarrier&, const Stmt& self) { return self; }
Stmt Mutator::mutate_node(const MbarrierInit& n, const Stmt& self) {
  Expr b = mutate(n.bar), i = mutate(n.index);
  return b == n.bar && i == n.index ? self : MbarrierInit::make(b, i, n.arrivals, n.loc);
}
Stmt Mutator::mutate_node(const Fence&, const Stmt& self) { return self; }
Stmt Mutator::mutate_node(const MbarrierArrive& n, const Stmt& self) {
  Expr b = mutate(n.bar), i = mutate(n.index), tx = mutate(n.tx), m = mutate(n.mask);
  return b == n.bar && i == n.index && tx == n.tx && m == n.mask ? self
                                                                  : MbarrierArrive::make(b, i, tx, n.loc, n.order, n.commit_group, m);
}
Stmt Mutator::mutate_node(const MbarrierWait& n, const Stmt& self) {
  Expr b = mutate(n.bar), i = mutate(n.index);
  return b == n.bar && i == n.index ? self : MbarrierWait::make(b, i, n.loc, n.cta_scope);
}
Stmt Mutator::mutate_node(const MbarrierSkip& n, const Stmt& self) {
  Expr b = mutate(n.bar), f = mutate(n.first), c = mutate(n.count);
  return b == n.bar && f == n.first && c == n.count ? self : MbarrierSkip::make(b, f, c, n.loc);
}
Stmt Mutator::mutate_node(const TmaLoad& n, const Stmt& self) {
  Expr t = mutate(n.tmap), d = mutate(n.dst), di = mutate(n.dst_index), b = mutate(n.bar), bi = mutate(n.bar_index),
       m = mutate(n.mask);
  std::vector<Expr> coords = mutate_all(n.coords);
  if (t == n.tmap && coords == n.coords && d == n.dst && di == n.dst_index && b == n.bar && bi == n.bar_index && m == n.mask)
    return self;
  return TmaLoad::make(t, std::move(coords), d, di, b, bi, m, n.loc, n.cta_group);
}
Stmt Mutator::mutate_node(const TmaStore& n, const Stmt& self) {
  Expr t = mutate(n.tmap), s = mutate(n.src), si = mutate(n.src_index);
  std::vector<Expr> coords = mutate_all(n.coords);
  if (t == n.tmap && coords == n.coords && s == n.src && si == n.src_index) return self;
  return TmaStore::make(t, std::move(coords), s, si, n.loc);
}
Stmt Mutator::mutate_node(const TmaPrefetch& n, const Stmt& self) {
  Expr t = mutate(n.tmap);
  std::vector<Expr> coords = mutate_all(n.coords);
  if (t == n.tmap && coords == n.coords) return self;
  return TmaPrefetch::make(t, std::move(coords), n.loc);
}
Stmt Mutator::mutate_node(const BulkGroup&, const Stmt& self) { return self; }
Stmt Mutator::mutate_node(const BulkCopy& n, const Stmt& self) {
  Expr d = mutate(n.dst), di = mutate(n.dst_index), s = mutate(n.src), si = mutate(n.src_index), b = mutate(n.bar),
       bi = mutate(n.bar_index);
  if (d == n.dst && di == n.dst_index && s == n.src && si == n.src_index && b == n.bar && bi == n.bar_index) return self;
  return BulkCopy::make(d, di, s, si, n.bytes, b, bi, n.loc);
}
Stmt Mutator::mutate_node(const StAsync& n, const Stmt& self) {
  Expr d = mutate(n.dst), di = mutate(n.dst_index), v = mutate(n.value), b = mutate(n.bar), bi = mutate(n.bar_index);
  if (d == n.dst && di == n.dst_index && v == n.value && b == n.bar && bi == n.bar_index) return self;
  return StAsync::make(d, di, v, b, bi, n.loc);
}

Stmt Mutator::mutate_node(const ClcTryCancel& n, const Stmt& self) {
  Expr r = mutate(n.response), ri = mutate(n.response_index), b = mutate(n.bar), bi = mutate(n.bar_index);
  if (r == n.response && ri == n.response_index && b == n.bar && bi == n.bar_index) return self;
  return ClcTryCancel::make(r, ri, b, bi, n.multicast, n.loc);
}
Stmt Mutator::mutate_node(const TmemOp& n, const Stmt& self) {
  Expr s = n.slot ? mutate(n.slot) : nullptr, si = n.slot_index ? mutate(n.slot_index) : nullptr, a = n.addr ? mutate(n.addr) : nullptr;
  if (s == n.slot && si == n.slot_index && a == n.addr) return self;
  return TmemOp::make(n.action, n.cta_group, n.columns, s, si, a, n.loc);
}
Stmt Mutator::mutate_node(const Role& n, const Stmt& self) {
  Stmt body = mutate(n.body);
  return body == n.body ? self : Role::make(n.name, n.first, n.count, n.max_regs, n.id, body, n.loc, n.index_var);
}
Stmt Mutator::mutate_node(const NamedBarrier& n, const Stmt& self) {
  Expr id = mutate(n.id);
  return id == n.id ? self : NamedBarrier::make(id, n.threads, n.loc, n.arrive);
}
Stmt Mutator::mutate_node(const Mma& n, const Stmt& self) {
  TileOperand a = n.a_fragment.empty() ? mutate_tile(n.a) : n.a, b = mutate_tile(n.b);
  Expr acc = mutate(n.accumulate), stage = n.acc_stage ? mutate(n.acc_stage) : nullptr;
  if (same(a, n.a) && same(b, n.b) && acc == n.accumulate && stage == n.acc_stage) return self;
  if (!n.a_fragment.empty()) return Mma::make_register_a(n.acc, n.a_fragment, b, acc, n.loc);
  return Mma::make(n.acc, a, b, acc, n.loc, n.k_first, n.k_count, n.cta_group, stage, n.k_steps_first);
}
Stmt Mutator::mutate_node(const MmaWait&, const Stmt& self) { return self; }
Stmt Mutator::mutate_node(const AccStore& n, const Stmt& self) {
  TileOperand dst = mutate_tile(n.dst);
  std::optional<TileOperand> c;
  if (n.c) c = mutate_tile(*n.c);
  Expr epilogue = mutate(n.epilogue), stage = n.acc_stage ? mutate(n.acc_stage) : nullptr;
  if (same(dst, n.dst) && (!n.c || same(*c, *n.c)) && epilogue == n.epilogue && stage == n.acc_stage) return self;
  return AccStore::make(n.acc, dst, c, n.first_col, n.cols, epilogue, n.loc, stage, n.transposed);
}
Stmt Mutator::mutate_node(const FragMap& n, const Stmt& self) {
  Expr v = mutate(n.value);
  return v == n.value ? self : FragMap::make(n.dst, v, n.loc);
}
Stmt Mutator::mutate_node(const RowReduce&, const Stmt& self) { return self; }
Stmt Mutator::mutate_node(const RowStore& n, const Stmt& self) {
  Expr p = mutate(n.ptr), i = mutate(n.index), v = mutate(n.valid);
  return p == n.ptr && i == n.index && v == n.valid ? self : RowStore::make(n.frag, p, i, v, n.loc);
}
Stmt Mutator::mutate_node(const AccPartial& n, const Stmt& self) {
  Expr p = mutate(n.ptr), s = mutate(n.slot), b = mutate(n.bar), bi = mutate(n.bar_index);
  return p == n.ptr && s == n.slot && b == n.bar && bi == n.bar_index ? self
                                                                      : AccPartial::make(n.op, n.acc, p, s, n.loc, n.first_col, n.cols, b, bi);
}
Stmt Mutator::mutate_node(const ForEachTile& n, const Stmt& self) {
  Expr tm = mutate(n.tiles_m), tn = mutate(n.tiles_n), sp = mutate(n.splits);
  Stmt body = mutate(n.body);
  if (tm == n.tiles_m && tn == n.tiles_n && sp == n.splits && body == n.body) return self;
  return ForEachTile::make(n.schedule, tm, tn, n.var_m, n.var_n, body, n.loc, sp, n.var_split);
}

}  // namespace tj::ir
