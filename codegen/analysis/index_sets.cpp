#include "codegen/analysis/index_sets.h"

#include "codegen/analysis/eval.h"

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

}  // namespace tj::codegen
