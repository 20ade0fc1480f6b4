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
#include <climits>
#include <map>
#include <set>

#include "codegen/passes/race_checks.h"
#include "codegen/analysis/uniformity.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/loops.h"

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
  Loc landed;   // a TMA load: the wait on its barrier, where this CTA sees it complete
  std::vector<std::pair<const StmtNode*, int>> iterations;  // loops around it, and which walked iteration
  // mbarriers: arrived on (releasing) after it, and waited on (cluster scope) before it, on its path.
  std::set<std::string> released_by, acquired;
};

// An mbarrier orders `a` before `b`: a releasing arrive after `a` on a barrier that `b`'s
// side waited on (cluster scope) before `b`, in the same walked iteration.
bool ordered_by_mbarrier(const Access& a, const Access& b) {
  if (a.iterations != b.iterations) return false;
  for (const std::string& bar : a.released_by)
    if (b.acquired.count(bar)) return true;
  return false;
}

class Walk {
 public:
  Walk(const Kernel& k, const std::set<std::string>& buffers) : k_(k), buffers_(buffers) {}
  std::vector<Access> acc;
  std::string unchecked;

  void walk(const Stmt& s) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c);
      return;
    }
    record(*s);
    if (const If* i = s->as<If>()) {
      const size_t depth = guards_.size();
      const State before = st_;
      push_guard(guards_, i->cond, false);
      walk(i->then_body);
      const State then = st_;
      guards_.resize(depth);
      st_ = before;
      push_guard(guards_, i->cond, true);
      walk(i->else_body);
      guards_.resize(depth);
      if ((then.arrives != st_.arrives || then.waits != st_.waits) && unchecked.empty())
        unchecked = "the two branches of the if_ at " + i->loc.str() + " pass different numbers of cluster barriers";
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
      std::erase_if(st_.waited, [&](const std::string& w) { return !then.waited.count(w); });
    } else if (const Role* r = s->as<Role>()) {
      const size_t depth = guards_.size();
      push_guard(guards_, r->condition(), false);
      walk(r->body);
      guards_.resize(depth);
    } else if (std::optional<LoopView> f = as_loop(*s)) {
      const std::set<std::string> entry = st_.waited;
      for (int it = 0; it < 2; ++it) {
        st_.waited.clear();  // a barrier's phase may differ per iteration: waits count within one
        iterations_.push_back({f->node, it});
        walk(f->body);
        iterations_.pop_back();
      }
      std::erase_if(st_.waited, [&](const std::string& w) { return !entry.count(w); });
    } else if (const MbarrierArrive* a = s->as<MbarrierArrive>()) {
      if (a->order != MemoryOrder::Relaxed)
        for (size_t p : st_.mb_pending) acc[p].released_by.insert(buffer_of(a->bar).name);
    } else if (const MbarrierWait* w = s->as<MbarrierWait>()) {
      if (!w->cta_scope) st_.waited.insert(buffer_of(w->bar).name);
      landed(buffer_of(w->bar).name, w->loc);
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
    std::vector<size_t> mb_pending;  // accesses an mbarrier arrive may release
    std::set<std::string> waited;    // mbarriers waited on (cluster scope) in this iteration
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
  void record(const StmtNode& s) {
    const TmaLoad* load = s.as<TmaLoad>();
    for (MemAccess& m : accesses_of(k_, s)) {
      if (load && !load->mask && m.write && !m.buf.rank && buffers_.count(m.buf.name)) {
        // Its index counts stages of a tile buffer, not the elements a peer names: any overlap.
        if (const SharedBuffer* b = k_.find_shared(m.buf.name); b && b->tile) m.index = nullptr;
        st_.landing[buffer_of(load->bar).name].push_back(acc.size());
        acc.push_back({std::move(m), guards_, st_.waits, kNever, st_.arrive, {}, {}, iterations_, {}, st_.waited});
        continue;
      }
      if (m.async || !buffers_.count(m.buf.name)) continue;
      st_.pending.push_back(acc.size());
      st_.mb_pending.push_back(acc.size());
      acc.push_back({std::move(m), guards_, st_.waits, kNever, st_.arrive, {}, {}, iterations_, {}, st_.waited});
    }
  }
  const Kernel& k_;
  const std::set<std::string>& buffers_;
  Guards guards_;
  State st_;
  std::vector<std::pair<const StmtNode*, int>> iterations_;
};

// Per access and CTA rank: whether it runs there, whose buffer it touches, at which index.
struct PerRank {
  bool runs = false;
  uint32_t owners = 0;
  bool any_owner = false;  // the rank is not known before run time
  std::optional<int64_t> index;
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
    if (a.m.index) p.index = eval_int(a.m.index, EvalEnv{k.cluster, k.block, s, std::nullopt, nullptr, &d});
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

// The loop whose next iteration meets `b` with `a` of the one before, if that is how they meet.
const StmtNode* back_edge(const Access& a, const Access& b) {
  for (size_t i = 0; i < a.iterations.size() && i < b.iterations.size(); ++i)
    if (a.iterations[i].first == b.iterations[i].first && a.iterations[i].second != b.iterations[i].second)
      return a.iterations[i].first;
  return nullptr;
}

Diagnostic describe(const Access& a, unsigned sa, const PerRank& pa, const Access& b, unsigned sb, const PerRank& pb,
                    uint32_t owners) {
  std::string msg = "race on shared buffer '" + a.m.buf.name + "' of " + ranks_text(owners) + ": " + by(a, sa, pa) + " and " +
                    by(b, sb, pb) + " may run at the same time";
  std::string fix;
  if (const StmtNode* f = back_edge(a, b)) {
    msg += " (iteration i of the loop at " + f->loc.str() + " and iteration i + 1)";
    fix = "add cluster_sync() at the end of the loop body at " + f->loc.str() + " (after " + line_of(a.m.loc) +
          "), so that no CTA starts the next iteration while a peer is still in this one";
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
  } else {
    msg += " (no cluster barrier between them)";
    fix = "add cluster_sync() between " + line_of(a.m.loc) + " and " + line_of(b.m.loc) +
          " (or hand over with an mbarrier of the reading CTA: arrive after the first, wait() before the second)";
  }
  return {b.m.loc, msg, fix};
}

}  // namespace

void check_cluster_epochs(const Kernel& k, Findings& out) {
  const std::string subject = "cluster epochs";
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
  std::set<std::pair<std::string, std::string>> reported;
  const size_t errors_before = out.errors.size(), allowed_before = out.checks.size();
  for (size_t i = 0; i < w.acc.size(); ++i)
    for (size_t j = i; j < w.acc.size(); ++j) {
      const Access &a = w.acc[i], &b = w.acc[j];
      if (a.m.buf.name != b.m.buf.name || !(a.m.write || b.m.write) || (a.m.atomic && b.m.atomic)) continue;
      if (a.rel < b.acq || b.rel < a.acq) continue;  // ordered by the cluster barrier
      if (ordered_by_mbarrier(a, b) || ordered_by_mbarrier(b, a)) continue;
      if (same_rotation(k, a, b)) continue;  // different CTAs reach different peers
      std::pair<std::string, std::string> key{a.m.loc.str() + ":" + std::to_string(a.m.loc.column),
                                              b.m.loc.str() + ":" + std::to_string(b.m.loc.column)};
      if (key.second < key.first) std::swap(key.first, key.second);
      if (reported.count(key)) continue;
      for (unsigned s1 = 0; s1 < ranks[i].size() && !reported.count(key); ++s1)
        for (unsigned s2 = 0; s2 < ranks[j].size() && !reported.count(key); ++s2) {
          const PerRank &p = ranks[i][s1], &q = ranks[j][s2];
          const uint32_t owners = p.owners & q.owners;
          if (s1 == s2 || !p.runs || !q.runs || !owners) continue;
          if (p.index && q.index && (*p.index + int64_t(a.m.extent) <= *q.index || *q.index + int64_t(b.m.extent) <= *p.index))
            continue;
          reported.insert(key);
          out.hazard(k, subject, {a.m.loc, b.m.loc}, describe(a, s1, p, b, s2, q, owners));
        }
    }
  if (out.errors.size() == errors_before && out.checks.size() == allowed_before)
    out.checks.push_back({RaceCheck::Verified, subject,
                          std::to_string(w.acc.size()) + " accesses (loop bodies walked twice) to " +
                              std::to_string(buffers.size()) + " buffer(s) reached through map_shared_rank"});
}

}  // namespace tj::codegen::race
