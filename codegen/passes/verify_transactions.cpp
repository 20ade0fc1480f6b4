#include "codegen/passes/verify_transactions.h"

#include <map>
#include <optional>

#include "codegen/analysis/barrier_phases.h"
#include "codegen/analysis/conditions.h"
#include "codegen/analysis/eval.h"
#include "dsl/ir/printer.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

using Event = BarrierEvent;

// The events that announce or deliver bytes, per barrier: each barrier of an array has
// its own phases, so a constant index names one ("full[0]"); a run-time index (a
// pipeline stage) stands for any of them ("full").
std::map<std::string, std::vector<const Event*>> by_barrier(const PhaseScope& scope) {
  std::map<std::string, std::vector<const Event*>> out;
  for (const Event& e : scope.events) {
    if (e.kind == Event::Wait || e.kind == Event::Skip || (e.kind == Event::Arrive && !e.bytes)) continue;
    std::string name = e.barrier.name;
    if (std::optional<int64_t> i = const_int(e.index)) name += "[" + std::to_string(*i) + "]";
    out[name].push_back(&e);
  }
  return out;
}

const char* what(const Event& e) {
  switch (e.kind) {
    case Event::Arrive: return "arrive_expect_tx";
    case Event::TmaBox: return "TMA load";
    case Event::Copy: return "copy";
    case Event::Wait:
    case Event::Skip: break;
  }
  return "?";
}

struct Totals {
  std::vector<uint64_t> expected, landed;
  bool any = false;  // some event runs in some CTA
};

// Accounts one barrier's events: the conditions that cannot be evaluated are
// unknowns, tried with every combination of values.
class Barrier {
 public:
  Barrier(const Kernel& k, ConditionEval& eval, const std::vector<const Event*>& events)
      : k_(k), eval_(eval), events_(events) {}

  // Why the accounting cannot be decided, or nothing when it can: sets up the unknowns.
  std::optional<std::string> prepare() {
    bool crosses = false;
    for (const Event* e : events_) crosses |= e->mask || e->barrier.rank;
    const Uniform needed = crosses ? Uniform::Cluster : Uniform::Cta;
    for (const Event* e : events_) {
      Uniform u = Uniform::Cluster;
      auto may_be_unknown = [&](const Guard& g) { return (u = uniformity(g.expr, k_, *e->loops)) <= needed; };
      if (std::optional<size_t> c = unknowns_.classify(e->guards, e->vars, eval_, may_be_unknown, unknown_.emplace_back())) {
        const Guard& g = e->guards[*c];
        return "the condition " + ir::to_string(g.expr) + " (if_ at " + g.loc.str() + ") cannot be evaluated before run time and may differ between " +
               (u == Uniform::Thread ? "the threads of a CTA" : "the CTAs of the cluster");
      }
    }
    if (unknowns_.too_many())
      return "it depends on " + std::to_string(unknowns_.size()) + " conditions that cannot be evaluated before run time (at most " +
             std::to_string(kMaxUnknowns) + " are tried)";
    const unsigned n = k_.cluster.count();
    for (size_t i = 0; i < events_.size(); ++i)
      for (unsigned r = 0; r < n; ++r)
        threads_.push_back(eval_.threads_passing(events_[i]->guards, unknown_[i], r, events_[i]->vars).size());
    return std::nullopt;
  }

  const Unknowns& unknowns() const { return unknowns_; }

  // The totals per rank when unknown i has the value of bit i of `bits`; a reason when
  // a byte count, mask or rank cannot be evaluated.
  std::optional<std::string> account(uint32_t bits, Totals& t) const {
    const unsigned n = k_.cluster.count();
    t.expected.assign(n, 0);
    t.landed.assign(n, 0);
    for (size_t i = 0; i < events_.size(); ++i) {
      const Event& e = *events_[i];
      if (!Unknowns::hold(e.guards, unknown_[i], bits)) continue;
      for (unsigned s = 0; s < n; ++s) {
        const uint64_t threads = threads_[i * n + s];
        if (threads == 0) continue;
        t.any = true;
        EvalEnv env{k_.cluster, k_.block, s, std::nullopt, &e.vars};
        std::optional<int64_t> amount = eval_int(e.bytes, env);
        if (!amount)
          return "the byte count " + ir::to_string(e.bytes) + " of the " + what(e) + " at " + e.loc.str() +
                 " is not known before run time";
        const uint64_t bytes = threads * static_cast<uint64_t>(*amount);
        std::vector<unsigned> receivers;
        if (e.kind == Event::TmaBox && e.mask) {
          std::optional<int64_t> m = eval_int(e.mask, env);
          if (!m)
            return "the multicast mask " + ir::to_string(e.mask) + " of the TMA load at " + e.loc.str() +
                   " is not known before run time";
          for (unsigned c = 0; c < n && c < 32; ++c)
            if ((static_cast<uint64_t>(*m) >> c) & 1) receivers.push_back(c);
        } else if (e.barrier.rank) {
          std::optional<int64_t> r = eval_int(e.barrier.rank, env);
          if (!r || *r < 0 || *r >= int64_t(n))
            return "the CTA rank " + ir::to_string(e.barrier.rank) + " whose barrier the " + what(e) + " at " + e.loc.str() +
                   (r ? " reaches is outside the cluster" : " reaches is not known before run time");
          receivers.push_back(static_cast<unsigned>(*r));
        } else {
          receivers.push_back(s);
        }
        // A pair load (.cta_group::2) completes on each receiver's pair leader, the even CTA.
        if (e.pair)
          for (unsigned& c : receivers) c &= ~1u;
        for (unsigned c : receivers) (e.kind == Event::Arrive ? t.expected : t.landed)[c] += bytes;
      }
    }
    return std::nullopt;
  }

 private:
  const Kernel& k_;
  ConditionEval& eval_;
  const std::vector<const Event*>& events_;
  Unknowns unknowns_;
  std::vector<std::vector<int>> unknown_;  // per event, per condition: the unknown's index, or -1
  std::vector<uint64_t> threads_;          // per event and rank: threads past the evaluable conditions
};

Diagnostic mismatch(const Kernel& k, const PhaseScope& scope, const std::string& name, const std::vector<const Event*>& events,
                    const Totals& t, const std::string& when) {
  const Event* first_expect = nullptr;
  const Event* first_copy = nullptr;
  bool pair = false;
  for (const Event* e : events) {
    pair |= e->pair;
    if (e->kind == Event::Arrive && !first_expect) first_expect = e;
    if (e->kind != Event::Arrive && !first_copy) first_copy = e;
  }
  unsigned r = 0;
  while (t.expected[r] == t.landed[r]) ++r;
  const Event* at = first_expect ? first_expect : first_copy;
  std::string where = first_expect ? " (arrive_expect_tx at " + first_expect->loc.str() + ")" : "";
  std::string copies = first_copy ? " (first copy at " + first_copy->loc.str() + ")" : "";
  if (!first_expect && scope.phase != "the kernel body")
    return {at->loc,
            "transaction bytes of barrier '" + name + "' do not match in CTA rank " + std::to_string(r) +
                (when.empty() ? "" : " when " + when) + ": " + scope.phase + " delivers " + std::to_string(t.landed[r]) +
                " bytes per iteration" + copies + " and announces none: each iteration of a loop is a phase of its own, "
                "unless the loop has a constant trip count (under 64) and no arrive or wait inside, which makes it part of the phase around it",
            "announce the bytes inside the loop (arrive_expect_tx each iteration), or give the loop a constant trip count so "
            "that the expect_tx before it covers every trip"};
  return {at->loc,
          "transaction bytes of barrier '" + name + "' do not match in CTA rank " + std::to_string(r) +
              (when.empty() ? "" : " when " + when) + ": " + std::to_string(t.expected[r]) +
              " bytes announced with expect_tx" + where + ", " + std::to_string(t.landed[r]) +
              " bytes delivered by the copies completing on it" + copies,
          pair ? "tma_load_pair's boxes complete on the even CTA of each pair: the leader announces the bytes of both "
                 "CTAs (if_(cluster_ctarank() % 2 == 0, ...)) and the odd CTA none"
          : t.landed[r] > t.expected[r] && first_copy
              ? "announce box bytes x copies x multicast senders into this CTA; a copy issued by every "
                "thread is issued " + std::to_string(k.block.count()) + " times: guard it with if_(thread_idx_x() == 0, ...)"
              : "announce exactly the bytes that land in this CTA per phase, or add the missing copies"};
}

// Checks one barrier in one phase: an error, or what was concluded.
std::optional<Diagnostic> check_barrier(const Kernel& k, ConditionEval& eval, const PhaseScope& scope, const std::string& name,
                                        const std::vector<const Event*>& events, TransactionCheck& out) {
  Barrier b(k, eval, events);
  if (std::optional<std::string> why = b.prepare()) {
    out.reason = *why;
    return std::nullopt;
  }
  // Every combination of the unknowns' values, all true first. One where no event
  // runs anywhere is no phase of this barrier.
  unsigned balanced = 0;
  std::optional<Totals> bad;
  uint32_t bad_bits = 0;
  std::optional<std::string> undecided;
  b.unknowns().for_each_combination([&](uint32_t bits) {
    Totals t;
    if ((undecided = b.account(bits, t))) return false;
    if (t.any && t.expected == t.landed) ++balanced;
    if (t.any && t.expected != t.landed && !bad) bad = t, bad_bits = bits;
    return true;
  });
  if (undecided) {
    out.reason = *undecided;
    return std::nullopt;
  }
  if (!bad) {
    out.verified = true;
    return std::nullopt;
  }
  if (balanced > 0) {
    out.reason = "the bytes match for some values of " + b.unknowns().list() + " and not for others (they differ when " +
                 b.unknowns().values(bad_bits) + "), and these cannot be evaluated before run time";
    return std::nullopt;
  }
  return mismatch(k, scope, name, events, *bad, b.unknowns().values(bad_bits));
}

}  // namespace

TransactionReport account_transactions(const Kernel& k) {
  TransactionReport out;
  // A loop is a phase of its own, unless it only delivers bytes (no arrive, no wait) and
  // its trip count is a constant: then its trips are part of the phase around it, whose
  // expect_tx announces them. A local declared once and never assigned is seen through
  // (a split that is the CTA's rank in its cluster, say); it counts only where its
  // definition evaluates.
  const BarrierPhases phases = barrier_phases(k, PhaseRules{.unroll_loops_without_arrivals = true, .see_through_locals = true});
  ConditionEval eval(k, phases.defs);
  for (const PhaseScope& scope : phases.scopes) {
    for (const auto& [name, events] : by_barrier(scope)) {
      TransactionCheck check{name, scope.phase, false, ""};
      if (std::optional<Diagnostic> d = check_barrier(k, eval, scope, name, events, check)) out.errors.push_back(std::move(*d));
      else out.checks.push_back(std::move(check));
    }
  }
  return out;
}

std::vector<Diagnostic> verify_transactions(const Kernel& k, const Target&) { return account_transactions(k).errors; }

std::string to_string(const TransactionCheck& c) {
  return "barrier '" + c.barrier + "' in " + c.phase + ": " + (c.verified ? "verified" : "not verified: " + c.reason);
}

}  // namespace tj::codegen
