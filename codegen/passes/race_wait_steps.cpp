// Waits in step with the phases they wait for. wait() keeps one phase bit per thread and
// barrier, so a thread's consecutive waits on a barrier must take consecutive phases.
// Two waits of one thread on the same barrier in one pass of a phase scope (the kernel
// body, or one iteration of a loop), with no arrival on the barrier and no skip_phases
// between them, take two phases in that pass. Where the arrivals on the barrier bring
// one phase per pass (the kernel body's arrivals, once; or loops with the same trip
// range as the waiting loop, one phase per iteration), the second wait takes a phase
// that only the next pass completes: from there on the thread runs a phase behind, and
// with one parity bit a wait two phases behind never completes. Pipeline::acquire or
// wait_full called twice for one iteration is the usual way to get here.
#include <algorithm>
#include <set>

#include "codegen/analysis/barrier_phases.h"
#include "codegen/analysis/conditions.h"
#include "codegen/passes/race_checks.h"
#include "dsl/ir/loops.h"
#include "dsl/ir/printer.h"

namespace tj::codegen::race {
namespace {

using namespace tj::ir;

using Event = BarrierEvent;

// "begin, end, step" of a counted loop; empty for a while loop.
std::string trip_range(const StmtNode* loop) {
  std::optional<LoopView> l = loop ? as_loop(*loop) : std::nullopt;
  if (!l || !l->counted()) return "";
  return to_string(l->begin) + ", " + to_string(l->end) + ", " + to_string(l->step);
}

}  // namespace

std::optional<std::string> one_phase_per_pass(const BarrierPhases& phases, const PhaseScope& waiting, const std::string& name,
                                              std::vector<Loc>& arrivals) {
  const bool body = !waiting.loop;
  const std::string range = trip_range(waiting.loop);
  bool any = false;
  for (const PhaseScope& scope : phases.scopes) {
    ArrivalPhases ap = arrival_phases(scope);
    auto it = ap.find(name);
    if (it == ap.end()) continue;
    any = true;
    for (const Event* e : it->second.front()) arrivals.push_back(e->loc);
    if (it->second.size() > 1) return scope.phase + " brings " + std::to_string(it->second.size()) + " phases of it per pass";
    if (body != !scope.loop) return "its arrivals are in " + scope.phase + ", which runs a different number of times";
    if (!body && scope.loop != waiting.loop && (range.empty() || trip_range(scope.loop) != range))
      return "its arrivals are in " + scope.phase + ", whose trip count is not known to equal this loop's";
  }
  if (!any) return "nothing arrives on it";
  return std::nullopt;
}

namespace {

// Whether the two waits name the same barrier of the array in `rank`, for the threads
// in `threads`: the same index expression, or indices that evaluate to the same value.
bool same_barrier(const Kernel& k, const Defs& defs, const Event& a, const Event& b, unsigned rank,
                  const std::vector<Dim3>& threads) {
  if (to_string(a.index) == to_string(b.index)) return true;
  for (const Dim3& t : threads) {
    EvalEnv env{k.cluster, k.block, rank, t, &a.vars, &defs};
    std::optional<int64_t> i = eval_int(a.index, env), j = eval_int(b.index, env);
    if (i && j && *i == *j) return true;
  }
  return false;
}

bool between(const Event& e, const Event& first, const Event& second) { return e.order > first.order && e.order < second.order; }

class WaitPairs {
 public:
  WaitPairs(const Kernel& k, const BarrierPhases& phases, Findings& out)
      : k_(k), phases_(phases), eval_(k, phases.defs), out_(out) {
    for (const PhaseScope& scope : phases.scopes)
      for (const Event& e : scope.events)
        if (e.kind == Event::Arrive || e.kind == Event::Skip) resets_.push_back(&e);
  }

  void scope(const PhaseScope& s) {
    std::vector<const Event*> waits;
    for (const Event& e : s.events)
      if (e.kind == Event::Wait && !e.barrier.name.empty()) waits.push_back(&e);
    for (size_t i = 0; i < waits.size(); ++i)
      for (size_t j = i + 1; j < waits.size(); ++j)
        if (pair(s, *waits[i], *waits[j])) return;  // one finding per scope
  }

 private:
  // Reports the pair when the second wait certainly takes a second phase in one pass.
  bool pair(const PhaseScope& s, const Event& first, const Event& second) {
    const std::string& name = first.barrier.name;
    if (second.barrier.name != name) return false;
    for (const Event* r : resets_)
      if (r->barrier.name == name && between(*r, first, second)) return false;
    // Does a thread that runs the first wait in a pass run the second in that pass? The
    // conditions that cannot be evaluated (but are the same for the threads concerned)
    // must be ones the first wait runs under too.
    Unknowns unknowns;
    std::vector<int> ids1, ids2;
    auto may_be_unknown = [&](const Event& e) {
      return [&](const Guard& g) { return uniformity(g.expr, k_, *e.loops, &eval_.defs()) != Uniform::Thread; };
    };
    if (unknowns.classify(first.guards, first.vars, eval_, may_be_unknown(first), ids1) ||
        unknowns.classify(second.guards, second.vars, eval_, may_be_unknown(second), ids2))
      return false;  // a condition differs between threads and cannot be evaluated: no claim
    std::set<std::pair<int, bool>> under_first;
    for (size_t c = 0; c < ids1.size(); ++c)
      if (ids1[c] >= 0) under_first.insert({ids1[c], first.guards[c].negated});
    for (size_t c = 0; c < ids2.size(); ++c)
      if (ids2[c] >= 0 && !under_first.count({ids2[c], second.guards[c].negated})) return false;
    for (unsigned rank = 0; rank < k_.cluster.count(); ++rank) {
      std::vector<Dim3> a = eval_.threads_passing(first.guards, ids1, rank, first.vars);
      std::vector<Dim3> b = eval_.threads_passing(second.guards, ids2, rank, second.vars);
      std::vector<Dim3> both;
      for (const Dim3& t : a)
        if (std::find(b.begin(), b.end(), t) != b.end()) both.push_back(t);
      if (both.empty() || !same_barrier(k_, phases_.defs, first, second, rank, both)) continue;
      report(s, first, second, rank);
      return true;
    }
    return false;
  }

  void report(const PhaseScope& s, const Event& first, const Event& second, unsigned rank) {
    const std::string& name = second.barrier.name;
    const std::string pass = s.loop ? "one iteration of " + s.phase : s.phase;
    const std::string subject = "waits on barrier '" + name + "' in " + s.phase;
    std::vector<Loc> arrivals;
    if (std::optional<std::string> why = one_phase_per_pass(phases_, s, name, arrivals)) {
      out_.checks.push_back({RaceCheck::NotChecked, subject,
                             "the waits at " + first.loc.str() + " and " + second.loc.str() +
                                 " take two phases of one barrier in " + pass + ", and whether that many complete is not known: " +
                                 *why});
      return;
    }
    std::string from = "the arrivals at " + arrivals.front().str();
    if (arrivals.size() > 1) from += " and " + std::to_string(arrivals.size() - 1) + " more";
    out_.hazard(k_, subject, {first.loc, second.loc},
                {second.loc,
                 "the wait at " + second.loc.str() + " on barrier '" + name + "' takes a second phase of the barrier the wait at " +
                     first.loc.str() + " took, in " + pass + " and in the same thread (CTA rank " + std::to_string(rank) +
                     "), with no arrival or skip_phases between; " + from + " complete one phase of it per " +
                     (s.loop ? "iteration" : "run") +
                     ": from here the thread waits a phase ahead of the arrivals (the kernel hangs, or a wait returns "
                     "before its data)",
                 "wait once per phase: remove the wait at line " + std::to_string(second.loc.line) + " or the one at line " +
                     std::to_string(first.loc.line) + " (Pipeline::acquire and wait_full each take one phase per iteration)"});
  }

  const Kernel& k_;
  const BarrierPhases& phases_;
  ConditionEval eval_;
  Findings& out_;
  std::vector<const Event*> resets_;  // arrivals and skip_phases, in any scope
};

}  // namespace

void check_wait_steps(const Kernel& k, const BarrierPhases& phases, Findings& out) {
  WaitPairs pairs(k, phases, out);
  for (const PhaseScope& s : phases.scopes) pairs.scope(s);
}

}  // namespace tj::codegen::race
