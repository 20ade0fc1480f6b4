#include "codegen/passes/verify_transactions.h"

#include <algorithm>
#include <map>
#include <optional>

#include "codegen/analysis/eval.h"
#include "codegen/analysis/uniformity.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/loops.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// At most this many conditions that cannot be evaluated are tried both ways (2^n cases).
constexpr size_t kMaxUnknowns = 6;

// One conjunct of the conditions a statement runs under: `expr`, or its negation.
struct Cond {
  Expr expr;
  bool negated = false;
  Uniform uniform = Uniform::Thread;
  Loc loc;  // the if_ it belongs to
};

// One operation that announces or delivers transaction bytes.
struct Event {
  enum Kind { Expect, TmaBox, PeerCopy } kind;
  Expr amount;       // bytes (Expect: tx); for copies a constant
  Expr target_rank;  // the CTA whose barrier it reaches; null: the issuing CTA
  Expr mask;         // TmaBox with multicast
  std::vector<Cond> conds;
  Loc loc;
};

struct Region {
  std::string phase;
  std::map<std::string, std::vector<Event>> by_barrier;
};

// The buffer name of a barrier, seen locally or through map_shared_rank.
std::string barrier_name(const Expr& bar, Expr* mapped_rank) {
  Expr base = bar;
  if (const MapSharedRank* m = bar->as<MapSharedRank>()) {
    base = m->buffer;
    *mapped_rank = m->rank;
  }
  if (const SharedRef* s = base->as<SharedRef>()) return s->name;
  return {};
}

class Collector {
 public:
  explicit Collector(const Kernel& k) : k_(k) { regions_.push_back({"the kernel body", {}}); }
  std::vector<Region> regions_;

  void walk(const Stmt& s, size_t region) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c, region);
    } else if (const If* i = s->as<If>()) {
      const size_t depth = conds_.size();
      push(i->cond, false, i->loc);
      walk(i->then_body, region);
      conds_.resize(depth);
      push(i->cond, true, i->loc);
      walk(i->else_body, region);
      conds_.resize(depth);
    } else if (const Role* r = s->as<Role>()) {
      // A warpgroup role runs where its condition on the thread index holds.
      const size_t depth = conds_.size();
      push(r->condition(), false, r->loc);
      walk(r->body, region);
      conds_.resize(depth);
    } else if (std::optional<LoopView> f = as_loop(*s)) {
      LoopScope saved = loops_;
      if (f->counted())
        loops_[f->var] = std::max({uniformity(f->begin, k_, loops_), uniformity(f->end, k_, loops_),
                                   uniformity(f->step, k_, loops_)});
      regions_.push_back({"the loop at " + s->loc.str(), {}});
      walk(f->body, regions_.size() - 1);
      loops_ = std::move(saved);
    } else if (const MbarrierArrive* a = s->as<MbarrierArrive>()) {
      if (a->tx) add(a->bar, a->index, {Event::Expect, a->tx, nullptr, nullptr, conds_, a->loc}, region);
    } else if (const TmaLoad* t = s->as<TmaLoad>()) {
      const TensorMapDecl* d = k_.find_tensor_map(t->tmap->as<VarRef>()->name);
      if (d && d->rank == t->coords.size())
        add(t->bar, t->bar_index,
            {Event::TmaBox, IntImm::make(Scalar::I64, int64_t(d->box_bytes())), nullptr, t->mask, conds_, t->loc}, region);
    } else if (const BulkCopy* c = s->as<BulkCopy>()) {
      add(c->bar, c->bar_index, {Event::PeerCopy, IntImm::make(Scalar::I64, c->bytes), nullptr, nullptr, conds_, c->loc},
          region);
    } else if (const StAsync* st = s->as<StAsync>()) {
      add(st->bar, st->bar_index,
          {Event::PeerCopy, IntImm::make(Scalar::I64, scalar_bytes(st->value->type.scalar)), nullptr, nullptr, conds_, st->loc},
          region);
    }
  }

 private:
  void push(const Expr& cond, bool negated, const Loc& loc) {
    std::vector<std::pair<Expr, bool>> parts;
    conjuncts(cond, negated, parts);
    for (auto& [e, neg] : parts) conds_.push_back({e, neg, uniformity(e, k_, loops_), loc});
  }
  void add(const Expr& bar, const Expr& index, Event e, size_t region) {
    Expr rank;
    std::string name = barrier_name(bar, &rank);
    if (name.empty()) return;
    // Each barrier of an array has its own phases: a constant index names one;
    // a run-time index (a pipeline stage) stands for any of them.
    if (std::optional<int64_t> i = const_int(index)) name += "[" + std::to_string(*i) + "]";
    e.target_rank = rank;
    regions_[region].by_barrier[name].push_back(std::move(e));
  }
  const Kernel& k_;
  std::vector<Cond> conds_;
  LoopScope loops_;
};

const char* what(const Event& e) {
  switch (e.kind) {
    case Event::Expect: return "arrive_expect_tx";
    case Event::TmaBox: return "TMA load";
    case Event::PeerCopy: return "copy";
  }
  return "?";
}

// Whether `e` has a value in every thread of every CTA of the cluster.
bool evaluable(const Kernel& k, const Expr& e) {
  for (unsigned r = 0; r < k.cluster.count(); ++r)
    for (unsigned z = 0; z < k.block.z; ++z)
      for (unsigned y = 0; y < k.block.y; ++y)
        for (unsigned x = 0; x < k.block.x; ++x)
          if (!eval_int(e, EvalEnv{k.cluster, k.block, r, Dim3{x, y, z}})) return false;
  return true;
}

// The threads of CTA `rank` for which every evaluable condition holds (`unknown[i]`
// >= 0 marks a condition that is not evaluated here).
uint64_t threads_where(const Kernel& k, const std::vector<Cond>& conds, const std::vector<int>& unknown, unsigned rank) {
  uint64_t n = 0;
  for (unsigned z = 0; z < k.block.z; ++z)
    for (unsigned y = 0; y < k.block.y; ++y)
      for (unsigned x = 0; x < k.block.x; ++x) {
        EvalEnv env{k.cluster, k.block, rank, Dim3{x, y, z}};
        bool runs = true;
        for (size_t i = 0; runs && i < conds.size(); ++i)
          if (unknown[i] < 0) runs = (*eval_int(conds[i].expr, env) != 0) != conds[i].negated;
        n += runs;
      }
  return n;
}

struct Totals {
  std::vector<uint64_t> expected, landed;
  bool any = false;  // some event runs in some CTA
};

// Accounts one barrier's events: the conditions that cannot be evaluated are
// unknowns, tried with every combination of values.
class Barrier {
 public:
  Barrier(const Kernel& k, const std::vector<Event>& events) : k_(k), events_(events) {}

  // Why the accounting cannot be decided, or nothing when it can: sets up the unknowns.
  std::optional<std::string> prepare() {
    bool crosses = false;
    for (const Event& e : events_) crosses |= e.mask || e.target_rank;
    const Uniform needed = crosses ? Uniform::Cluster : Uniform::Cta;
    for (const Event& e : events_) {
      std::vector<int>& ids = unknown_.emplace_back();
      for (const Cond& c : e.conds) {
        if (evaluable(k_, c.expr)) {
          ids.push_back(-1);
          continue;
        }
        if (c.uniform > needed)
          return "the condition " + ir::to_string(c.expr) + " (if_ at " + c.loc.str() + ") cannot be evaluated before run time and may differ between " +
                 (c.uniform == Uniform::Thread ? "the threads of a CTA" : "the CTAs of the cluster");
        const std::string key = ir::to_string(c.expr);
        size_t id = 0;
        while (id < unknowns_.size() && unknowns_[id] != key) ++id;
        if (id == unknowns_.size()) unknowns_.push_back(key);
        ids.push_back(static_cast<int>(id));
      }
    }
    if (unknowns_.size() > kMaxUnknowns)
      return "it depends on " + std::to_string(unknowns_.size()) + " conditions that cannot be evaluated before run time (at most " +
             std::to_string(kMaxUnknowns) + " are tried)";
    const unsigned n = k_.cluster.count();
    for (size_t i = 0; i < events_.size(); ++i)
      for (unsigned r = 0; r < n; ++r) threads_.push_back(threads_where(k_, events_[i].conds, unknown_[i], r));
    return std::nullopt;
  }

  size_t unknowns() const { return unknowns_.size(); }

  // The totals per rank when unknown i has the value of bit i of `bits`; a reason when
  // a byte count, mask or rank cannot be evaluated.
  std::optional<std::string> account(uint32_t bits, Totals& t) const {
    const unsigned n = k_.cluster.count();
    t.expected.assign(n, 0);
    t.landed.assign(n, 0);
    for (size_t i = 0; i < events_.size(); ++i) {
      const Event& e = events_[i];
      bool runs = true;
      for (size_t c = 0; c < e.conds.size(); ++c)
        if (unknown_[i][c] >= 0) runs &= (((bits >> unknown_[i][c]) & 1u) != 0) != e.conds[c].negated;
      if (!runs) continue;
      for (unsigned s = 0; s < n; ++s) {
        const uint64_t threads = threads_[i * n + s];
        if (threads == 0) continue;
        t.any = true;
        EvalEnv env{k_.cluster, k_.block, s, std::nullopt};
        std::optional<int64_t> amount = eval_int(e.amount, env);
        if (!amount)
          return "the byte count " + ir::to_string(e.amount) + " of the " + what(e) + " at " + e.loc.str() +
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
        } else if (e.target_rank) {
          std::optional<int64_t> r = eval_int(e.target_rank, env);
          if (!r || *r < 0 || *r >= int64_t(n))
            return "the CTA rank " + ir::to_string(e.target_rank) + " whose barrier the " + what(e) + " at " + e.loc.str() +
                   (r ? " reaches is outside the cluster" : " reaches is not known before run time");
          receivers.push_back(static_cast<unsigned>(*r));
        } else {
          receivers.push_back(s);
        }
        for (unsigned c : receivers) (e.kind == Event::Expect ? t.expected : t.landed)[c] += bytes;
      }
    }
    return std::nullopt;
  }

  // "(x < 4) is true and n is false", for the values in `bits`.
  std::string values(uint32_t bits) const {
    std::string out;
    for (size_t i = 0; i < unknowns_.size(); ++i)
      out += (i ? " and " : "") + unknowns_[i] + (((bits >> i) & 1u) ? " is true" : " is false");
    return out;
  }
  std::string unknown_list() const {
    std::string out;
    for (size_t i = 0; i < unknowns_.size(); ++i) out += (i ? ", " : "") + unknowns_[i];
    return out;
  }

 private:
  const Kernel& k_;
  const std::vector<Event>& events_;
  std::vector<std::vector<int>> unknown_;  // per event, per condition: the unknown's index, or -1
  std::vector<std::string> unknowns_;      // the unknown conditions, as IR text
  std::vector<uint64_t> threads_;          // per event and rank: threads past the evaluable conditions
};

Diagnostic mismatch(const Kernel& k, const std::string& name, const std::vector<Event>& events, const Totals& t,
                    const std::string& when) {
  const Event* first_expect = nullptr;
  const Event* first_copy = nullptr;
  for (const Event& e : events) {
    if (e.kind == Event::Expect && !first_expect) first_expect = &e;
    if (e.kind != Event::Expect && !first_copy) first_copy = &e;
  }
  unsigned r = 0;
  while (t.expected[r] == t.landed[r]) ++r;
  const Event* at = first_expect ? first_expect : first_copy;
  std::string where = first_expect ? " (arrive_expect_tx at " + first_expect->loc.str() + ")" : "";
  std::string copies = first_copy ? " (first copy at " + first_copy->loc.str() + ")" : "";
  return {at->loc,
          "transaction bytes of barrier '" + name + "' do not match in CTA rank " + std::to_string(r) +
              (when.empty() ? "" : " when " + when) + ": " + std::to_string(t.expected[r]) +
              " bytes announced with expect_tx" + where + ", " + std::to_string(t.landed[r]) +
              " bytes delivered by the copies completing on it" + copies,
          t.landed[r] > t.expected[r] && first_copy
              ? "announce box bytes x copies x multicast senders into this CTA; a copy issued by every "
                "thread is issued " + std::to_string(k.block.count()) + " times: guard it with if_(thread_idx_x() == 0, ...)"
              : "announce exactly the bytes that land in this CTA per phase, or add the missing copies"};
}

// Checks one barrier in one phase: an error, or what was concluded.
std::optional<Diagnostic> check_barrier(const Kernel& k, const std::string& name, const std::vector<Event>& events,
                                        TransactionCheck& out) {
  Barrier b(k, events);
  if (std::optional<std::string> why = b.prepare()) {
    out.reason = *why;
    return std::nullopt;
  }
  // Every combination of the unknowns' values, all true first. One where no event
  // runs anywhere is no phase of this barrier.
  unsigned balanced = 0;
  std::optional<Totals> bad;
  uint32_t bad_bits = 0;
  for (uint32_t bits = (1u << b.unknowns()) - 1;; --bits) {
    Totals t;
    if (std::optional<std::string> why = b.account(bits, t)) {
      out.reason = *why;
      return std::nullopt;
    }
    if (t.any && t.expected == t.landed) ++balanced;
    if (t.any && t.expected != t.landed && !bad) bad = t, bad_bits = bits;
    if (bits == 0) break;
  }
  if (!bad) {
    out.verified = true;
    return std::nullopt;
  }
  if (balanced > 0) {
    out.reason = "the bytes match for some values of " + b.unknown_list() + " and not for others (they differ when " +
                 b.values(bad_bits) + "), and these cannot be evaluated before run time";
    return std::nullopt;
  }
  return mismatch(k, name, events, *bad, b.values(bad_bits));
}

}  // namespace

TransactionReport account_transactions(const Kernel& k) {
  TransactionReport out;
  Collector c(k);
  c.walk(k.body, 0);
  for (const Region& region : c.regions_) {
    for (const auto& [name, events] : region.by_barrier) {
      TransactionCheck check{name, region.phase, false, ""};
      if (std::optional<Diagnostic> d = check_barrier(k, name, events, check)) out.errors.push_back(std::move(*d));
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
