// The shared-memory accesses of a statement, and whether two of them overlap.
#include "codegen/analysis/shared_accesses.h"

#include "dsl/ir/visitor.h"
#include "dsl/ir/loops.h"

namespace tj::codegen {

using namespace tj::ir;

namespace {

Expr i64(int64_t v) { return IntImm::make(Scalar::I64, v); }

// `stage` of an offset written stage * stage_elems + (offset within the stage), as
// the tile operations write it; null when it is not written so.
Expr stage_term(const Expr& e, int64_t stage_elems) {
  const Binary* b = e->as<Binary>();
  if (!b) return nullptr;
  if (b->op == BinOp::Add) return stage_term(b->a, stage_elems);
  if (b->op == BinOp::Mul && const_int(b->b) == stage_elems) return b->a;
  return nullptr;
}

// A tile buffer is indexed by stage; an element offset into it becomes one.
MemAccess ranged(const Kernel& k, BufferRef buf, const Expr& elem_index, uint64_t elems, std::string what, const Loc& loc,
                 AccessView view) {
  MemAccess a{buf, elem_index, std::max<uint64_t>(elems, 1), false, false, true, std::move(what), loc};
  const SharedBuffer* b = k.find_shared(buf.name);
  if (b && b->tile && elem_index && view == AccessView::Race) {
    a.index = stage_term(elem_index, int64_t(b->tile->stage_elems()));
    if (!a.index) a.index = Binary::make(BinOp::Div, Cast::make(Scalar::I64, elem_index), i64(int64_t(b->tile->stage_elems())));
    a.extent = 1;
  }
  return a;
}

MemAccess tile_access(const Kernel& k, const TileOperand& t, bool write, bool async, std::string what, const Loc& loc,
                      AccessView view) {
  MemAccess a{buffer_of(t.tile), t.stage, 1, write, false, async, std::move(what), loc};
  const SharedBuffer* b = k.find_shared(a.buf.name);
  if (view == AccessView::Elements && b && b->tile && t.stage) {  // the stage's elements
    const int64_t n = int64_t(b->tile->stage_elems());
    a.index = Binary::make(BinOp::Mul, Cast::make(Scalar::I64, t.stage), i64(n));
    a.extent = uint64_t(n);
  }
  return a;
}

uint64_t elems_of(const Kernel& k, const BufferRef& buf, uint64_t bytes) {
  const SharedBuffer* b = k.find_shared(buf.name);
  return b ? bytes / std::max(1u, scalar_bytes(b->elem)) : 1;
}

}  // namespace

std::vector<MemAccess> accesses_of(const Kernel& k, const StmtNode& s, AccessView view) {
  std::vector<MemAccess> out;
  std::vector<Expr> exprs;  // whose loads are read
  auto generic = [&](const Expr& ptr, const Expr& index, bool write, bool atomic, const char* what) {
    out.push_back({buffer_of(ptr), index, 1, write, atomic, false, what, s.loc});
  };
  if (const Declare* d = s.as<Declare>()) exprs = {d->init};
  else if (const Assign* a = s.as<Assign>()) exprs = {a->value};
  else if (const Store* st = s.as<Store>()) {
    exprs = {st->index, st->value};
    generic(st->ptr, st->index, true, false, "store");
  } else if (const AtomicAdd* at = s.as<AtomicAdd>()) {
    exprs = {at->index, at->value};
    generic(at->ptr, at->index, true, true, "atomic_add");
  } else if (const If* i = s.as<If>()) exprs = {i->cond};
  else if (std::optional<LoopView> l = as_loop(s)) exprs = l->control_exprs();
  else if (const MbarrierArrive* m = s.as<MbarrierArrive>()) {
    exprs = {m->tx};
    if (view == AccessView::Elements) out.push_back({buffer_of(m->bar), m->index, 1, true, true, false, "arrive", s.loc});
  } else if (const MbarrierWait* w = s.as<MbarrierWait>(); w && view == AccessView::Elements) {
    out.push_back({buffer_of(w->bar), w->index, 1, false, false, false, "wait", s.loc});
  } else if (const MbarrierInit* i = s.as<MbarrierInit>(); i && view == AccessView::Elements) {
    out.push_back({buffer_of(i->bar), i->index, 1, true, false, false, "mbarrier init", s.loc});
  }
  else if (const TmaLoad* t = s.as<TmaLoad>()) {
    exprs = t->coords;
    const TensorMapDecl* d = k.find_tensor_map(t->tmap->as<VarRef>()->name);
    BufferRef dst = buffer_of(t->dst);
    MemAccess a = ranged(k, dst, t->dst_index, d ? elems_of(k, dst, d->box_bytes()) : 1, t->mask ? "multicast TMA load" : "TMA load", s.loc, view);
    a.write = true;
    out.push_back(a);
  } else if (const TmaStore* t = s.as<TmaStore>()) {
    exprs = t->coords;
    const TensorMapDecl* d = k.find_tensor_map(t->tmap->as<VarRef>()->name);
    BufferRef src = buffer_of(t->src);
    out.push_back(ranged(k, src, t->src_index, d ? elems_of(k, src, d->box_bytes()) : 1, "TMA store", s.loc, view));
  } else if (const BulkCopy* c = s.as<BulkCopy>()) {
    out.push_back(ranged(k, buffer_of(c->src), c->src_index, elems_of(k, buffer_of(c->src), c->bytes), "bulk copy", s.loc, view));
    MemAccess w = ranged(k, buffer_of(c->dst), c->dst_index, elems_of(k, buffer_of(c->dst), c->bytes), "bulk copy", s.loc, view);
    w.write = true;
    out.push_back(w);
  } else if (const ClcTryCancel* c = s.as<ClcTryCancel>()) {
    exprs = {c->response_index};
    out.push_back({buffer_of(c->response), c->response_index, 4, true, false, true,
                   c->multicast ? "multicast try_cancel" : "try_cancel", s.loc});
  } else if (const TmemOp* t = s.as<TmemOp>(); t && t->slot) {
    // The allocating warp's write of the address (read after a CTA barrier).
    exprs = {t->slot_index};
    out.push_back({buffer_of(t->slot), t->slot_index, 1, true, false, false, "tmem_alloc", s.loc});
  } else if (const AccPartial* p = s.as<AccPartial>(); p && p->ptr->type.space != Space::Global) {
    // A slot of acc.m x cols f32 (the slot's elements; each thread touches its own 16-byte pieces).
    exprs = {p->slot};
    if (const AccumulatorDecl* a = k.find_accumulator(p->acc)) {
      const int64_t floats = int64_t(a->m) * p->col_count(a->n);
      const Expr first = Binary::make(BinOp::Mul, Cast::make(Scalar::I64, p->slot), IntImm::make(Scalar::I64, floats));
      MemAccess m = ranged(k, buffer_of(p->ptr), first, floats, p->op == AccPartialOp::Send ? "send_accumulator_partial" : "add_accumulator_partial", s.loc, view);
      m.write = p->op == AccPartialOp::Send;
      m.async = p->op == AccPartialOp::Send;
      out.push_back(m);
    }
  } else if (const StAsync* sa = s.as<StAsync>()) {
    exprs = {sa->dst_index, sa->value};
    out.push_back({buffer_of(sa->dst), sa->dst_index, 1, true, false, true, "st_async", s.loc});
  } else if (const Mma* m = s.as<Mma>()) {
    if (m->a_fragment.empty()) out.push_back(tile_access(k, m->a, false, true, "mma", s.loc, view));
    out.push_back(tile_access(k, m->b, false, true, "mma", s.loc, view));
  } else if (const FragMap* f = s.as<FragMap>()) {
    exprs = {f->value};
  } else if (const RowStore* r = s.as<RowStore>()) {
    exprs = {r->index, r->valid};
    generic(r->ptr, r->index, true, false, "store_rows");
  } else if (const AccStore* a = s.as<AccStore>()) {
    exprs = {a->epilogue};
    if (a->c) out.push_back(tile_access(k, *a->c, false, false, "store_accumulator", s.loc, view));
    out.push_back(tile_access(k, a->dst, true, false, "store_accumulator", s.loc, view));
  }
  std::vector<const Load*> loads;
  for (const Expr& e : exprs)
    if (e) loads_in(e, loads);
  for (const Load* l : loads) out.insert(out.begin(), MemAccess{buffer_of(l->ptr), l->index, 1, false, false, false, "load", s.loc});
  // Only shared buffers, and in the race check's view not mbarriers (whose operations are atomic by nature).
  std::erase_if(out, [&](const MemAccess& a) {
    const SharedBuffer* b = a.buf.name.empty() ? nullptr : k.find_shared(a.buf.name);
    return !b || (b->elem == Scalar::MBarrier && view == AccessView::Race);
  });
  return out;
}

bool disjoint(const Kernel& k, const Defs& d, const MemAccess& a, const Bindings& ao, const MemAccess& b, const Bindings& bo,
              const std::vector<Dim3>* sample) {
  if (!a.index || !b.index) return false;
  std::vector<std::string> names;
  var_names(a.index, names);
  var_names(b.index, names);
  for (const std::string& n : names)
    if (!ao.count(n) && !bo.count(n)) return false;  // not a loop index: any value
  std::vector<std::optional<Dim3>> threads = {std::nullopt};
  if (sample) threads.insert(threads.end(), sample->begin(), sample->end());
  else
    for (unsigned x = 0; x < k.block.x; x += 128) threads.push_back(Dim3{x, 0, 0});
  for (int64_t trial = 0; trial < 32; ++trial) {
    Bindings av, bv;
    for (const std::string& n : names) {
      av[n] = trial + (ao.count(n) ? ao.at(n) : 0);
      bv[n] = trial + (bo.count(n) ? bo.at(n) : 0);
    }
    auto values = [&](const MemAccess& m, const Bindings& v) {
      std::vector<int64_t> out;
      for (size_t t = 0; t < threads.size(); ++t) {
        std::optional<int64_t> x = eval_int(m.index, EvalEnv{k.cluster, k.block, std::nullopt, threads[t], &v, &d});
        if (x) out.push_back(*x);
        if (t == 0 && x) break;  // the same in every thread
        if (t > 0 && !x) return std::vector<int64_t>{};
      }
      return out;
    };
    std::vector<int64_t> xs = values(a, av), ys = values(b, bv);
    if (xs.empty() || ys.empty()) return false;
    for (int64_t x : xs)
      for (int64_t y : ys)
        if (x < y + int64_t(b.extent) && y < x + int64_t(a.extent)) return false;
  }
  return true;
}

}  // namespace tj::codegen
