// mbarrier arrivals, accounted like transaction bytes (verify_transactions.h) on the
// barrier-phase model (codegen/analysis/barrier_phases.h), with loops of constant
// bounds and no wait inside unrolled into the phase around them (a release to every
// peer, say). Per CTA rank the arrivals a phase brings must be 0 (no phase there) or
// the barrier's count. Conditions that cannot be evaluated but are the same for the
// threads concerned are unknown truth values, tried both ways; what still cannot be
// decided is reported as not checked.
#include <algorithm>

#include "codegen/analysis/barrier_phases.h"
#include "codegen/analysis/conditions.h"
#include "codegen/passes/race_arrival_passes.h"
#include "codegen/passes/race_checks.h"
#include "dsl/ir/printer.h"

namespace tj::codegen::race {
namespace {

using namespace tj::ir;

using Event = BarrierEvent;

// One barrier's arrivals in one phase: the unknown conditions and the count per rank.
using Counts = std::map<std::pair<unsigned, int64_t>, uint64_t>;

class Phase {
 public:
  Phase(const Kernel& k, ConditionEval& eval, const std::vector<const Event*>& events)
      : k_(k), eval_(eval), events_(events) {}

  std::optional<std::string> prepare() {
    for (const Event* e : events_) {
      auto may_be_unknown = [&](const Guard& g) { return uniformity(g.expr, k_, *e->loops, &eval_.defs()) != Uniform::Thread; };
      if (std::optional<size_t> c = unknowns_.classify(e->guards, e->vars, eval_, may_be_unknown, unknown_.emplace_back()))
        return "the condition " + ir::to_string(e->guards[*c].expr) + " of the arrive at " + e->loc.str() +
               " cannot be evaluated before run time and may differ between threads";
    }
    if (unknowns_.too_many())
      return "it depends on " + std::to_string(unknowns_.size()) + " conditions that cannot be evaluated before run time";
    // What each event brings when it runs: the unknowns only decide whether it does.
    for (size_t i = 0; i < events_.size(); ++i)
      if (std::optional<std::string> why = contribute(i, contrib_.emplace_back())) return why;
    return std::nullopt;
  }
  const Unknowns& unknowns() const { return unknowns_; }

  // Arrivals per (rank, barrier index; -1: not known) when unknown i is bit i of `bits`.
  void count(uint32_t bits, Counts& per_rank) const {
    per_rank.clear();
    for (size_t i = 0; i < events_.size(); ++i)
      if (Unknowns::hold(events_[i]->guards, unknown_[i], bits))
        for (const auto& [at, n] : contrib_[i]) per_rank[at] += n;
  }

 private:
  std::optional<std::string> contribute(size_t i, Counts& out) {
    const Event& e = *events_[i];
    const unsigned n = k_.cluster.count();
    for (unsigned s = 0; s < n; ++s)
      for (const Dim3& t : eval_.threads_passing(e.guards, unknown_[i], s, e.vars)) {
        EvalEnv env{k_.cluster, k_.block, s, t, &e.vars, &eval_.defs()};
        std::optional<int64_t> idx = eval_int(e.index, env);
        if (e.mask) {
          // A commit's multicast: one arrival on the barrier in each CTA of the mask.
          std::optional<int64_t> m = eval_int(e.mask, env);
          if (!m)
            return "the multicast mask " + ir::to_string(e.mask) + " of the commit at " + e.loc.str() +
                   " is not known before run time";
          for (unsigned c = 0; c < n && c < 16; ++c)
            if ((uint64_t(*m) >> c) & 1) ++out[{c, idx ? *idx : -1}];
          continue;
        }
        int64_t to = s;
        if (e.barrier.rank) {
          std::optional<int64_t> r = eval_int(e.barrier.rank, env);
          if (!r || *r < 0 || *r >= int64_t(n))
            return "the CTA rank " + ir::to_string(e.barrier.rank) + " the arrive at " + e.loc.str() +
                   (r ? " reaches is outside the cluster" : " reaches is not known before run time");
          to = *r;
        }
        ++out[{unsigned(to), idx ? *idx : -1}];
      }
    return std::nullopt;
  }

  const Kernel& k_;
  ConditionEval& eval_;
  const std::vector<const Event*>& events_;
  Unknowns unknowns_;
  std::vector<std::vector<int>> unknown_;  // per event, per guard: the unknown's index, or -1
  std::vector<Counts> contrib_;            // per event
};

void note(Findings& out, RaceCheck c) {
  for (const RaceCheck& d : out.checks)
    if (d.subject == c.subject && d.detail == c.detail && d.outcome == c.outcome) return;
  out.checks.push_back(std::move(c));
}

void check_phase(const Kernel& k, ConditionEval& eval, const PhaseScope& scope, const std::string& key,
                 const std::vector<const Event*>& events, Findings& out) {
  const SharedBuffer* buf = k.find_shared(key);
  if (!buf) return;
  const uint64_t want = buf->arrivals;
  const std::string subject = "arrivals on barrier '" + key + "' in " + scope.phase;
  // Where the counts per phase below cannot decide, counted pass by pass.
  auto by_passes = [&]() -> bool {
    std::optional<PassCounts> c = count_by_passes(k, eval.defs(), eval, scope, events, want);
    if (!c) return false;
    if (c->ok) {
      note(out, {RaceCheck::Verified, subject, std::to_string(want) + " per phase, counted over " + c->passes});
      return true;
    }
    const std::string name = key + "[" + std::to_string(c->index) + "]";
    std::vector<Loc> locs;
    for (const Event* e : events) locs.push_back(e->loc);
    out.hazard(k, subject, locs,
               {events.front()->loc,
                "barrier '" + name + "' receives " + std::to_string(c->got) + " arrivals in CTA rank " + std::to_string(c->rank) +
                    " in " + c->pass + ", but it completes a phase after " + std::to_string(want) + " (mbarriers at " +
                    buf->loc.str() + "): " +
                    (c->got < want ? "a wait on that phase never completes (the kernel hangs)"
                                   : "the extra arrivals complete the next phase early, releasing its waiters before their data"),
                "make each pass bring exactly " + std::to_string(want) + " arrivals to the barrier it reaches: declare '" + key +
                    "' with " + std::to_string(c->got) + " arrivals, or change which threads arrive, or on which barrier"});
    return true;
  };
  Phase p(k, eval, events);
  if (std::optional<std::string> why = p.prepare()) {
    if (!by_passes()) note(out, {RaceCheck::NotChecked, subject, *why});
    return;
  }
  unsigned good = 0;
  std::optional<Counts> bad;
  uint32_t bad_bits = 0;
  p.unknowns().for_each_combination([&](uint32_t bits) {
    Counts n;
    p.count(bits, n);
    bool active = false, ok = true;
    for (const auto& [at, a] : n) active |= a > 0, ok &= a == 0 || a == want;
    if (active && ok) ++good;
    if (active && !ok && !bad) bad = n, bad_bits = bits;
    return true;
  });
  if (!bad) {
    if (good) note(out, {RaceCheck::Verified, subject, std::to_string(want) + " per phase"});
    return;
  }
  // A wrong count on a known barrier with nothing left unknown stands as it is; an
  // unknown barrier index (a ring's) or condition is counted again pass by pass.
  const bool certain = !p.unknowns().size() && std::none_of(bad->begin(), bad->end(), [&](const auto& c) {
    return c.first.second < 0 && c.second != 0 && c.second != want;
  });
  if (!certain && by_passes()) return;
  const std::string when = p.unknowns().size() ? " when " + p.unknowns().values(bad_bits) : "";
  if (good) {
    note(out, {RaceCheck::NotChecked, subject,
                          "the arrivals match the count for some values of the run-time conditions and not" + when});
    return;
  }
  unsigned r = 0;
  int64_t idx = -1;
  uint64_t got = 0;
  for (const auto& [at, a] : *bad)
    if (a != 0 && a != want) {
      r = at.first, idx = at.second, got = a;
      break;
    }
  const std::string name = key + (idx >= 0 ? "[" + std::to_string(idx) + "]" : "");
  std::vector<Loc> locs;
  for (const Event* e : events) locs.push_back(e->loc);
  out.hazard(k, subject, locs,
             {events.front()->loc,
              "barrier '" + name + "' receives " + std::to_string(got) + " arrivals per phase in CTA rank " + std::to_string(r) +
                  " in " + scope.phase + when + ", but it completes a phase after " + std::to_string(want) +
                  " (mbarriers at " + buf->loc.str() + "): " +
                  (got < want ? "a wait on that phase never completes (the kernel hangs)"
                              : "the extra arrivals complete the next phase early, releasing its waiters before their data"),
              "make one phase receive exactly " + std::to_string(want) + " arrivals in every CTA: declare '" + key +
                  "' with " + std::to_string(got) + " arrivals, or change which threads arrive (" + std::to_string(got) +
                  " arrivals reach it in CTA rank " + std::to_string(r) + " now)"});
}

// A wait in a CTA that no arrive can reach never completes.
void check_waits(const Kernel& k, const BarrierPhases& phases, Findings& out) {
  const Defs& defs = phases.defs;
  std::map<std::string, uint32_t> reached;  // per barrier buffer: ranks some arrive may reach
  std::vector<const Event*> waits;
  for (const PhaseScope& scope : phases.scopes)
    for (const Event& e : scope.events) {
      if (e.kind == Event::Wait) waits.push_back(&e);
      if (e.kind != Event::Arrive) continue;
      for (unsigned s = 0; s < k.cluster.count(); ++s) {
        if (!may_run(k, defs, e.guards, s, &e.vars)) continue;
        if (e.mask) {  // a commit's multicast: the mask's CTAs (all, where it cannot be evaluated)
          EvalEnv env{k.cluster, k.block, s, std::nullopt, &e.vars, &defs};
          std::optional<int64_t> m = eval_int(e.mask, env);
          reached[e.barrier.name] |= m ? uint32_t(*m) & 0xffffu : ~0u;
          continue;
        }
        reached[e.barrier.name] |= e.barrier.rank ? ranks_named(k, defs, e.barrier.rank, e.guards, s, &e.vars) : 1u << s;
      }
    }
  // In the order the walk met them.
  std::sort(waits.begin(), waits.end(), [](const Event* a, const Event* b) { return a->order < b->order; });
  for (const Event* w : waits)
    for (unsigned s = 0; s < k.cluster.count(); ++s) {
      const std::string& name = w->barrier.name;
      if (!may_run(k, defs, w->guards, s, &w->vars) || ((reached[name] >> s) & 1u)) continue;
      out.hazard(k, "waits on barrier '" + name + "'", {w->loc},
                 {w->loc,
                  "the wait at " + w->loc.str() + " on barrier '" + name + "' never completes in CTA rank " + std::to_string(s) +
                      ": nothing arrives on '" + name + "' in that CTA (copies complete bytes, not arrivals)",
                  "arrive on it (arrive or arrive_expect_tx) in CTA rank " + std::to_string(s) + ", or do not wait there"});
      break;
    }
}

}  // namespace

void check_arrivals(const Kernel& k, Findings& out) {
  const BarrierPhases phases = barrier_phases(k, PhaseRules{.unroll_constant_loops = true, .see_through_locals = true});
  ConditionEval eval(k, phases.defs);
  for (const PhaseScope& scope : phases.scopes)
    for (const auto& [key, arrivals] : arrival_phases(scope))
      for (const std::vector<const Event*>& events : arrivals) check_phase(k, eval, scope, key, events, out);
  check_waits(k, phases, out);
  const size_t errors = out.errors.size();
  check_wait_steps(k, phases, out);
  if (out.errors.size() == errors) check_phase_lag(k, phases, out);  // two waits in one pass slip the phases too
}

}  // namespace tj::codegen::race
