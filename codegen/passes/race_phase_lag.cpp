// Each thread's waits and skip_phases on a ring of barriers, against the arrivals that
// complete the ring's phases. wait() and skip_phases() move a thread's phase bit of a
// barrier one phase at a time, so a thread's k-th take (a wait, or a phase let pass) of
// barrier b is of b's k-th phase. Where the arrivals complete one phase of the array per
// iteration of a loop with this loop's trip range (one_phase_per_pass), phase k of b
// completes in the arrivals' iteration p_k and the thread takes it in its iteration c_k;
// c_k - p_k is the distance the thread keeps behind the arrivals: 0 for the consumer of a
// full ring, the ring's depth for a producer waiting on 'empty' from its second round. A
// distance that changes means the phase bit slipped: a phase nobody takes (a ping-pong
// warpgroup that does not skip the other's phases), two taken for one (skip_phases with
// a count too large), or another barrier's (skip_phases from the wrong first barrier).
// From there the thread's waits return on another iteration's phase, or hang.
//
// The iterations are walked from the loop's first value, four times the ring's depth
// (at most 64), for the first and last thread of every warp that passes the conditions
// around each wait and arrival. A condition, bound or index that does not evaluate there
// leaves the barrier unchecked (no claim).
#include <algorithm>
#include <map>
#include <set>

#include "codegen/analysis/barrier_phases.h"
#include "codegen/analysis/conditions.h"
#include "codegen/analysis/eval.h"
#include "codegen/passes/race_checks.h"
#include "dsl/ir/loops.h"

namespace tj::codegen::race {
namespace {

using namespace tj::ir;

using Event = BarrierEvent;

// One take of a phase: the walked iteration and the statement.
struct Take {
  int64_t iteration;
  Loc loc;
};

class PhaseLag {
 public:
  PhaseLag(const Kernel& k, const BarrierPhases& phases, Findings& out)
      : k_(k), phases_(phases), eval_(k, phases.defs), out_(out) {}

  void scope(const PhaseScope& s) {
    if (!s.loop) return;
    std::optional<LoopView> l = as_loop(*s.loop);
    if (!l || !l->counted()) return;
    const std::optional<int64_t> begin = const_int(l->begin), step = const_int(l->step);
    if (!begin || !step || *step <= 0) return;
    std::set<std::string> names;
    for (const Event& e : s.events)
      if (e.kind == Event::Wait && !e.barrier.name.empty() && !e.barrier.rank) names.insert(e.barrier.name);
    for (const std::string& name : names) {
      std::vector<Loc> arrivals;
      if (one_phase_per_pass(phases_, s, name, arrivals)) continue;
      barrier(s, *l, *begin, *step, name);
    }
  }

 private:
  // The loop index of the scope holding `e`.
  std::string index_of(const Event& e) const {
    for (const PhaseScope& s : phases_.scopes)
      for (const Event& x : s.events)
        if (&x == &e) {
          std::optional<LoopView> l = s.loop ? as_loop(*s.loop) : std::nullopt;
          return l && l->counted() ? l->var : "";
        }
    return "";
  }

  // The first and last thread of every warp of CTA `rank` that runs `e` with `vars`;
  // nullopt when a condition around it does not evaluate.
  std::optional<std::vector<Dim3>> runners(const Event& e, const Bindings& vars, unsigned rank) {
    for (const Guard& g : e.guards)
      if (!eval_.evaluable(g.expr, vars)) return std::nullopt;
    std::vector<Dim3> out;
    for (const Dim3& t : eval_.threads_passing(e.guards, std::vector<int>(e.guards.size(), -1), rank, vars))
      if (t.x % 32 == 0 || t.x % 32 == 31 || t.x + 1 == k_.block.x) out.push_back(t);
    return out;
  }

  std::optional<int64_t> value(const Expr& e, const Bindings& vars, unsigned rank, const Dim3& t) const {
    return eval_int(e, EvalEnv{k_.cluster, k_.block, rank, t, &vars, &phases_.defs});
  }

  void barrier(const PhaseScope& s, const LoopView& l, int64_t begin, int64_t step, const std::string& name) {
    const SharedBuffer* buf = k_.find_shared(name);
    if (!buf || buf->count == 0) return;
    const int64_t size = int64_t(buf->count), window = std::min<int64_t>(64, 4 * size);
    // The arrivals by scope: each scope brings at most one phase of a barrier per pass
    // (one_phase_per_pass), but two scopes may bring one each.
    std::vector<std::vector<const Event*>> arrives;
    for (const PhaseScope& a : phases_.scopes) {
      std::vector<const Event*> mine;
      for (const Event& e : a.events)
        if (e.kind == Event::Arrive && e.barrier.name == name) {
          if (e.barrier.rank) return;  // a peer's arrivals: not followed here
          mine.push_back(&e);
        }
      if (!mine.empty()) arrives.push_back(std::move(mine));
    }
    for (unsigned rank = 0; rank < k_.cluster.count(); ++rank) {
      // The iterations completing each barrier's phases, in order.
      std::map<int64_t, std::vector<int64_t>> completed;
      for (int64_t i = 0; i < window; ++i)
        for (const std::vector<const Event*>& scope : arrives) {
          std::set<int64_t> now;
          for (const Event* e : scope) {
            Bindings vars = e->vars;
            if (const std::string var = index_of(*e); !var.empty()) vars[var] = begin + step * i;
            std::optional<std::vector<Dim3>> threads = runners(*e, vars, rank);
            if (!threads) return;
            for (const Dim3& t : *threads) {
              std::optional<int64_t> b = value(e->index, vars, rank, t);
              if (!b) return;
              now.insert(((*b % size) + size) % size);
            }
          }
          for (int64_t b : now) completed[b].push_back(i);
        }
      // Each thread's takes of each barrier, in order.
      std::map<unsigned, std::map<int64_t, std::vector<Take>>> taken;
      for (int64_t i = 0; i < window; ++i)
        for (const Event& e : s.events) {
          if ((e.kind != Event::Wait && e.kind != Event::Skip) || e.barrier.name != name) continue;
          Bindings vars = e.vars;
          vars[l.var] = begin + step * i;
          std::optional<std::vector<Dim3>> threads = runners(e, vars, rank);
          if (!threads) return;
          for (const Dim3& t : *threads) {
            std::optional<int64_t> first = value(e.index, vars, rank, t);
            std::optional<int64_t> count = e.kind == Event::Skip ? value(e.bytes, vars, rank, t) : std::optional<int64_t>(1);
            if (!first || !count || *count < 0 || *count > size * window) return;
            for (int64_t c = 0; c < *count; ++c) taken[t.x][(((*first + c) % size) + size) % size].push_back({i, e.loc});
          }
        }
      for (const auto& [thread, barriers] : taken)
        for (const auto& [b, takes] : barriers)
          if (report(s, name, rank, thread, b, takes, completed[b])) return;
      note_distance(s, name, arrives, taken, completed);
    }
  }

  // Where the arrivals on `name` come from one other loop scope, and every thread keeps
  // one distance behind them on every barrier of the array: that distance, for deadlocks().
  void note_distance(const PhaseScope& s, const std::string& name, const std::vector<std::vector<const Event*>>& arrives,
                     const std::map<unsigned, std::map<int64_t, std::vector<Take>>>& taken,
                     std::map<int64_t, std::vector<int64_t>>& completed) {
    if (arrives.size() != 1) return;
    const PhaseScope* from = scope_of(*arrives.front().front());
    if (!from || from == &s || !from->loop) return;
    std::optional<int64_t> distance;
    Loc first_wait;
    for (const auto& [thread, barriers] : taken)
      for (const auto& [b, takes] : barriers) {
        const std::vector<int64_t>& done = completed[b];
        for (size_t k = 0; k < std::min(takes.size(), done.size()); ++k) {
          const int64_t d = takes[k].iteration - done[k];
          if (distance && *distance != d) return;
          if (!distance) first_wait = takes[k].loc;
          distance = d;
        }
      }
    if (distance) distances_.push_back({&s, from, name, *distance, first_wait, arrives.front().front()->loc});
  }

  const PhaseScope* scope_of(const Event& e) const {
    for (const PhaseScope& s : phases_.scopes)
      for (const Event& x : s.events)
        if (&x == &e) return &s;
    return nullptr;
  }

 public:
  // Two loops of one trip range that wait on each other's arrivals: loop A waits on X,
  // whose phases loop B completes, a distance dx behind them; B waits on Y, completed by
  // A, dy behind. A's wait in iteration i needs B's arrival in iteration i - dx, which
  // follows B's wait there for A's arrival in iteration i - dx - dy. With dx + dy < 0, or
  // 0 where each loop waits before it arrives, that is A's own iteration i (or a later
  // one) after its wait: neither loop passes its wait (a deadlock), from the first
  // iteration on (the ring's first round, typically: a producer waiting on 'empty' before
  // any consumer could have released a stage).
  void deadlocks() {
    for (const Distance& x : distances_)
      for (const Distance& y : distances_) {
        if (x.waiting != y.arriving || y.waiting != x.arriving || &x > &y) continue;
        const int64_t sum = x.distance + y.distance;
        if (sum > 0) continue;
        const bool x_waits_first = first_event(*x.waiting, x.barrier, Event::Wait) < first_event(*x.waiting, y.barrier, Event::Arrive);
        const bool y_waits_first = first_event(*y.waiting, y.barrier, Event::Wait) < first_event(*y.waiting, x.barrier, Event::Arrive);
        if (sum == 0 && !(x_waits_first && y_waits_first)) continue;
        out_.hazard(k_, "waits on barrier '" + x.barrier + "' in " + x.waiting->phase, {x.wait, y.wait},
                    {x.wait,
                     "the wait on '" + x.barrier + "' at " + x.wait.str() + " and the wait on '" + y.barrier + "' at " + y.wait.str() +
                         " wait for each other: in " + x.waiting->phase + " the wait takes the phase that the arrive at " +
                         x.arrive.str() + " completes " + std::to_string(x.distance) + " iteration(s) earlier in " +
                         x.arriving->phase + ", and there the wait takes the phase that the arrive at " + y.arrive.str() + " completes " +
                         std::to_string(y.distance) + " iteration(s) earlier; each loop " +
                         (sum < 0 ? "waits for an iteration of the other that is not reached yet"
                                  : "waits before it arrives, so neither passes its first wait") +
                         " (a deadlock)",
                     "let the first round pass: a producer waits on its 'empty' ring only from its second round on "
                     "(if_(it >= stages), as Pipeline::acquire does), since no stage has been released before"});
        return;
      }
  }

 private:
  struct Distance {
    const PhaseScope* waiting;
    const PhaseScope* arriving;
    std::string barrier;
    int64_t distance;
    Loc wait, arrive;
  };
  std::vector<Distance> distances_;

  // The place of the first event of `kind` on `name` in the scope (its size if none).
  static size_t first_event(const PhaseScope& s, const std::string& name, Event::Kind kind) {
    for (size_t i = 0; i < s.events.size(); ++i)
      if (s.events[i].kind == kind && s.events[i].barrier.name == name) return i;
    return s.events.size();
  }

 private:

  bool report(const PhaseScope& s, const std::string& name, unsigned rank, unsigned thread, int64_t b, const std::vector<Take>& takes,
              const std::vector<int64_t>& completed) {
    const size_t n = std::min(takes.size(), completed.size());
    for (size_t k = 1; k < n; ++k) {
      const int64_t before = takes[k - 1].iteration - completed[k - 1], now = takes[k].iteration - completed[k];
      if (before == now) continue;
      const std::string bar = name + "[" + std::to_string(b) + "]";
      auto iteration = [](int64_t i) { return "iteration " + std::to_string(i); };
      out_.hazard(k_, "takes phases of barrier '" + name + "' in " + s.phase, {takes[k].loc},
                  {takes[k].loc,
                   "thread " + std::to_string(thread) + " (CTA rank " + std::to_string(rank) + ") takes the phases of barrier " +
                       bar + " out of step with the arrivals that complete them: it takes phase " + std::to_string(k - 1) +
                       " in " + iteration(takes[k - 1].iteration) + " of " + s.phase + " (at " + takes[k - 1].loc.str() +
                       "), completed in " + iteration(completed[k - 1]) + ", but phase " + std::to_string(k) + " in " +
                       iteration(takes[k].iteration) + " (at " + takes[k].loc.str() + "), completed in " +
                       iteration(completed[k]) + ": its distance behind the arrivals goes from " + std::to_string(before) +
                       " to " + std::to_string(now) + " iterations, so its waits from there return on another iteration's "
                       "phase or hang (counting from the loop's first iteration, 0)",
                   "take every phase once, in step: a wait, or skip_phases(" + name +
                       ", first, count) for exactly the phases this thread does not wait for (the barriers of the "
                       "iterations it leaves to others)"});
      return true;
    }
    return false;
  }

  const Kernel& k_;
  const BarrierPhases& phases_;
  ConditionEval eval_;
  Findings& out_;
};

}  // namespace

void check_phase_lag(const Kernel& k, const BarrierPhases& phases, Findings& out) {
  PhaseLag lag(k, phases, out);
  const size_t errors = out.errors.size();
  for (const PhaseScope& s : phases.scopes) lag.scope(s);
  if (out.errors.size() == errors) lag.deadlocks();
}

}  // namespace tj::codegen::race
