// Cluster epochs. Each CTA counts the cluster barriers it has passed: an access
// made after `waits` acquiring waits and released by arrive number `rel` (the
// first releasing arrive after it) happens before a peer's access iff the peer has
// passed wait number `rel`, i.e. rel < peer.acq. Two accesses of different CTAs to
// one CTA's buffer race when neither happens before the other. cluster_sync() is
// arrive + wait; an access between a cluster_arrive() and its cluster_wait() is
// released only by the next arrive and acquires nothing new, which this captures.
// Loop bodies are walked twice, so accesses of consecutive iterations meet.
// A TMA load into this CTA's own buffer is a write that starts when it is issued
// and ends at the wait on its barrier: a peer's access is ordered after it only by
// a cluster barrier (or an mbarrier hand-over) after that wait.
#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <tuple>

#include "codegen/analysis/index_sets.h"
#include "codegen/analysis/unroll.h"
#include "codegen/analysis/uniformity.h"
#include "codegen/passes/race_checks.h"
#include "codegen/passes/race_handover.h"
#include "dsl/ir/loops.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen::race {
namespace {

using namespace tj::ir;

constexpr unsigned kNever = UINT_MAX;

struct Access {
  MemAccess m;
  Guards guards;
  unsigned acq = 0, rel = kNever;
  Loc arrive;  // between a cluster_arrive (here) and its cluster_wait
  Loc relaxed;  // a cluster_arrive_relaxed after it, which released nothing
  Iterations iterations;         // loops around it, and which walked iteration
  std::vector<LoopTrip> loops;   // the same loops' bounds, outermost first
  // mbarriers: releasing arrives after it on its path, cluster-scope waits before it in its iteration.
  std::vector<BarrierOp> releases, acquires;
  Loc landed = {};  // a TMA load: the wait on its barrier, where this CTA sees it complete
};

bool has_stmts(const Stmt& s) {
  const Block* b = s ? s->as<Block>() : nullptr;
  return s && (!b || !b->body.empty());
}

std::set<std::string> free_vars(const Expr& e) {
  struct Finder : Visitor {
    std::set<std::string> names;
    void visit_node(const VarRef& n) override { names.insert(n.name); }
  } f;
  f.visit(e);
  return f.names;
}

class Walk {
 public:
  Walk(const Kernel& k, const std::set<std::string>& buffers) : k_(k), buffers_(buffers) {}
  std::vector<Access> acc;
  std::string unchecked;
  std::vector<std::pair<std::string, Loc>> local_waits;  // wait_local: barrier, where (no cluster-scope acquire)
  PerIteration per_iteration;        // arrives and waits per iteration, per loop and barrier expression
  std::set<const StmtNode*> synced;  // loops each iteration of which passes a cluster arrive and wait

  void walk(const Stmt& s) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c);
      return;
    }
    record(*s);
    if (const If* i = s->as<If>()) {
      branch(*i);
    } else if (const Role* r = s->as<Role>()) {
      const size_t depth = guards_.size();
      push_guard(guards_, r->condition(), false);
      walk(r->body);
      guards_.resize(depth);
    } else if (std::optional<LoopView> f = as_loop(*s)) {
      loop(*f);
    } else if (const MbarrierArrive* a = s->as<MbarrierArrive>()) {
      const BufferRef bar = buffer_of(a->bar);
      BarrierOp op = op_of(bar, a->index, "arrive:" + bar.name + "|" + (bar.rank ? ir::to_string(bar.rank) : "") + "|" +
                                              ir::to_string(a->index), a->loc);
      if (a->order != MemoryOrder::Relaxed)
        for (size_t p : st_.mb_pending) acc[p].releases.push_back(op);
    } else if (const MbarrierWait* w = s->as<MbarrierWait>()) {
      const BufferRef bar = buffer_of(w->bar);
      BarrierOp op = op_of(bar, w->index, "wait:" + bar.name + "|" + ir::to_string(w->index), w->loc);
      if (!w->cta_scope) st_.waited.push_back(std::move(op));
      else local_waits.emplace_back(bar.name, w->loc);
      landed(bar.name, w->loc);
    } else if (const ClusterBarrier* c = s->as<ClusterBarrier>()) {
      if (c->op != ClusterBarrierOp::Wait) {
        if (c->order != MemoryOrder::Relaxed) {
          for (size_t p : st_.pending) acc[p].rel = st_.arrives;
          st_.pending.clear();
        } else {
          for (size_t p : st_.pending) acc[p].relaxed = c->loc;
        }
        ++st_.arrives;
        st_.arrive = c->op == ClusterBarrierOp::Arrive ? c->loc : Loc{};
      }
      if (c->op != ClusterBarrierOp::Arrive) {
        ++st_.waits;
        st_.arrive = {};
      }
    }
  }

 private:
  struct State {
    unsigned arrives = 0, waits = 0;
    std::vector<size_t> pending;  // accesses no releasing arrive has followed yet
    Loc arrive;
    std::vector<size_t> mb_pending;    // accesses an mbarrier arrive may release
    std::vector<BarrierOp> waited;     // cluster-scope mbarrier waits in this iteration
    std::map<std::string, int> counts;  // arrives and waits so far, per barrier expression
    std::set<std::string> uncounted;    // expressions a loop or branch made the count of unknown
    std::map<std::string, std::vector<size_t>> landing;  // TMA loads by barrier, not waited for yet
  };
  // The TMA loads completing on `bar` have landed: from here, barriers release them.
  void landed(const std::string& bar, const Loc& wait) {
    for (size_t p : st_.landing[bar]) {
      acc[p].landed = wait;
      st_.pending.push_back(p);
      st_.mb_pending.push_back(p);
    }
    st_.landing.erase(bar);
  }

  BarrierOp op_of(const BufferRef& bar, const Expr& index, std::string key, const Loc& loc) {
    BarrierOp op{bar, index, guards_, iterations_, scope_, key, st_.uncounted.count(key) ? -1 : st_.counts[key], 0, loc};
    ++st_.counts[key];
    return op;
  }

  void branch(const If& i) {
    const size_t depth = guards_.size();
    const State before = st_;
    push_guard(guards_, i.cond, false);
    walk(i.then_body);
    const State then = st_;
    guards_.resize(depth);
    st_ = before;
    push_guard(guards_, i.cond, true);
    walk(i.else_body);
    guards_.resize(depth);
    if ((then.arrives != st_.arrives || then.waits != st_.waits) && unchecked.empty())
      unchecked = "the two branches of the if_ at " + i.loc.str() + " pass different numbers of cluster barriers";
    st_.arrives = std::max(st_.arrives, then.arrives);
    st_.waits = std::max(st_.waits, then.waits);
    for (size_t p : then.pending)
      if (std::find(st_.pending.begin(), st_.pending.end(), p) == st_.pending.end()) st_.pending.push_back(p);
    for (size_t p : then.mb_pending)
      if (std::find(st_.mb_pending.begin(), st_.mb_pending.end(), p) == st_.mb_pending.end()) st_.mb_pending.push_back(p);
    for (const auto& [bar, copies] : then.landing)
      for (size_t p : copies)
        if (std::find(st_.landing[bar].begin(), st_.landing[bar].end(), p) == st_.landing[bar].end())
          st_.landing[bar].push_back(p);
    auto in = [](const std::vector<BarrierOp>& ops, const BarrierOp& w) {
      return std::any_of(ops.begin(), ops.end(), [&](const BarrierOp& o) { return o.loc.line == w.loc.line && o.loc.column == w.loc.column && o.loc.file == w.loc.file && o.ordinal == w.ordinal; });
    };
    // Waits on both paths hold after the if_; a wait in a then-branch taken from some
    // trip of the innermost loop on (if_(it > 0, ...)) holds from that trip on.
    std::vector<BarrierOp> waited;
    for (const BarrierOp& w : st_.waited)
      if (in(then.waited, w)) waited.push_back(w);
    if (std::optional<int> from = has_stmts(i.else_body) ? std::nullopt : first_trip(i.cond))
      for (const BarrierOp& w : then.waited)
        if (!in(before.waited, w) && w.iterations == iterations_) {
          waited.push_back(w);
          waited.back().skipped = *from;
        }
    st_.waited = std::move(waited);
    for (const auto& [key, n] : then.counts) st_.counts[key] = std::max(st_.counts[key], n);
    st_.uncounted.insert(then.uncounted.begin(), then.uncounted.end());
  }

  // The first trip of the innermost loop from which `cond`, on its index alone, holds in
  // every trip (tried up to 64 trips further); nullopt if it is not such a condition.
  std::optional<int> first_trip(const Expr& cond) const {
    if (loops_.empty() || loops_.back().var.empty()) return std::nullopt;
    const LoopTrip& l = loops_.back();
    const std::set<std::string> vars = free_vars(cond);
    if (vars != std::set<std::string>{l.var}) return std::nullopt;
    const EvalEnv plain{k_.cluster, k_.block, std::nullopt, std::nullopt, nullptr, nullptr};
    std::optional<int64_t> b = eval_int(l.begin, plain), st = eval_int(l.step, plain);
    if (!b || !st || *st <= 0) return std::nullopt;
    std::optional<int> first;
    for (int t = 0; t < 128; ++t) {
      Bindings v{{l.var, *b + t * *st}};
      std::optional<int64_t> c = eval_int(cond, EvalEnv{k_.cluster, k_.block, std::nullopt, std::nullopt, &v, nullptr});
      if (!c) return std::nullopt;
      if (*c && !first) first = t;
      if (!*c && first) return std::nullopt;
      if (!first && t >= 64) return std::nullopt;
    }
    return first;
  }

  void loop(const LoopView& f) {
    const std::vector<BarrierOp> entry = st_.waited;
    const std::map<std::string, int> counts_before = st_.counts;
    const LoopScope saved = scope_;
    if (f.counted())
      scope_[f.var] = std::max({uniformity(f.begin, k_, scope_), uniformity(f.end, k_, scope_), uniformity(f.step, k_, scope_)});
    for (int it = 0; it < 2; ++it) {
      st_.waited.clear();  // a barrier's phase may differ per iteration: waits count within one
      iterations_.push_back({f.node, it});
      loops_.push_back(LoopTrip{f.node, f.var, f.begin, f.end, f.step});
      const unsigned arrives = st_.arrives, waits = st_.waits;
      const std::map<std::string, int> counts = st_.counts;
      walk(f.body);
      if (it == 0) {
        if (st_.arrives > arrives && st_.waits > waits) synced.insert(f.node);
        for (const auto& [key, n] : st_.counts) per_iteration[{f.node, key}] = n - (counts.count(key) ? counts.at(key) : 0);
      }
      loops_.pop_back();
      iterations_.pop_back();
    }
    scope_ = saved;
    st_.waited = entry;  // waits before the loop still precede what follows it
    // After a loop of unknown trips, the counts it changed are not known.
    for (const auto& [key, n] : st_.counts)
      if (!counts_before.count(key) || counts_before.at(key) != n) st_.uncounted.insert(key);
  }

  void record(const StmtNode& s) {
    const TmaLoad* load = s.as<TmaLoad>();
    for (MemAccess& m : accesses_of(k_, s)) {
      if (load && load->mask && m.write && buffers_.count(m.buf.name) && unchecked.empty())
        unchecked = "the multicast TMA load at " + load->loc.str() + " writes shared buffer '" + m.buf.name +
                    "', which a peer reaches through map_shared_rank: when it lands in each CTA of its mask is not "
                    "ordered against the peers' accesses";
      if (load && !load->mask && m.write && !m.buf.rank && buffers_.count(m.buf.name)) {
        // Its index counts stages of a tile buffer, not the elements a peer names: any overlap.
        if (const SharedBuffer* b = k_.find_shared(m.buf.name); b && b->tile) m.index = nullptr;
        st_.landing[buffer_of(load->bar).name].push_back(acc.size());
        acc.push_back({std::move(m), guards_, st_.waits, kNever, st_.arrive, {}, iterations_, loops_, {}, st_.waited});
        continue;
      }
      if (m.async || !buffers_.count(m.buf.name)) continue;
      st_.pending.push_back(acc.size());
      st_.mb_pending.push_back(acc.size());
      acc.push_back({std::move(m), guards_, st_.waits, kNever, st_.arrive, {}, iterations_, loops_, {}, st_.waited});
    }
  }
  const Kernel& k_;
  const std::set<std::string>& buffers_;
  Guards guards_;
  State st_;
  Iterations iterations_;
  std::vector<LoopTrip> loops_;
  LoopScope scope_;
};

// Per access and CTA rank: whether it runs there, whose buffer it touches.
struct PerRank {
  bool runs = false;
  uint32_t owners = 0;
  bool any_owner = false;  // the rank is not known before run time
};

std::vector<PerRank> per_rank(const Kernel& k, const Defs& d, const Access& a) {
  std::vector<PerRank> out(k.cluster.count());
  for (unsigned s = 0; s < out.size(); ++s) {
    PerRank& p = out[s];
    p.runs = may_run(k, d, a.guards, s);
    if (!p.runs) continue;
    p.owners = a.m.buf.rank ? ranks_named(k, d, a.m.buf.rank, a.guards, s) : (1u << s);
    p.any_owner = a.m.buf.rank && !eval_int(a.m.buf.rank, EvalEnv{k.cluster, k.block, s, std::nullopt, nullptr, &d}) &&
                  p.owners == (k.cluster.count() >= 32 ? ~0u : (1u << k.cluster.count()) - 1);
  }
  return out;
}

std::string by(const Access& a, unsigned rank, const PerRank& p) {
  std::string out = "the " + a.m.what + " at " + a.m.loc.str() + " by CTA rank " + std::to_string(rank);
  if (a.m.buf.rank) out += " through map_shared_rank(" + a.m.buf.name + ", " + ir::to_string(a.m.buf.rank) + ")";
  if (p.any_owner) out += " (into any CTA of the cluster, this one included: the rank is not known before run time)";
  return out;
}

bool is_sreg(const Expr& e, SpecialRegKind r) {
  const SpecialReg* s = e ? e->as<SpecialReg>() : nullptr;
  return s && s->reg == r;
}

// Whether `rank` is a rotation of the cluster: (cluster_ctarank() + u) % cluster_nctarank()
// (or u + rank) with u the same in every CTA of the cluster (parameters, constants). Then
// two CTAs never name the same peer, whatever u is at run time.
bool is_rotation(const Kernel& k, const Expr& rank) {
  const Binary* m = rank ? rank->as<Binary>() : nullptr;
  if (!m || m->op != BinOp::Mod || !is_sreg(m->b, SpecialRegKind::ClusterNumCtas)) return false;
  const Binary* add = m->a ? m->a->as<Binary>() : nullptr;
  if (!add || add->op != BinOp::Add) return false;
  const bool rank_first = is_sreg(add->a, SpecialRegKind::ClusterCtaRank);
  if (!rank_first && !is_sreg(add->b, SpecialRegKind::ClusterCtaRank)) return false;
  return uniformity(rank_first ? add->b : add->a, k, {}) == Uniform::Cluster;
}

// Two CTAs that run `a` and `b` through the same rotation of the cluster reach different
// CTAs' buffers: not a race between them. u holds no loop index or local (uniformity says
// those may differ), so it is the same in every iteration too.
bool same_rotation(const Kernel& k, const Access& a, const Access& b) {
  return a.m.buf.rank && b.m.buf.rank && is_rotation(k, a.m.buf.rank) &&
         ir::to_string(a.m.buf.rank) == ir::to_string(b.m.buf.rank);
}

constexpr int kFar = 1 << 20;

// How two accesses' iterations relate: which iteration distances (b's trip minus a's,
// in the innermost loop compared) can meet, and which loops the index comparison binds.
struct Relation {
  enum Kind { Same, Siblings, Other } kind = Other;
  int lo = 0, hi = 0;
  size_t fixed = 0;                     // loops bound by trip: the common ones (and a sibling pair)
  const StmtNode* back_edge = nullptr;  // the loop whose next iteration meets the other access
};

Relation relate(const Walk& w, const Access& a, const Access& b) {
  const Iterations &x = a.iterations, &y = b.iterations;
  size_t n = 0;
  while (n < x.size() && n < y.size() && x[n].first == y[n].first) ++n;
  size_t e = 0;
  while (e < n && x[e].second == y[e].second) ++e;
  Relation r;
  if (e < n) {
    // They meet across the back edge of loop e: consecutive iterations, or any two
    // when no cluster barrier passes in every iteration.
    const int d = y[e].second - x[e].second;
    r.back_edge = x[e].first;
    r.fixed = e + 1;
    r.kind = e + 1 == n && x.size() == n && y.size() == n ? Relation::Same : Relation::Other;
    r.lo = r.hi = d;
    if (!w.synced.count(x[e].first)) (d > 0 ? r.hi : r.lo) = d > 0 ? kFar : -kFar;
    return r;
  }
  r.fixed = n;
  if (x.size() == n && y.size() == n) r.kind = Relation::Same;
  if (x.size() == n + 1 && y.size() == n + 1) {
    r.kind = Relation::Siblings;  // loops side by side (a role's loop each): any two iterations meet
    r.fixed = n + 1;
    r.lo = -kFar, r.hi = kFar;
  }
  return r;
}

// Whether the accesses reach a common element when b's innermost compared trip is a's
// plus a distance in [lo, hi]: the distance and the element, or {} when they do not.
// Trips are exact when the loop's trip count is a constant, else trials 0 to 15;
// distances at most 8 apart. Unknown values count as overlapping (nullopt element).
struct Overlap {
  bool found = false;
  int distance = 0;
  std::optional<int64_t> element;
};

class IndexCompare {
 public:
  IndexCompare(const Kernel& k, const Defs& d, const std::vector<Access>& acc) : k_(k), d_(d), acc_(acc) {}

  Overlap overlap(size_t i, unsigned s1, size_t j, unsigned s2, const Relation& r, int lo, int hi) {
    const Access &a = acc_[i], &b = acc_[j];
    std::optional<int64_t> ta, tb;
    if (r.fixed > 0) {
      ta = constant_trips(k_, d_, a.loops[r.fixed - 1]);
      tb = constant_trips(k_, d_, b.loops[r.fixed - 1]);
    }
    const int span = ta && tb ? int(std::min<int64_t>(std::max(*ta, *tb), 64)) : 16;
    lo = std::max(lo, -std::max(span - 1, 8));
    hi = std::min(hi, std::max(span - 1, 8));
    if (r.fixed == 0) lo = hi = 0;
    for (int dist = lo; dist <= hi; ++dist)
      for (int t = 0; t < span; ++t) {
        const int t1 = t, t2 = t + dist;
        if (t2 < 0 || (ta && t1 >= *ta) || (tb && t2 >= *tb)) continue;
        const std::optional<std::set<int64_t>>& x = values(i, s1, trips(a, r, t1));
        const std::optional<std::set<int64_t>>& y = values(j, s2, trips(b, r, t2));
        if (!x || !y) return {true, dist, std::nullopt};
        for (int64_t v : *x)
          if (y->count(v)) return {true, dist, v};
        if (r.fixed == 0) return {};
      }
    // No overlap in the trips compared. That holds for all trips where the loop's trip
    // count is a constant under 64, or where both indices repeat within 8 trips (then
    // trips 0 to 15 and distances up to 15 show every pair of values).
    if (r.fixed > 0 && !(ta && tb && std::max(*ta, *tb) <= 64)) {
      std::optional<int64_t> pa = trip_period(k_, d_, indexed(a), a.loops[r.fixed - 1]);
      std::optional<int64_t> pb = trip_period(k_, d_, indexed(b), b.loops[r.fixed - 1]);
      if (!pa || !pb || std::max(*pa, *pb) > 8) bounded_[a.loops[r.fixed - 1].node] = span;
    }
    for (size_t l = 0; l + 1 < r.fixed; ++l) {
      std::optional<int64_t> pa = trip_period(k_, d_, indexed(a), a.loops[l]);
      std::optional<int64_t> pb = trip_period(k_, d_, indexed(b), b.loops[l]);
      if (!pa || !pb || *pa != 1 || *pb != 1) outer_.insert(a.loops[l].node);
    }
    return {};
  }

  // "not checked" text for the comparisons that found no overlap only within their bounds.
  std::string bounds_note() const {
    std::string s;
    for (const auto& [l, span] : bounded_)
      s += (s.empty() ? "" : "; ") + std::string("indices that change with the trip of the loop at ") + l->loc.str() +
           " were compared for trips 0 to " + std::to_string(span - 1) + " only (its trip count is " +
           (span == 16 ? "not a constant" : "over 64") + "): a collision in a later trip is not seen";
    for (const StmtNode* l : outer_)
      s += (s.empty() ? "" : "; ") + std::string("loops around the loop at ") + l->loc.str() +
           " were compared at their first trip only, and the indices change with it";
    return s;
  }

 private:
  // The trips bound for an access: outer common loops at their first trip, the innermost compared one at `t`.
  static std::vector<int64_t> trips(const Access&, const Relation& r, int t) {
    std::vector<int64_t> out(r.fixed, 0);
    if (!out.empty()) out.back() = t;
    return out;
  }
  const std::optional<std::set<int64_t>>& values(size_t i, unsigned rank, const std::vector<int64_t>& trips) {
    auto key = std::make_tuple(i, rank, trips);
    auto f = cache_.find(key);
    if (f != cache_.end()) return f->second;
    return cache_[key] = index_values(k_, d_, indexed(acc_[i]), rank, trips);
  }
  static IndexedAccess indexed(const Access& a) { return IndexedAccess{a.m.index, a.m.extent, &a.guards, &a.loops}; }
  const Kernel& k_;
  const Defs& d_;
  const std::vector<Access>& acc_;
  std::map<std::tuple<size_t, unsigned, std::vector<int64_t>>, std::optional<std::set<int64_t>>> cache_;
  std::map<const StmtNode*, int> bounded_;
  std::set<const StmtNode*> outer_;
};

bool same_statement(const Access& a, const Access& b) {
  return a.m.loc.file == b.m.loc.file && a.m.loc.line == b.m.loc.line && a.m.loc.column == b.m.loc.column;
}

// "between line 3 and line 5", or, when the lines do not follow program order (a helper
// defined above its caller), "after line 9 and before line 5".
std::string between(const Access& a, const Access& b) {
  if (a.m.loc.file == b.m.loc.file && a.m.loc.line <= b.m.loc.line)
    return "between " + line_of(a.m.loc) + " and " + line_of(b.m.loc);
  return "after " + line_of(a.m.loc) + " (the " + a.m.what + ") and before " + line_of(b.m.loc) + " (the " + b.m.what + ")";
}

Diagnostic describe(const Access& a, unsigned sa, const PerRank& pa, const Access& b, unsigned sb, const PerRank& pb,
                    uint32_t owners, const Relation& r, const Overlap& o, const NearMiss& near) {
  std::string msg = "race on shared buffer '" + a.m.buf.name + "' of " + ranks_text(owners) + ": " + by(a, sa, pa) + " and " +
                    by(b, sb, pb) + " may run at the same time";
  const std::string mb = near.why.empty() ? "" : "; the mbarrier hand-over does not order them: " + near.why;
  std::string fix;
  if (same_statement(a, b)) {
    msg += ": its indices overlap across CTAs (" +
           (o.element ? "both reach element " + std::to_string(*o.element) : std::string("the index is not known before run time")) +
           (r.back_edge && o.distance != 0 ? ", in iterations " + std::to_string(std::abs(o.distance)) + " apart of the loop at " +
                                                 r.back_edge->loc.str()
                                           : std::string()) +
           ")";
    fix = a.m.write && b.m.write
              ? "give each CTA its own elements at " + line_of(a.m.loc) + " (an index that differs per CTA rank, e.g. " +
                    "cluster_ctarank() * <elements per CTA> + thread_idx_x()), or use atomic_add"
              : "split " + line_of(a.m.loc) + " into the load into a local, cluster_sync(), and the store, or give each CTA its own elements";
  } else if (r.kind == Relation::Siblings) {
    msg += " (the loops at " + a.iterations.back().first->loc.str() + " and " + b.iterations.back().first->loc.str() +
           " meet in iterations " + std::to_string(std::abs(o.distance)) + " apart" + mb + ")";
    fix = near.why.empty() ? "hand over through mbarriers of the CTA that accesses second: arrive after " + line_of(a.m.loc) +
                                 ", wait() before " + line_of(b.m.loc) + ", and back again before the next overwrite"
                           : near.fix;
  } else if (r.back_edge && o.distance != 0) {
    const std::string next = "iteration i + " + std::to_string(std::abs(o.distance));
    msg += " (iteration i of the loop at " + r.back_edge->loc.str() + " and " + next + mb + ")";
    fix = !near.why.empty() ? near.fix
          : std::abs(o.distance) == 1
              ? "add cluster_sync() at the end of the loop body at " + r.back_edge->loc.str() + " (after " +
                    line_of(o.distance > 0 ? a.m.loc : b.m.loc) + "), so that no CTA starts the next iteration while a peer is still in this one"
              : "add cluster_sync() to the loop body at " + r.back_edge->loc.str() +
                    " (the indices differ in consecutive iterations; with no cluster barrier, iterations " +
                    std::to_string(std::abs(o.distance)) + " apart meet), or hand over with mbarriers";
  } else if (a.arrive.known() || b.arrive.known()) {
    const Access& in = a.arrive.known() ? a : b;
    msg += " (" + line_of(in.m.loc) + " lies between cluster_arrive() at " + in.arrive.str() + " and its cluster_wait())";
    fix = "move " + line_of(in.m.loc) + " before the cluster_arrive() at " + line_of(in.arrive) +
          " or after its cluster_wait(), or use cluster_sync()";
  } else if (a.landed.known() || b.landed.known()) {
    const Access& load = a.landed.known() ? a : b;
    const Access& other = a.landed.known() ? b : a;
    msg += " (the TMA load lands at the wait at " + load.landed.str() + "; no cluster barrier follows that wait before " +
           line_of(other.m.loc) + ")";
    fix = "add cluster_sync() after the wait at " + line_of(load.landed) + " and before " + line_of(other.m.loc) +
          " (or hand over with an mbarrier of the reading CTA: arrive after that wait, wait() before " +
          line_of(other.m.loc) + ")";
  } else if (a.relaxed.known()) {
    msg += " (the cluster_arrive_relaxed() at " + a.relaxed.str() + " between them publishes nothing)";
    fix = "use cluster_arrive() (release) instead of cluster_arrive_relaxed() at " + line_of(a.relaxed) + ", or cluster_sync()";
  } else if (!near.why.empty()) {
    msg += " (no cluster barrier between them" + mb + ")";
    fix = near.fix + " (or add cluster_sync() " + between(a, b) + ")";
  } else {
    msg += " (no cluster barrier between them)";
    fix = "add cluster_sync() " + between(a, b) +
          " (or hand over with an mbarrier of the reading CTA: arrive after the first, wait() before the second)";
  }
  return {b.m.loc, msg, fix};
}

}  // namespace

void check_cluster_epochs(const Kernel& kernel, Findings& out) {
  const std::string subject = "cluster epochs";
  // Small constant loops over the peers, written out: each trip's peer a constant.
  const Kernel unrolled = unroll_small_loops(kernel, walks_peers);
  const Kernel& k = unrolled;
  // The buffers a peer reaches with generic accesses; no others can race across CTAs.
  std::set<std::string> buffers;
  for_each_stmt(k.body, [&](const StmtNode& s) {
    for (const MemAccess& m : accesses_of(k, s))
      if (m.buf.rank && !m.async) buffers.insert(m.buf.name);
  });
  if (buffers.empty() || k.cluster.count() < 2) {
    out.checks.push_back({RaceCheck::Verified, subject,
                          buffers.empty() ? "no generic access reaches a peer's shared memory through map_shared_rank"
                                          : "one CTA per cluster"});
    return;
  }
  Walk w(k, buffers);
  w.walk(k.body);
  if (!w.unchecked.empty()) {
    out.checks.push_back({RaceCheck::NotChecked, subject, w.unchecked});
    return;
  }
  const Defs defs = single_assignment_defs(k);
  std::vector<std::vector<PerRank>> ranks;
  for (const Access& a : w.acc) ranks.push_back(per_rank(k, defs, a));
  IndexCompare indices(k, defs, w.acc);
  // A wait_local on a barrier that peers arrive on: the hand-over it was meant to be.
  NearMiss local_wait_miss;
  for (const auto& [bar, loc] : w.local_waits) {
    bool peers_arrive = false;
    for_each_stmt(k.body, [&](const StmtNode& s) {
      if (const MbarrierArrive* a = s.as<MbarrierArrive>(); a && buffer_of(a->bar).rank && buffer_of(a->bar).name == bar) peers_arrive = true;
    });
    if (!peers_arrive) continue;
    local_wait_miss = {"the wait_local at " + loc.str() + " on '" + bar + "' acquires at CTA scope only: the peer's stores that its "
                           "arrive releases are not made visible to this CTA",
                       "use wait() instead of wait_local() at " + line_of(loc) + " (a cluster-scope acquire)"};
    break;
  }
  std::set<std::pair<std::string, std::string>> reported;
  const size_t errors_before = out.errors.size(), allowed_before = out.checks.size();
  for (size_t i = 0; i < w.acc.size(); ++i)
    for (size_t j = i; j < w.acc.size(); ++j) {
      const Access &a = w.acc[i], &b = w.acc[j];
      if (a.m.buf.name != b.m.buf.name || !(a.m.write || b.m.write) || (a.m.atomic && b.m.atomic)) continue;
      if (a.rel < b.acq || b.rel < a.acq) continue;  // ordered by the cluster barrier
      if (same_rotation(k, a, b)) continue;            // different CTAs reach different peers
      std::pair<std::string, std::string> key{a.m.loc.str() + ":" + std::to_string(a.m.loc.column),
                                              b.m.loc.str() + ":" + std::to_string(b.m.loc.column)};
      if (key.second < key.first) std::swap(key.first, key.second);
      if (reported.count(key)) continue;
      const Relation rel = relate(w, a, b);
      const HandoverSide ha{&a.iterations, &a.releases, &a.acquires}, hb{&b.iterations, &b.releases, &b.acquires};
      for (unsigned s1 = 0; s1 < ranks[i].size() && !reported.count(key); ++s1)
        for (unsigned s2 = 0; s2 < ranks[j].size() && !reported.count(key); ++s2) {
          const PerRank &p = ranks[i][s1], &q = ranks[j][s2];
          const uint32_t owners = p.owners & q.owners;
          if (s1 == s2 || !p.runs || !q.runs || !owners) continue;
          // mbarrier hand-overs order a before b from some distance on, and b before a.
          NearMiss near = local_wait_miss;  // why a hand-over on the same barrier array does not order them, either way
          int lo = rel.lo, hi = rel.hi;
          if (std::optional<int> ab = handover_from(k, defs, w.per_iteration, ha, s1, hb, s2, &near)) hi = std::min(hi, *ab - 1);
          if (std::optional<int> ba = handover_from(k, defs, w.per_iteration, hb, s2, ha, s1, &near)) lo = std::max(lo, 1 - *ba);
          if (lo > hi) continue;
          const Overlap o = indices.overlap(i, s1, j, s2, rel, lo, hi);
          if (!o.found) continue;
          reported.insert(key);
          out.hazard(k, subject, {a.m.loc, b.m.loc}, describe(a, s1, p, b, s2, q, owners, rel, o, near));
        }
    }
  if (out.errors.size() == errors_before && !indices.bounds_note().empty())
    out.checks.push_back({RaceCheck::NotChecked, subject, indices.bounds_note()});
  if (out.errors.size() == errors_before && out.checks.size() == allowed_before)
    out.checks.push_back({RaceCheck::Verified, subject,
                          std::to_string(w.acc.size()) + " accesses (loop bodies walked twice) to " +
                              std::to_string(buffers.size()) + " buffer(s) reached through map_shared_rank"});
}

}  // namespace tj::codegen::race
