#include "codegen/analysis/cluster_pairing.h"

#include <set>

#include "dsl/ir/loops.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// Where the paths reaching a point may stand: no arrive pending (closed), or an
// arrive not yet waited for (open), with the arrive that opened it.
struct State {
  bool closed = false, open = false;
  Loc arrive;
  bool operator==(const State& o) const { return closed == o.closed && open == o.open; }
  State& operator|=(const State& o) {
    if (o.open && !open) arrive = o.arrive;
    closed |= o.closed, open |= o.open;
    return *this;
  }
  bool none() const { return !closed && !open; }
};

std::string line(const Loc& l) { return "line " + std::to_string(l.line); }

class Pairing {
 public:
  explicit Pairing(std::vector<Diagnostic>& out) : out_(out) {}

  State walk(const Stmt& s, State in) {
    if (!s || in.none()) return in;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) in = walk(c, in);
      return in;
    }
    if (const If* i = s->as<If>()) {
      State out = walk(i->then_body, in);
      out |= walk(i->else_body, in);
      return out;
    }
    if (const Role* r = s->as<Role>()) {
      State out = walk(r->body, in);
      out |= in;  // the threads outside the role
      return out;
    }
    if (std::optional<LoopView> l = as_loop(*s)) return loop(*l, in);
    if (const ClusterBarrier* c = s->as<ClusterBarrier>()) return op(*c, in);
    return in;
  }

 private:
  State loop(const LoopView& l, State in) {
    std::optional<int64_t> b, e, st;
    if (l.counted()) b = const_int(l.begin), e = const_int(l.end), st = const_int(l.step);
    std::optional<int64_t> trips;
    if (b && e && st && *st > 0) trips = *e > *b ? (*e - *b + *st - 1) / *st : 0;
    if (trips && *trips == 0) return in;
    State out;
    if (!trips) out = in;  // it may run no iteration
    // Iteration k starts where iteration k - 1 ended; the states are few, so a few
    // iterations reach every one.
    State at = in;
    for (int64_t k = 1; k <= 3 && (!trips || k <= *trips); ++k) {
      const size_t before = iteration_.size();
      iteration_.push_back({l.node->loc, k});
      State next = walk(l.body, at);
      iteration_.resize(before);
      out |= next;
      if (next == at) break;
      at = next;
    }
    return out;
  }

  State op(const ClusterBarrier& c, const State& in) {
    const bool arrives = c.op != ClusterBarrierOp::Wait, waits = c.op != ClusterBarrierOp::Arrive;
    const char* name = c.op == ClusterBarrierOp::Sync ? "cluster_sync()"
                       : c.op == ClusterBarrierOp::Wait ? "cluster_wait()"
                       : c.order == MemoryOrder::Relaxed ? "cluster_arrive_relaxed()"
                                                         : "cluster_arrive()";
    if (arrives && in.open && !in.closed)
      report({c.loc,
              std::string(name) + " at " + c.loc.str() + " arrives on the cluster barrier phase the cluster_arrive at " +
                  in.arrive.str() + " already arrived on" + when() +
                  ", with no cluster_wait() between: a thread arrives once per phase, and the second arrival "
                  "counts toward the next phase (a hang, or peers released early)",
              c.op == ClusterBarrierOp::Sync
                  ? "call cluster_wait() instead at " + line(c.loc) + ", or call cluster_wait() between " + line(in.arrive) + " and " + line(c.loc)
                  : "call cluster_wait() between " + line(in.arrive) + " and " + line(c.loc)});
    if (c.op == ClusterBarrierOp::Wait && in.closed && !in.open)
      report({c.loc,
              "cluster_wait() at " + c.loc.str() + " waits for a cluster barrier phase this thread has not arrived on" + when() +
                  ": no cluster_arrive() since its last cluster_wait() or cluster_sync(), so the phase never completes "
                  "(the kernel hangs)",
              "call cluster_arrive() (or cluster_arrive_relaxed()) before " + line(c.loc) + ", or use cluster_sync()"});
    State out;
    if (waits) out.closed = true;
    else out.open = true, out.arrive = c.loc;
    return out;
  }

  // " (in iteration 2 of the loop at f.cpp:12)" where a later iteration is wrong.
  std::string when() const {
    for (auto it = iteration_.rbegin(); it != iteration_.rend(); ++it)
      if (it->second > 1) return " (in iteration " + std::to_string(it->second) + " of the loop at " + it->first.str() + ")";
    return "";
  }

  void report(Diagnostic d) {
    if (seen_.insert(d.loc.str()).second) out_.push_back(std::move(d));
  }

  std::vector<Diagnostic>& out_;
  std::vector<std::pair<Loc, int64_t>> iteration_;  // the loops around, and which iteration is walked
  std::set<std::string> seen_;                      // one error per statement
};

}  // namespace

ClusterPairing pair_cluster_barriers(const ir::Kernel& k) {
  ClusterPairing out;
  State start;
  start.closed = true;
  const State end = Pairing(out.errors).walk(k.body, start);
  out.at_end = end.open && end.closed ? PendingArrive::Some : end.open ? PendingArrive::All : PendingArrive::None;
  return out;
}

}  // namespace tj::codegen
