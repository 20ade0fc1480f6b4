#include "codegen/analysis/index_sets.h"

#include "codegen/analysis/eval.h"

#include <numeric>

namespace tj::codegen {

using namespace tj::ir;

namespace {

constexpr size_t kMaxEvaluations = 1 << 16;
constexpr int64_t kMaxTrips = 1024;

class Enumeration {
 public:
  Enumeration(const Kernel& k, const Defs& d, const IndexedAccess& a, unsigned rank, const std::vector<int64_t>& trips)
      : k_(k), d_(d), a_(a), rank_(rank), trips_(trips) {}

  std::optional<std::set<int64_t>> run() {
    // Most indices do not depend on the thread: one evaluation per trip then.
    per_thread_ = !thread_free();
    if (!per_thread_) {
      thread_ = std::nullopt;
      if (!loop(0)) return std::nullopt;
    } else {
      for (unsigned z = 0; z < k_.block.z; ++z)
        for (unsigned y = 0; y < k_.block.y; ++y)
          for (unsigned x = 0; x < k_.block.x; ++x) {
            thread_ = Dim3{x, y, z};
            if (!loop(0)) return std::nullopt;
          }
    }
    return std::move(out_);
  }

 private:
  EvalEnv env() const { return EvalEnv{k_.cluster, k_.block, rank_, thread_, &vars_, &d_}; }

  // Whether the index and the loops' begin and step evaluate without a thread (any
  // trip bound to 0). A bound that does not evaluate either way fails later.
  bool thread_free() {
    thread_ = std::nullopt;
    for (const LoopTrip& l : *a_.loops)
      if (!l.var.empty()) vars_[l.var] = 0;
    bool ok = eval_int(a_.index, env()).has_value();
    for (const LoopTrip& l : *a_.loops)
      ok = ok && (l.var.empty() || (eval_int(l.begin, env()) && eval_int(l.step, env())));
    vars_.clear();
    return ok;
  }

  // Binds loops[i..] in turn; false when the values cannot be known.
  bool loop(size_t i) {
    if (++evaluations_ > kMaxEvaluations) return false;
    if (i == a_.loops->size()) return leaf();
    const LoopTrip& l = (*a_.loops)[i];
    std::optional<int64_t> b, e, st;
    if (!l.var.empty()) b = eval_int(l.begin, env()), e = eval_int(l.end, env()), st = eval_int(l.step, env());
    // A loop whose index cannot be bound is left unbound: an index or a bound that
    // uses it does not evaluate then, a guard that does is taken to hold.
    if (!b || !st || *st <= 0) return loop(i + 1);
    if (i < trips_.size()) {
      const int64_t v = *b + trips_[i] * *st;
      if (e && v >= *e) return true;  // this thread does not run that trip
      vars_[l.var] = v;
      const bool ok = loop(i + 1);
      vars_.erase(l.var);
      return ok;
    }
    if (!e) return loop(i + 1);
    if ((*e - *b) / *st > kMaxTrips) return false;
    for (int64_t v = *b; v < *e; v += *st) {
      vars_[l.var] = v;
      if (!loop(i + 1)) return false;
    }
    vars_.erase(l.var);
    return true;
  }

  bool leaf() {
    if (per_thread_ ? !may_pass(k_, d_, *a_.guards, rank_, *thread_, &vars_) : !may_run(k_, d_, *a_.guards, rank_, &vars_))
      return true;
    std::optional<int64_t> v = eval_int(a_.index, env());
    if (!v) return false;
    for (uint64_t x = 0; x < a_.extent; ++x) out_.insert(*v + int64_t(x));
    return true;
  }

  const Kernel& k_;
  const Defs& d_;
  const IndexedAccess& a_;
  unsigned rank_;
  const std::vector<int64_t>& trips_;
  bool per_thread_ = false;
  std::optional<Dim3> thread_;
  Bindings vars_;
  std::set<int64_t> out_;
  size_t evaluations_ = 0;
};

}  // namespace

std::optional<std::set<int64_t>> index_values(const Kernel& k, const Defs& d, const IndexedAccess& a, unsigned rank,
                                              const std::vector<int64_t>& trips) {
  if (!a.index || a.extent > 4096) return std::nullopt;
  return Enumeration(k, d, a, rank, trips).run();
}

std::optional<int64_t> constant_trips(const Kernel& k, const Defs& d, const LoopTrip& l) {
  if (l.var.empty()) return std::nullopt;
  const EvalEnv env{k.cluster, k.block, std::nullopt, std::nullopt, nullptr, &d};
  std::optional<int64_t> b = eval_int(l.begin, env), e = eval_int(l.end, env), st = eval_int(l.step, env);
  if (!b || !e || !st || *st <= 0) return std::nullopt;
  return *e > *b ? (*e - *b + *st - 1) / *st : 0;
}

namespace {

// How an expression depends on one loop index, seeing through single-assignment locals.
class Periodicity {
 public:
  Periodicity(const Kernel& k, const Defs& d, const std::string& var, int64_t step)
      : d_(d), var_(var), step_(step), env_{k.cluster, k.block, std::nullopt, std::nullopt, nullptr, &d} {}

  // The period in trips, 1 when `e` does not use the index; nullopt when not periodic.
  std::optional<int64_t> period(const Expr& e, int depth = 0) {
    if (!e || depth > 32) return e ? std::nullopt : std::optional<int64_t>(1);
    if (const auto* v = e->as<VarRef>()) {
      if (v->name == var_) return std::nullopt;
      auto f = d_.find(v->name);
      return f == d_.end() ? 1 : period(f->second, depth + 1);
    }
    if (const auto* b = e->as<Binary>(); b && b->op == BinOp::Mod) {
      std::optional<int64_t> m = eval_int(b->b, env_);
      std::optional<int64_t> c = coefficient(b->a, depth);
      if (m && *m > 0 && c && *c >= 0) return *c == 0 ? 1 : *m / std::gcd(*m, *c * step_);
    }
    std::optional<int64_t> p = 1;
    auto join = [&](const Expr& x) {
      std::optional<int64_t> q = p ? period(x, depth + 1) : std::nullopt;
      p = q ? std::optional<int64_t>(std::lcm(*p, *q)) : std::nullopt;
      if (p && *p > 64) p = std::nullopt;
    };
    if (const auto* u = e->as<Unary>()) join(u->a);
    else if (const auto* b = e->as<Binary>()) join(b->a), join(b->b);
    else if (const auto* c = e->as<Cast>()) join(c->a);
    else if (const auto* s = e->as<Select>()) join(s->cond), join(s->a), join(s->b);
    else if (const auto* m = e->as<MapSharedRank>()) join(m->buffer), join(m->rank);
    else if (const auto* l = e->as<Load>()) join(l->ptr), join(l->index);
    else if (const auto* v = e->as<VectorPack>()) for (const Expr& x : v->lanes) join(x);
    else if (const auto* v = e->as<VectorLane>()) join(v->vec);
    else if (const auto* in = e->as<Intrinsic>()) for (const Expr& x : in->args) join(x);
    return p;
  }

 private:
  // c when e = c * index + (terms without the index, none negative); nullopt otherwise.
  std::optional<int64_t> coefficient(const Expr& e, int depth) {
    if (depth > 32) return std::nullopt;
    if (const auto* v = e->as<VarRef>()) {
      if (v->name == var_) return 1;
      auto f = d_.find(v->name);
      if (f != d_.end()) return coefficient(f->second, depth + 1);
    }
    if (const auto* b = e->as<Binary>()) {
      if (b->op == BinOp::Add) {
        std::optional<int64_t> x = coefficient(b->a, depth + 1), y = coefficient(b->b, depth + 1);
        return x && y ? std::optional<int64_t>(*x + *y) : std::nullopt;
      }
      if (b->op == BinOp::Mul) {
        std::optional<int64_t> ka = eval_int(b->a, env_), kb = eval_int(b->b, env_);
        if (kb && *kb >= 0) { std::optional<int64_t> x = coefficient(b->a, depth + 1); return x ? std::optional<int64_t>(*x * *kb) : std::nullopt; }
        if (ka && *ka >= 0) { std::optional<int64_t> y = coefficient(b->b, depth + 1); return y ? std::optional<int64_t>(*ka * *y) : std::nullopt; }
      }
    }
    // A term without the index: it must not be negative (C's % keeps the dividend's sign).
    std::optional<int64_t> p = period(e, depth + 1);
    return p && *p == 1 && never_negative(e, depth) ? std::optional<int64_t>(0) : std::nullopt;
  }

  bool never_negative(const Expr& e, int depth) {
    if (depth > 32) return false;
    if (std::optional<int64_t> v = eval_int(e, env_)) return *v >= 0;
    if (e->as<SpecialReg>() || e->type.scalar == Scalar::U32 || e->type.scalar == Scalar::U64) return true;
    if (const auto* v = e->as<VarRef>()) {
      auto f = d_.find(v->name);
      return f != d_.end() && never_negative(f->second, depth + 1);
    }
    if (const auto* b = e->as<Binary>())
      switch (b->op) {
        case BinOp::Add: case BinOp::Mul: case BinOp::Div: case BinOp::Mod:
          return never_negative(b->a, depth + 1) && never_negative(b->b, depth + 1);
        default: return false;
      }
    return false;
  }

  const Defs& d_;
  const std::string& var_;
  const int64_t step_;
  const EvalEnv env_;
};

}  // namespace

std::optional<int64_t> trip_period(const Kernel& k, const Defs& d, const IndexedAccess& a, const LoopTrip& l) {
  if (l.var.empty()) return std::nullopt;
  const EvalEnv env{k.cluster, k.block, std::nullopt, std::nullopt, nullptr, &d};
  std::optional<int64_t> b = eval_int(l.begin, env), st = eval_int(l.step, env);
  if (!b || *b < 0 || !st || *st <= 0) return std::nullopt;
  Periodicity p(k, d, l.var, *st);
  std::optional<int64_t> out = p.period(a.index);
  if (a.guards)
    for (const Guard& g : *a.guards) {
      std::optional<int64_t> q = out ? p.period(g.expr) : std::nullopt;
      out = q ? std::optional<int64_t>(std::lcm(*out, *q)) : std::nullopt;
    }
  return out && *out <= 64 ? out : std::nullopt;
}

}  // namespace tj::codegen
