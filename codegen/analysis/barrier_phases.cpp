#include "codegen/analysis/barrier_phases.h"

#include <algorithm>
#include <set>

#include "codegen/analysis/eval.h"
#include "dsl/ir/loops.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

constexpr int64_t kMaxUnrolled = 64;

bool has_arrive(const Stmt& s) {
  bool found = false;
  for_each_stmt(s, [&](const StmtNode& n) { found |= n.kind == StmtKind::MbarrierArrive; });
  return found;
}

bool has_wait(const Stmt& s) {
  bool found = false;
  for_each_stmt(s, [&](const StmtNode& n) { found |= n.kind == StmtKind::MbarrierWait || n.kind == StmtKind::ClusterBarrier; });
  return found;
}

class Walk {
 public:
  Walk(const Kernel& k, const PhaseRules& rules, BarrierPhases& out)
      : k_(k), rules_(rules), out_(out), scope_(std::make_shared<const LoopScope>()) {
    out_.scopes.push_back({"the kernel body", nullptr, {}, {}});
  }

  void walk(const Stmt& s, size_t scope) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c, scope);
    } else if (const If* i = s->as<If>()) {
      const size_t depth = guards_.size();
      push_guard(guards_, i->cond, false, i->loc);
      walk(i->then_body, scope);
      guards_.resize(depth);
      push_guard(guards_, i->cond, true, i->loc);
      walk(i->else_body, scope);
      guards_.resize(depth);
    } else if (const Role* r = s->as<Role>()) {
      // A warpgroup role runs where its condition on the thread index holds.
      const size_t depth = guards_.size();
      push_guard(guards_, r->condition(), false, r->loc);
      walk(r->body, scope);
      guards_.resize(depth);
    } else if (std::optional<LoopView> l = as_loop(*s)) {
      loop(*l, scope);
    } else if (const MbarrierArrive* a = s->as<MbarrierArrive>()) {
      add(BarrierEvent::Arrive, a->bar, a->index, a->tx, a->mask, a->loc, scope);
    } else if (const TmaLoad* t = s->as<TmaLoad>()) {
      const TensorMapDecl* d = k_.find_tensor_map(t->tmap->as<VarRef>()->name);
      if (d && d->rank == t->coords.size())
        add(BarrierEvent::TmaBox, t->bar, t->bar_index, IntImm::make(Scalar::I64, int64_t(d->box_bytes())), t->mask, t->loc,
            scope, t->cta_group == 2);
    } else if (const BulkCopy* c = s->as<BulkCopy>()) {
      add(BarrierEvent::Copy, c->bar, c->bar_index, IntImm::make(Scalar::I64, c->bytes), nullptr, c->loc, scope);
    } else if (const StAsync* st = s->as<StAsync>()) {
      add(BarrierEvent::Copy, st->bar, st->bar_index, IntImm::make(Scalar::I64, scalar_bytes(st->value->type.scalar)),
          nullptr, st->loc, scope);
    } else if (const AccPartial* p = s->as<AccPartial>(); p && p->op == AccPartialOp::Send) {
      // Each thread of the warpgroup sends its registers of the columns: 16 bytes per 4.
      if (const AccumulatorDecl* a = k_.find_accumulator(p->acc))
        add(BarrierEvent::Copy, p->bar, p->bar_index, IntImm::make(Scalar::I64, int64_t(a->m) * p->col_count(a->n) * 4 / 128), nullptr,
            p->loc, scope);
    } else if (const ClcTryCancel* c = s->as<ClcTryCancel>()) {
      // Its 16-byte answer completes like a TMA box: in the issuing CTA, or (multicast)
      // in every CTA of the cluster.
      const uint32_t all = k_.cluster.count() >= 32 ? ~0u : (1u << k_.cluster.count()) - 1u;
      add(BarrierEvent::TmaBox, c->bar, c->bar_index, IntImm::make(Scalar::I64, 16),
          c->multicast ? IntImm::make(Scalar::U32, all) : nullptr, c->loc, scope);
    } else if (const MbarrierWait* w = s->as<MbarrierWait>()) {
      record({BarrierEvent::Wait, buffer_of(w->bar), w->index, nullptr, nullptr, guards_, vars_, scope_, w->loc}, scope);
    } else if (const MbarrierSkip* sk = s->as<MbarrierSkip>()) {
      record({BarrierEvent::Skip, buffer_of(sk->bar), sk->first, sk->count, nullptr, guards_, vars_, scope_, sk->loc}, scope);
    }
  }

 private:
  // Events on anything but a shared buffer are not barrier events (another check
  // reports them); waits are kept whatever they name.
  void add(BarrierEvent::Kind kind, const Expr& bar, const Expr& index, const Expr& bytes, const Expr& mask, const Loc& loc,
           size_t scope, bool pair = false) {
    BufferRef b = buffer_of(bar);
    if (b.name.empty()) return;
    BarrierEvent e{kind, std::move(b), index, bytes, mask, guards_, vars_, scope_, loc};
    e.pair = pair;
    record(std::move(e), scope);
  }
  void record(BarrierEvent e, size_t scope) {
    e.order = order_++;
    out_.scopes[scope].events.push_back(std::move(e));
  }

  void loop(const LoopView& f, size_t scope) {
    const Defs* defs = &out_.defs;
    if (rules_.unroll_constant_loops || (rules_.unroll_loops_without_arrivals && !has_arrive(f.body))) {
      const EvalEnv env{k_.cluster, k_.block, std::nullopt, std::nullopt, &vars_, defs};
      std::optional<int64_t> b, e, st;
      if (f.counted()) b = eval_int(f.begin, env), e = eval_int(f.end, env), st = eval_int(f.step, env);
      if (b && e && st && *st > 0 && (*e - *b) / *st < kMaxUnrolled && !has_wait(f.body)) {
        set_loop(f.var, Uniform::Cluster);  // bound to each value in turn
        for (int64_t v = *b; v < *e; v += *st) {
          vars_[f.var] = v;
          walk(f.body, scope);
        }
        vars_.erase(f.var);
        LoopScope without = *scope_;
        without.erase(f.var);
        scope_ = std::make_shared<const LoopScope>(std::move(without));
        return;
      }
    }
    const std::shared_ptr<const LoopScope> saved = scope_;
    if (f.counted())
      set_loop(f.var, std::max({uniformity(f.begin, k_, *scope_, defs), uniformity(f.end, k_, *scope_, defs),
                                uniformity(f.step, k_, *scope_, defs)}));
    out_.scopes.push_back({"the loop at " + f.node->loc.str(), f.node, open_, {}});
    open_.push_back(f.node);
    walk(f.body, out_.scopes.size() - 1);
    open_.pop_back();
    scope_ = saved;
  }
  void set_loop(const std::string& var, Uniform u) {
    LoopScope next = *scope_;
    next[var] = u;
    scope_ = std::make_shared<const LoopScope>(std::move(next));
  }

  const Kernel& k_;
  const PhaseRules& rules_;
  BarrierPhases& out_;
  Guards guards_;
  Bindings vars_;
  std::shared_ptr<const LoopScope> scope_;
  std::vector<const StmtNode*> open_;  // the loop scopes being walked, outermost first
  size_t order_ = 0;
};

}  // namespace

BarrierPhases barrier_phases(const Kernel& k, const PhaseRules& rules) {
  BarrierPhases out;
  if (rules.see_through_locals) out.defs = single_assignment_defs(k);
  Walk(k, rules, out).walk(k.body, 0);
  return out;
}

ArrivalPhases arrival_phases(const PhaseScope& scope) {
  ArrivalPhases out;
  std::set<std::string> waited;  // arrays waited on since their last phase opened here
  for (const BarrierEvent& e : scope.events) {
    if (e.kind == BarrierEvent::Wait) waited.insert(e.barrier.name);
    if (e.kind != BarrierEvent::Arrive) continue;
    auto& phases = out[e.barrier.name];
    if (phases.empty() || waited.erase(e.barrier.name)) phases.emplace_back();
    phases.back().push_back(&e);
  }
  return out;
}

}  // namespace tj::codegen
