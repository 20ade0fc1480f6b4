// The async proxy. The kernel is walked in program order as the CTA runs it:
// branches on the thread index run one after the other (other threads), uniform
// branches are alternatives (their states merged), roles start together, and loop
// bodies are walked twice (iteration i + 1 meets iteration i). The walk carries
// what is in flight on this path: copies into shared memory not yet waited for,
// TMA store groups not yet waited for reading, MMAs not yet waited for, and
// ordinary writes not yet fenced for the async proxy. Copies made by other
// threads (another role, another thread branch) are met through waits: a reader
// must wait on their barrier in the same iteration, and a producer must wait on
// a barrier its readers arrive on before refilling a stage they read.
#include <functional>
#include <set>

#include "codegen/passes/race_checks.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/loops.h"

namespace tj::codegen::race {
namespace {

using namespace tj::ir;

struct Issued {
  MemAccess m;
  std::string barrier;  // copies: the barrier they complete on
  Bindings iteration;   // the walked iteration of each loop index when issued
};

struct State {
  std::set<std::string> waited, maybe_waited;  // barriers waited on in this iteration
  std::vector<Issued> copies;                  // into shared memory, not waited for
  std::vector<std::vector<Issued>> store_groups;
  std::vector<Issued> open_stores;             // not committed yet
  std::vector<Issued> mmas;                    // one group each, newest last
  std::vector<Issued> unfenced;                // ordinary writes since fence_proxy_async
};

void unite(std::vector<Issued>& a, const std::vector<Issued>& b) {
  for (const Issued& i : b) {
    bool seen = false;
    for (const Issued& j : a) seen |= j.m.loc.line == i.m.loc.line && j.m.loc.column == i.m.loc.column && j.iteration == i.iteration;
    if (!seen) a.push_back(i);
  }
}

// What may be true after either of two paths.
State merge(State a, const State& b) {
  std::set<std::string> both;
  for (const std::string& w : a.waited)
    if (b.waited.count(w)) both.insert(w);
  a.waited = both;
  a.maybe_waited.insert(b.maybe_waited.begin(), b.maybe_waited.end());
  unite(a.copies, b.copies);
  unite(a.open_stores, b.open_stores);
  unite(a.mmas, b.mmas);
  unite(a.unfenced, b.unfenced);
  // Align store groups from the newest.
  std::vector<std::vector<Issued>> g(std::max(a.store_groups.size(), b.store_groups.size()));
  for (size_t i = 0; i < a.store_groups.size(); ++i) unite(g[g.size() - a.store_groups.size() + i], a.store_groups[i]);
  for (size_t i = 0; i < b.store_groups.size(); ++i) unite(g[g.size() - b.store_groups.size() + i], b.store_groups[i]);
  a.store_groups = std::move(g);
  return a;
}

struct Placed {
  std::string barrier;
  Agent agent;
  MemAccess m;
};

bool is_copy(const MemAccess& m) { return m.async && m.write; }

std::string copy_barrier(const StmtNode& s) {
  if (const TmaLoad* t = s.as<TmaLoad>()) return buffer_of(t->bar).name;
  if (const BulkCopy* c = s.as<BulkCopy>()) return buffer_of(c->bar).name;
  if (const StAsync* a = s.as<StAsync>()) return buffer_of(a->bar).name;
  return {};
}

class Walk {
 public:
  Walk(const Kernel& k, Findings& out) : k_(k), defs_(single_assignment_defs(k)), out_(out) {}

  // Where copies land, who reads, who arrives, and which barriers have a phase per iteration.
  void survey(const Stmt& s, Agent& agent, int loops) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) survey(c, agent, loops);
      return;
    }
    const std::string bar = copy_barrier(*s);
    for (const MemAccess& m : accesses_of(k_, *s)) {
      if (is_copy(m)) copies_[m.buf.name].push_back({bar, agent, m});
      else if (!m.write) readers_[m.buf.name].push_back({"", agent, m});
    }
    if (const MbarrierArrive* a = s->as<MbarrierArrive>()) {
      arrivals_.push_back({buffer_of(a->bar).name, agent, {}});
      if (loops) repeating_.insert(buffer_of(a->bar).name);
    }
    if (!bar.empty() && loops) repeating_.insert(bar);
    if (const If* i = s->as<If>()) {
      const bool split = splits_threads(k_, i->cond, {});
      if (split) agent.push_back({ir::to_string(i->cond), true});
      survey(i->then_body, agent, loops);
      if (split) agent.back().second = false;
      survey(i->else_body, agent, loops);
      if (split) agent.pop_back();
    } else if (const Role* r = s->as<Role>()) {
      agent.push_back({"role " + r->name, true});
      survey(r->body, agent, loops);
      agent.pop_back();
    } else if (std::optional<LoopView> l = as_loop(*s)) {
      survey(l->body, agent, loops + 1);
    }
  }

  void walk(const Stmt& s, State& st) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c, st);
      return;
    }
    const std::string bar = copy_barrier(*s);
    for (const MemAccess& m : accesses_of(k_, *s)) access(m, bar, st);
    if (const If* i = s->as<If>()) {
      if (splits_threads(k_, i->cond, {})) {
        agent_.push_back({ir::to_string(i->cond), true});
        walk(i->then_body, st);
        agent_.back().second = false;
        walk(i->else_body, st);
        agent_.pop_back();
      } else {
        State other = st;
        walk(i->then_body, st);
        walk(i->else_body, other);
        st = merge(std::move(st), other);
      }
    } else if (const Role* r = s->as<Role>()) {
      State mine = st;
      agent_.push_back({"role " + r->name, true});
      walk(r->body, mine);
      agent_.pop_back();
      st = merge(std::move(st), mine);
    } else if (std::optional<LoopView> f = as_loop(*s)) {
      State entry = st;
      const std::set<std::string> renewed = renewed_each_iteration(*f);
      for (int it = 0; it < 2; ++it) {
        for (const std::string& b : renewed) st.waited.erase(b), st.maybe_waited.erase(b);
        if (f->counted()) iteration_[f->var] = it;
        walk(f->body, st);
      }
      if (f->counted()) iteration_.erase(f->var);
      st = merge(std::move(st), entry);
    } else if (const MbarrierWait* w = s->as<MbarrierWait>()) {
      const std::string name = buffer_of(w->bar).name;
      st.waited.insert(name);
      st.maybe_waited.insert(name);
      std::erase_if(st.copies, [&](const Issued& c) { return c.barrier == name; });
    } else if (const BulkGroup* g = s->as<BulkGroup>()) {
      if (g->op == BulkGroupOp::Commit) {
        st.store_groups.push_back(std::move(st.open_stores));
        st.open_stores.clear();
      } else {
        while (st.store_groups.size() > g->pending) st.store_groups.erase(st.store_groups.begin());
      }
    } else if (const MmaWait* w = s->as<MmaWait>()) {
      while (st.mmas.size() > w->pending) st.mmas.erase(st.mmas.begin());
    } else if (const Fence* f = s->as<Fence>(); f && f->fence == FenceKind::ProxyAsyncShared) {
      st.unfenced.clear();
    }
  }

  std::map<std::string, std::vector<Placed>> copies_, readers_;
  std::vector<Placed> arrivals_;
  std::set<std::string> repeating_;
  unsigned accesses = 0;

 private:
  // The barriers whose waits one iteration of loop f cannot carry into the next:
  // those with a phase per iteration that the body waits on, or that complete
  // copies into a buffer the body reads or writes. A loop touching none of them
  // (a loop over cluster ranks arriving on 'empty', say) keeps the enclosing
  // iteration's waits.
  std::set<std::string> renewed_each_iteration(const LoopView& f) {
    std::set<std::string> used;
    std::function<void(const Stmt&)> scan = [&](const Stmt& s) {
      if (!s) return;
      if (const Block* b = s->as<Block>()) {
        for (const Stmt& c : b->body) scan(c);
        return;
      }
      if (const MbarrierWait* w = s->as<MbarrierWait>()) used.insert(buffer_of(w->bar).name);
      for (const MemAccess& m : accesses_of(k_, *s))
        if (!is_copy(m))
          for (const Placed& c : copies_[m.buf.name]) used.insert(c.barrier);
      if (const If* i = s->as<If>()) scan(i->then_body), scan(i->else_body);
      else if (const Role* r = s->as<Role>()) scan(r->body);
      else if (std::optional<LoopView> g = as_loop(*s)) scan(g->body);
    };
    scan(f.body);
    std::set<std::string> out;
    for (const std::string& b : repeating_)
      if (used.count(b)) out.insert(b);
    return out;
  }

  bool overlaps(const MemAccess& m, const Issued& i) const {
    return i.m.buf.name == m.buf.name && !disjoint(k_, defs_, i.m, i.iteration, m, iteration_);
  }
  void error(const std::string& subject, const MemAccess& m, const MemAccess& other, std::string msg, std::string fix) {
    out_.hazard(k_, "async proxy: " + subject, {m.loc, other.loc}, Diagnostic{m.loc, std::move(msg), std::move(fix)});
  }
  const char* verb(const MemAccess& m) const { return m.write ? "overwrites" : "reads"; }

  void access(const MemAccess& m, const std::string& bar, State& st) {
    ++accesses;
    const std::string buf = "shared buffer '" + m.buf.name + "'";
    // A copy's destination, touched before the copy is waited for.
    if (!is_copy(m)) {
      bool found = false;
      for (const Issued& c : st.copies)
        if (overlaps(m, c)) {
          found = true;
          error("copy destination read before its wait", m, c.m,
                "the " + m.what + " at " + m.loc.str() + " " + verb(m) + " " + buf + " while the " + c.m.what + " at " +
                    c.m.loc.str() + " into it may still be landing: no wait on barrier '" + c.barrier + "' between them",
                "wait on '" + c.barrier + "' (wait or wait_local) between " + line_of(c.m.loc) + " and " + line_of(m.loc));
          break;
        }
      for (const Placed& c : copies_[m.buf.name]) {
        if (found || !concurrent(c.agent, agent_) || st.waited.count(c.barrier)) continue;
        error("copy destination read before its wait", m, c.m,
              "the " + m.what + " at " + m.loc.str() + " " + verb(m) + " " + buf + ", which the " + c.m.what + " at " +
                  c.m.loc.str() + " (other threads) fills, without first waiting on barrier '" + c.barrier + "'" +
                  (iteration_.empty() ? "" : " in the same loop iteration"),
              "wait on '" + c.barrier + "' before " + line_of(m.loc));
        break;
      }
    }
    if (m.write) {
      auto pending = st.open_stores;
      for (const auto& g : st.store_groups) pending.insert(pending.end(), g.begin(), g.end());
      for (const Issued& s : pending)
        if (overlaps(m, s)) {
          error("TMA store source overwritten", m, s.m,
                "the " + m.what + " at " + m.loc.str() + " overwrites " + buf + " while the TMA store at " + s.m.loc.str() +
                    " may still be reading it",
                "call bulk_commit() after the store and bulk_wait_read(n) between " + line_of(s.m.loc) + " and " +
                    line_of(m.loc) + ", n at most the store groups committed since");
          break;
        }
      for (const Issued& s : st.mmas)
        if (overlaps(m, s)) {
          error("MMA operand overwritten", m, s.m,
                "the " + m.what + " at " + m.loc.str() + " overwrites " + buf + " while the mma at " + s.m.loc.str() +
                    " may still be reading it",
                "call mma_wait(n) between " + line_of(s.m.loc) + " and " + line_of(m.loc));
          break;
        }
    }
    if (m.what == "TMA store")
      for (const Issued& w : st.unfenced)
        if (overlaps(m, w)) {
          error("generic write read by a TMA store without a fence", m, w.m,
                "the TMA store at " + m.loc.str() + " reads " + buf + " written by the " + w.m.what + " at " +
                    w.m.loc.str() + " with no fence_proxy_async() between: the copy engine may read old data",
                "add fence_proxy_async() (and a barrier among the writing threads) between " + line_of(w.m.loc) + " and " +
                    line_of(m.loc));
          break;
        }
    if (is_copy(m) && !iteration_.empty()) refill(m, st);  // a copy that repeats refills
    // What is now in flight.
    Issued now{m, bar, iteration_};
    if (is_copy(m)) st.copies.push_back(now);
    else if (m.what == "TMA store") st.open_stores.push_back(now);
    else if (m.what == "mma") st.mmas.push_back(now);
    else if (m.write) st.unfenced.push_back(now);
  }

  // A copy into a buffer that other threads read: they must have released it.
  void refill(const MemAccess& m, const State& st) {
    std::set<std::string> releases;
    const Placed* reader = nullptr;
    for (const Placed& r : readers_[m.buf.name]) {
      if (!concurrent(r.agent, agent_)) continue;
      if (!reader) reader = &r;
      for (const Placed& a : arrivals_)
        if (!concurrent(a.agent, r.agent) && concurrent(a.agent, agent_)) releases.insert(a.barrier);
    }
    if (!reader) return;
    for (const std::string& b : releases)
      if (st.maybe_waited.count(b)) return;
    std::string names;
    for (const std::string& b : releases) names += (names.empty() ? "'" : ", '") + b + "'";
    error("pipeline stage refilled before its release", m, reader->m,
          "the " + m.what + " at " + m.loc.str() + " refills shared buffer '" + m.buf.name + "', which the " + reader->m.what +
              " at " + reader->m.loc.str() + " (other threads) reads, without waiting for the readers to release it" +
              (names.empty() ? " (they arrive on no barrier)" : " (they arrive on " + names + ")"),
          names.empty() ? "have the readers arrive on an 'empty' barrier after reading and wait on it before " + line_of(m.loc)
                        : "wait on " + names + " before " + line_of(m.loc) + " (Pipeline::acquire does this)");
  }

  const Kernel& k_;
  const Defs defs_;
  Findings& out_;
  Agent agent_;
  Bindings iteration_;
};

}  // namespace

void check_async_proxy(const Kernel& k, Findings& out) {
  Walk w(k, out);
  Agent agent;
  w.survey(k.body, agent, 0);
  const size_t errors = out.errors.size(), lines = out.checks.size();
  State st;
  w.walk(k.body, st);
  size_t copies = 0;
  for (const auto& [b, c] : w.copies_) copies += c.size();
  if (out.errors.size() == errors && out.checks.size() == lines)
    out.checks.push_back({RaceCheck::Verified, "async proxy",
                          std::to_string(w.accesses) + " shared-memory accesses walked, " + std::to_string(copies) +
                              " asynchronous copies into shared memory"});
}

}  // namespace tj::codegen::race
