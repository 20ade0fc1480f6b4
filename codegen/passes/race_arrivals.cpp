// mbarrier arrivals, accounted like transaction bytes (verify_transactions.h):
// a phase is one loop body (or the kernel body outside loops); loops with
// constant bounds and no wait inside (a release to every peer, say) are unrolled
// into the phase around them. Per CTA rank the arrivals a phase brings must be 0
// (no phase there) or the barrier's count. Conditions that cannot be evaluated
// but are the same for the threads concerned are unknown truth values, tried
// both ways; what still cannot be decided is reported as not checked.
#include <set>

#include "codegen/passes/race_checks.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/visitor.h"
#include "dsl/ir/loops.h"

namespace tj::codegen::race {
namespace {

using namespace tj::ir;

constexpr size_t kMaxUnknowns = 6;
constexpr int64_t kMaxUnrolled = 64;

struct Event {
  Expr target;  // the peer's rank for map_shared_rank; null: this CTA
  Expr index;   // which barrier of the array
  Guards guards;
  Bindings vars;
  LoopScope loops;
  Loc loc;
};

struct Region {
  std::string phase;
  // By barrier array: its phases in this region, in order (a wait on it ends one).
  std::map<std::string, std::vector<std::vector<Event>>> arrivals;
  std::set<std::string> waited;  // arrays waited on since their last arrival here
};

struct WaitSite {
  std::string buffer;
  Event at;
};

bool has_wait(const Stmt& s) {
  bool found = false;
  for_each_stmt(s, [&](const StmtNode& n) { found |= n.kind == StmtKind::MbarrierWait || n.kind == StmtKind::ClusterBarrier; });
  return found;
}

class Collector {
 public:
  explicit Collector(const Kernel& k) : defs(single_assignment_defs(k)), k_(k) { regions.push_back({"the kernel body", {}, {}}); }
  std::vector<Region> regions;
  std::vector<WaitSite> waits;
  const Defs defs;

  void walk(const Stmt& s, size_t region) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c, region);
    } else if (const If* i = s->as<If>()) {
      const size_t depth = guards_.size();
      push_guard(guards_, i->cond, false);
      walk(i->then_body, region);
      guards_.resize(depth);
      push_guard(guards_, i->cond, true);
      walk(i->else_body, region);
      guards_.resize(depth);
    } else if (const Role* r = s->as<Role>()) {
      const size_t depth = guards_.size();
      push_guard(guards_, r->condition(), false);
      walk(r->body, region);
      guards_.resize(depth);
    } else if (std::optional<LoopView> l = as_loop(*s)) {
      loop(*l, region);
    } else if (const MbarrierArrive* a = s->as<MbarrierArrive>()) {
      BufferRef b = buffer_of(a->bar);
      if (b.name.empty()) return;
      Region& r = regions[region];
      auto& phases = r.arrivals[b.name];
      if (phases.empty() || r.waited.erase(b.name)) phases.emplace_back();
      phases.back().push_back({b.rank, a->index, guards_, vars_, loops_, a->loc});
    } else if (const MbarrierWait* w = s->as<MbarrierWait>()) {
      const std::string name = buffer_of(w->bar).name;
      waits.push_back({name, {nullptr, w->index, guards_, vars_, loops_, w->loc}});
      regions[region].waited.insert(name);
    }
  }

 private:
  // A counted loop with known bounds and no wait is unrolled (its index bound to each
  // value in turn); any other loop (a while loop among them) is a region of its own.
  void loop(const LoopView& f, size_t region) {
    const EvalEnv env{k_.cluster, k_.block, std::nullopt, std::nullopt, &vars_, &defs};
    std::optional<int64_t> b, e, st;
    if (f.counted()) b = eval_int(f.begin, env), e = eval_int(f.end, env), st = eval_int(f.step, env);
    if (b && e && st && *st > 0 && (*e - *b) / *st < kMaxUnrolled && !has_wait(f.body)) {
      loops_[f.var] = Uniform::Cluster;  // bound to each value in turn
      for (int64_t v = *b; v < *e; v += *st) {
        vars_[f.var] = v;
        walk(f.body, region);
      }
      vars_.erase(f.var);
      loops_.erase(f.var);
      return;
    }
    LoopScope saved = loops_;
    if (f.counted())
      loops_[f.var] = std::max({uniformity(f.begin, k_, loops_, &defs), uniformity(f.end, k_, loops_, &defs),
                                uniformity(f.step, k_, loops_, &defs)});
    regions.push_back({"the loop at " + f.node->loc.str(), {}, {}});
    walk(f.body, regions.size() - 1);
    loops_ = std::move(saved);
  }

  const Kernel& k_;
  Guards guards_;
  Bindings vars_;
  LoopScope loops_;
};

// One barrier's arrivals in one phase: the unknown conditions and the count per rank.
using Counts = std::map<std::pair<unsigned, int64_t>, uint64_t>;

// What the phases of one kernel share: guard evaluations over every thread.
struct Memo {
  std::map<std::pair<const ExprNode*, Bindings>, bool> evaluable;
  std::map<std::pair<unsigned, std::vector<std::pair<const ExprNode*, bool>>>, std::vector<Dim3>> passing;
};

class Phase {
 public:
  Phase(const Kernel& k, const Defs& d, const std::vector<Event>& events, Memo& memo)
      : k_(k), defs_(d), events_(events), memo_(memo) {}

  std::optional<std::string> prepare() {
    for (const Event& e : events_) {
      std::vector<int>& ids = unknown_.emplace_back();
      for (const Guard& g : e.guards) {
        if (evaluable(g.expr, e.vars)) {
          ids.push_back(-1);
          continue;
        }
        if (uniformity(g.expr, k_, e.loops, &defs_) == Uniform::Thread)
          return "the condition " + ir::to_string(g.expr) + " of the arrive at " + e.loc.str() +
                 " cannot be evaluated before run time and may differ between threads";
        const std::string key = ir::to_string(g.expr);
        size_t id = 0;
        while (id < names_.size() && names_[id] != key) ++id;
        if (id == names_.size()) names_.push_back(key);
        ids.push_back(int(id));
      }
    }
    if (names_.size() > kMaxUnknowns)
      return "it depends on " + std::to_string(names_.size()) + " conditions that cannot be evaluated before run time";
    // What each event brings when it runs: the unknowns only decide whether it does.
    for (size_t i = 0; i < events_.size(); ++i)
      if (std::optional<std::string> why = contribute(i, contrib_.emplace_back())) return why;
    return std::nullopt;
  }
  size_t unknowns() const { return names_.size(); }

  // Arrivals per (rank, barrier index; -1: not known) when unknown i is bit i of `bits`.
  void count(uint32_t bits, Counts& per_rank) const {
    per_rank.clear();
    for (size_t i = 0; i < events_.size(); ++i) {
      const Event& e = events_[i];
      bool runs = true;
      for (size_t c = 0; c < e.guards.size(); ++c)
        if (unknown_[i][c] >= 0) runs &= (((bits >> unknown_[i][c]) & 1u) != 0) != e.guards[c].negated;
      if (runs)
        for (const auto& [at, n] : contrib_[i]) per_rank[at] += n;
    }
  }

 private:
  std::optional<std::string> contribute(size_t i, Counts& out) {
    const Event& e = events_[i];
    const unsigned n = k_.cluster.count();
    for (unsigned s = 0; s < n; ++s) {
      // Guards that do not depend on the thread are decided once per rank.
      const EvalEnv cta{k_.cluster, k_.block, s, std::nullopt, &e.vars, &defs_};
      std::vector<size_t> per_thread;
      bool runs = true;
      for (size_t c = 0; runs && c < e.guards.size(); ++c) {
        if (unknown_[i][c] >= 0) continue;
        if (std::optional<int64_t> v = eval_int(e.guards[c].expr, cta)) runs = (*v != 0) != e.guards[c].negated;
        else per_thread.push_back(c);
      }
      if (!runs) continue;
      for (const Dim3& t : passing(e, s, per_thread)) {
            EvalEnv env{k_.cluster, k_.block, s, t, &e.vars, &defs_};
            int64_t to = s;
            if (e.target) {
              std::optional<int64_t> r = eval_int(e.target, env);
              if (!r || *r < 0 || *r >= int64_t(n))
                return "the CTA rank " + ir::to_string(e.target) + " the arrive at " + e.loc.str() +
                       (r ? " reaches is outside the cluster" : " reaches is not known before run time");
              to = *r;
            }
            std::optional<int64_t> idx = eval_int(e.index, env);
            ++out[{unsigned(to), idx ? *idx : -1}];
      }
    }
    return std::nullopt;
  }

  // The threads of CTA `rank` passing the guards `which` of `e`; remembered when the
  // guards use no unrolled loop index (a role's and a lane's conditions, typically).
  std::vector<Dim3> passing(const Event& e, unsigned rank, const std::vector<size_t>& which) {
    std::vector<std::pair<const ExprNode*, bool>> key;
    bool uses_vars = false;
    for (size_t c : which) {
      key.push_back({e.guards[c].expr.get(), e.guards[c].negated});
      uses_vars |= mentions(e.guards[c].expr, e.vars);
    }
    auto cache_key = std::make_pair(rank, key);
    if (!uses_vars)
      if (auto it = memo_.passing.find(cache_key); it != memo_.passing.end()) return it->second;
    std::vector<Dim3> out;
    for (unsigned z = 0; z < k_.block.z; ++z)
      for (unsigned y = 0; y < k_.block.y; ++y)
        for (unsigned x = 0; x < k_.block.x; ++x) {
          EvalEnv env{k_.cluster, k_.block, rank, Dim3{x, y, z}, &e.vars, &defs_};
          bool pass = true;
          for (size_t j = 0; pass && j < which.size(); ++j)
            if (std::optional<int64_t> v = eval_int(e.guards[which[j]].expr, env)) pass = (*v != 0) != e.guards[which[j]].negated;
          if (pass) out.push_back(Dim3{x, y, z});
        }
    if (!uses_vars) memo_.passing[cache_key] = out;
    return out;
  }
  static bool mentions(const Expr& e, const Bindings& vars) {
    struct Finder : Visitor {
      const Bindings& vars;
      bool found = false;
      explicit Finder(const Bindings& v) : vars(v) {}
      void visit_node(const VarRef& n) override { found |= vars.count(n.name) != 0; }
    } f(vars);
    f.visit(e);
    return f.found;
  }

 public:
  std::string values(uint32_t bits) const {
    std::string out;
    for (size_t i = 0; i < names_.size(); ++i) out += (i ? " and " : "") + names_[i] + ((bits >> i) & 1u ? " is true" : " is false");
    return out;
  }

 private:
  bool evaluable(const Expr& e, const Bindings& vars) {
    auto key = std::make_pair(e.get(), vars);
    if (auto it = memo_.evaluable.find(key); it != memo_.evaluable.end()) return it->second;
    if (closed(e, vars)) return memo_.evaluable[key] = true;
    bool all = true;
    for (unsigned r = 0; all && r < k_.cluster.count(); ++r) {
      if (eval_int(e, EvalEnv{k_.cluster, k_.block, r, std::nullopt, &vars, &defs_})) continue;
      for (unsigned z = 0; all && z < k_.block.z; ++z)
        for (unsigned y = 0; all && y < k_.block.y; ++y)
          for (unsigned x = 0; all && x < k_.block.x; ++x)
            all = eval_int(e, EvalEnv{k_.cluster, k_.block, r, Dim3{x, y, z}, &vars, &defs_}).has_value();
    }
    return memo_.evaluable[key] = all;
  }
  // Whether `e` is built only from constants, the thread index, the cluster's shape and
  // rank, and bound loop indices or locals defined from those: then it has a value in
  // every thread of every CTA (no division, which could be by zero).
  bool closed(const Expr& e, const Bindings& vars) const {
    if (e->as<IntImm>() || e->as<BoolImm>()) return true;
    if (e->as<SpecialReg>())
      return eval_int(e, EvalEnv{k_.cluster, k_.block, 0u, Dim3{0, 0, 0}, nullptr, nullptr}).has_value();
    if (const VarRef* v = e->as<VarRef>()) {
      if (vars.count(v->name)) return true;
      auto d = defs_.find(v->name);
      return d != defs_.end() && closed(d->second, vars);
    }
    if (const Unary* u = e->as<Unary>()) return closed(u->a, vars);
    if (const Cast* c = e->as<Cast>()) return is_integer(c->type.scalar) && closed(c->a, vars);
    if (const Binary* b = e->as<Binary>())
      return b->op != BinOp::Div && b->op != BinOp::Mod && b->op != BinOp::Shl && b->op != BinOp::Shr &&
             b->a->type.scalar != Scalar::F32 && closed(b->a, vars) && closed(b->b, vars);
    return false;
  }

  const Kernel& k_;
  const Defs& defs_;
  const std::vector<Event>& events_;
  std::vector<std::vector<int>> unknown_;
  std::vector<std::string> names_;
  std::vector<Counts> contrib_;  // per event
  Memo& memo_;
};

void note(Findings& out, RaceCheck c) {
  for (const RaceCheck& d : out.checks)
    if (d.subject == c.subject && d.detail == c.detail && d.outcome == c.outcome) return;
  out.checks.push_back(std::move(c));
}

void check_phase(const Kernel& k, const Defs& defs, Memo& memo, const Region& region, const std::string& key, const std::vector<Event>& events, Findings& out) {
  const SharedBuffer* buf = k.find_shared(key);
  if (!buf) return;
  const uint64_t want = buf->arrivals;
  const std::string subject = "arrivals on barrier '" + key + "' in " + region.phase;
  Phase p(k, defs, events, memo);
  if (std::optional<std::string> why = p.prepare()) {
    note(out, {RaceCheck::NotChecked, subject, *why});
    return;
  }
  unsigned good = 0;
  std::optional<Counts> bad;
  uint32_t bad_bits = 0;
  for (uint32_t bits = (1u << p.unknowns()) - 1;; --bits) {
    Counts n;
    p.count(bits, n);
    bool active = false, ok = true;
    for (const auto& [at, a] : n) active |= a > 0, ok &= a == 0 || a == want;
    if (active && ok) ++good;
    if (active && !ok && !bad) bad = n, bad_bits = bits;
    if (bits == 0) break;
  }
  if (!bad) {
    if (good) note(out, {RaceCheck::Verified, subject, std::to_string(want) + " per phase"});
    return;
  }
  const std::string when = p.unknowns() ? " when " + p.values(bad_bits) : "";
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
  for (const Event& e : events) locs.push_back(e.loc);
  out.hazard(k, subject, locs,
             {events.front().loc,
              "barrier '" + name + "' receives " + std::to_string(got) + " arrivals per phase in CTA rank " + std::to_string(r) +
                  " in " + region.phase + when + ", but it completes a phase after " + std::to_string(want) +
                  " (mbarriers at " + buf->loc.str() + "): " +
                  (got < want ? "a wait on that phase never completes (the kernel hangs)"
                              : "the extra arrivals complete the next phase early, releasing its waiters before their data"),
              "make one phase receive exactly " + std::to_string(want) + " arrivals in every CTA: declare '" + key +
                  "' with " + std::to_string(got) + " arrivals, or change which threads arrive (" + std::to_string(got) +
                  " arrivals reach it in CTA rank " + std::to_string(r) + " now)"});
}

// A wait in a CTA that no arrive can reach never completes.
void check_waits(const Kernel& k, const Collector& c, Findings& out) {
  std::map<std::string, uint32_t> reached;  // per barrier buffer: ranks some arrive may reach
  for (const Region& region : c.regions)
    for (const auto& [key, phases] : region.arrivals)
      for (const std::vector<Event>& events : phases)
      for (const Event& e : events)
        for (unsigned s = 0; s < k.cluster.count(); ++s)
          if (may_run(k, c.defs, e.guards, s, &e.vars))
            reached[key] |= e.target ? ranks_named(k, c.defs, e.target, e.guards, s, &e.vars) : 1u << s;
  for (const WaitSite& w : c.waits)
    for (unsigned s = 0; s < k.cluster.count(); ++s) {
      if (!may_run(k, c.defs, w.at.guards, s, &w.at.vars) || ((reached[w.buffer] >> s) & 1u)) continue;
      out.hazard(k, "waits on barrier '" + w.buffer + "'", {w.at.loc},
                 {w.at.loc,
                  "the wait at " + w.at.loc.str() + " on barrier '" + w.buffer + "' never completes in CTA rank " + std::to_string(s) +
                      ": nothing arrives on '" + w.buffer + "' in that CTA (copies complete bytes, not arrivals)",
                  "arrive on it (arrive or arrive_expect_tx) in CTA rank " + std::to_string(s) + ", or do not wait there"});
      break;
    }
}

}  // namespace

void check_arrivals(const Kernel& k, Findings& out) {
  Collector c(k);
  c.walk(k.body, 0);
  Memo memo;
  for (const Region& region : c.regions)
    for (const auto& [key, phases] : region.arrivals)
      for (const std::vector<Event>& events : phases) check_phase(k, c.defs, memo, region, key, events, out);
  check_waits(k, c, out);
}

}  // namespace tj::codegen::race
