// The async proxy. The kernel is walked in program order as the CTA runs it:
// branches on the thread index run one after the other (other threads), uniform
// branches are alternatives (their states merged), roles start together, and loop
// bodies are walked twice or more (iteration i + 1 meets iteration i). The walk carries
// what is in flight on this path: copies into shared memory not yet waited for,
// TMA store groups not yet waited for reading, MMA groups not yet waited for,
// ordinary writes not yet fenced for the async proxy, and pipeline stages already
// given back to their producer. Copies made by other threads (another role,
// another thread branch) are met through waits: a reader must wait on their
// barrier in the same iteration, a producer must wait on a barrier its readers
// arrive on before refilling a stage they read, and the readers must arrive only
// after their last read of the stage has completed.
#include <algorithm>
#include <functional>
#include <set>

#include "codegen/passes/race_async_walk.h"
#include "codegen/passes/race_checks.h"
#include "dsl/ir/printer.h"

namespace tj::codegen::race {

using namespace tj::ir;

namespace {

// The barrier a copy completes on, as waits name it. A pair load (.cta_group::2)
// completes on the pair leader's barrier, which the odd CTA cannot wait on: only a wait
// on a path that runs in the pair leader alone (under is_pair_leader()) counts for it.
// The barrier of the array a copy completes on.
Expr copy_barrier_index(const StmtNode& s) {
  if (const TmaLoad* t = s.as<TmaLoad>()) return t->bar_index;
  if (const BulkCopy* c = s.as<BulkCopy>()) return c->bar_index;
  if (const StAsync* a = s.as<StAsync>()) return a->bar_index;
  if (const AccPartial* p = s.as<AccPartial>(); p && p->op == AccPartialOp::Send) return p->bar_index;
  if (const ClcTryCancel* c = s.as<ClcTryCancel>()) return c->bar_index;
  return nullptr;
}

// A bulk copy that completes on another CTA's barrier: for some CTA rank, its
// map_shared_rank names another rank (an index that does not evaluate counts as its own).
bool completes_in_peer(const BulkCopy& c, const Kernel& k) {
  const MapSharedRank* m = c.bar->as<MapSharedRank>();
  if (!m) return false;
  for (unsigned r = 0; r < k.cluster.count(); ++r) {
    const std::optional<int64_t> to = eval_int(m->rank, EvalEnv{k.cluster, k.block, r, Dim3{0, 0, 0}});
    if (to && *to != int64_t(r)) return true;
  }
  return false;
}

std::string copy_barrier(const StmtNode& s) {
  if (const TmaLoad* t = s.as<TmaLoad>()) return buffer_of(t->bar).name + (t->cta_group == 2 ? kPairSuffix : "");
  if (const BulkCopy* c = s.as<BulkCopy>()) return buffer_of(c->bar).name;
  if (const StAsync* a = s.as<StAsync>()) return buffer_of(a->bar).name;
  if (const AccPartial* p = s.as<AccPartial>(); p && p->op == AccPartialOp::Send) return buffer_of(p->bar).name;
  if (const ClcTryCancel* c = s.as<ClcTryCancel>()) return buffer_of(c->bar).name;
  return {};
}

}  // namespace

bool is_copy(const MemAccess& m) { return m.async && m.write; }

namespace {
// cluster_ctarank % 2 == 0 (is_pair_leader()), alone or as a conjunct.
bool implies_pair_leader(const Expr& e) {
  const Binary* b = e ? e->as<Binary>() : nullptr;
  if (!b) return false;
  if (b->op == BinOp::And) return implies_pair_leader(b->a) || implies_pair_leader(b->b);
  if (b->op != BinOp::Eq) return false;
  const Binary* mod = b->a->as<Binary>();
  const SpecialReg* rank = mod ? mod->a->as<SpecialReg>() : nullptr;
  return mod && mod->op == BinOp::Mod && rank && rank->reg == SpecialRegKind::ClusterCtaRank && const_int(mod->b) == 2 &&
         const_int(b->b) == 0;
}

// A store to a local: `x = x + c` or `x = x - c` (c a constant) shifts its value; any
// other store gives it a new one (Version).
void assigned(const Assign& a, Versions& versions) {
  const std::string name = a.var->as<VarRef>()->name;
  Version& v = versions[name];
  const Binary* b = a.value ? a.value->as<Binary>() : nullptr;
  const VarRef* self = b ? b->a->as<VarRef>() : nullptr;
  const std::optional<int64_t> c = b ? const_int(b->b) : std::nullopt;
  if (self && self->name == name && c && (b->op == BinOp::Add || b->op == BinOp::Sub)) {
    v.shift += b->op == BinOp::Add ? *c : -*c;
    return;
  }
  v = Version{v.base + 1, 0};
}
}  // namespace

bool AsyncWalk::in_pair_leader() const { return pair_leader_ > 0; }

bool AsyncWalk::has_commits(const Kernel& k) {
  bool found = false;
  for_each_stmt(k.body, [&](const StmtNode& s) {
    if (const MbarrierArrive* a = s.as<MbarrierArrive>()) found = found || a->commit_group != 0;
  });
  return found;
}

void AsyncWalk::survey(const Stmt& s, Agent& agent, int loops) {
  if (!s) return;
  if (const Block* b = s->as<Block>()) {
    for (const Stmt& c : b->body) survey(c, agent, loops);
    return;
  }
  const std::string bar = copy_barrier(*s);
  for (const MemAccess& m : accesses_of(k_, *s)) {
    if (is_copy(m)) copies_[m.buf.name].push_back({bar, agent, m, copy_barrier_index(*s)});
    else if (!m.write) readers_[m.buf.name].push_back({"", agent, m});
  }
  if (const MbarrierArrive* a = s->as<MbarrierArrive>()) {
    arrivals_.push_back({buffer_of(a->bar).name, agent, {}});
    arrive_paths_[buffer_of(a->bar).name].push_back(survey_splits_);
    if (loops) repeating_.insert(buffer_of(a->bar).name);
    if (a->tx) filling_.insert(buffer_of(a->bar).name);
  }
  if (!bar.empty()) filling_.insert(bar);
  if (!bar.empty() && loops) repeating_.insert(bar);
  if (const If* i = s->as<If>()) {
    const bool split = splits_threads(k_, i->cond, {});
    if (split) agent.push_back({ir::to_string(i->cond), true}), survey_splits_.push_back({i->cond, true});
    survey(i->then_body, agent, loops);
    if (split) agent.back().second = false, survey_splits_.back().second = false;
    survey(i->else_body, agent, loops);
    if (split) agent.pop_back(), survey_splits_.pop_back();
  } else if (const Role* r = s->as<Role>()) {
    agent.push_back({"role " + r->name, true});
    survey_splits_.push_back({r->condition(), true});
    survey(r->body, agent, loops);
    agent.pop_back();
    survey_splits_.pop_back();
  } else if (std::optional<LoopView> l = as_loop(*s)) {
    survey(l->body, agent, loops + 1);
  }
}

// A copy is gated by the waits its thread made since its previous copy: the producer
// that waits on empty_k, loads K, waits on empty_v and loads V gates K by empty_k only,
// and a load that follows another with no wait between (A and B of one stage) shares
// its gates. Loop bodies are walked twice, so that a wait at the end of an iteration
// gates the copies at the start of the next; thread branches and roles start from
// what their threads waited for before them.
void AsyncWalk::find_gates(const Stmt& s, Pending& p) {
  if (!s) return;
  if (const Block* b = s->as<Block>()) {
    for (const Stmt& c : b->body) find_gates(c, p);
    return;
  }
  if (const MbarrierWait* w = s->as<MbarrierWait>()) {
    if (p.after_copy) p.waits.clear(), p.must.clear(), p.after_copy = false;
    p.waits.insert(buffer_of(w->bar).name);
    p.must.insert(buffer_of(w->bar).name);
  }
  for (const MemAccess& m : accesses_of(k_, *s))
    if (is_copy(m)) {
      gates_[m.buf.name].insert(p.waits.begin(), p.waits.end());
      auto [must, first] = must_gates_.try_emplace(m.buf.name, p.must);
      if (!first) std::erase_if(must->second, [&](const std::string& b) { return !p.must.count(b); });
      p.after_copy = true;
    }
  if (const If* i = s->as<If>()) {
    const Pending before = p;
    Pending other = p;
    find_gates(i->then_body, p);
    find_gates(i->else_body, other);
    // A wait on one branch only (`if_(n >= stages, wait(empty[st]))`: the first trips have
    // nothing to wait for) gates what follows, as if on every path; otherwise either
    // branch's waits may, and those of both must.
    auto unchanged = [&](const Pending& q) { return q.waits == before.waits && q.after_copy == before.after_copy; };
    if (p.after_copy && !other.after_copy) p = std::move(other);
    else if (p.after_copy == other.after_copy) {
      const bool one_sided = unchanged(p) || unchanged(other);
      p.waits.insert(other.waits.begin(), other.waits.end());
      if (one_sided) p.must.insert(other.must.begin(), other.must.end());
      else std::erase_if(p.must, [&](const std::string& b) { return !other.must.count(b); });
    }
  } else if (const Role* r = s->as<Role>()) {
    Pending mine = p;
    find_gates(r->body, mine);
  } else if (std::optional<LoopView> l = as_loop(*s)) {
    for (int pass = 0; pass < 2; ++pass) find_gates(l->body, p);
  }
}

void AsyncWalk::walk(const Stmt& s, State& st) {
  if (!s) return;
  if (const Block* b = s->as<Block>()) {
    for (const Stmt& c : b->body) walk(c, st);
    return;
  }
  const std::string bar = copy_barrier(*s);
  if (s->as<AccStore>() || s->as<AccPartial>() || s->as<FragMap>() || s->as<RowReduce>() || s->as<Mma>()) read_accumulator(*s, st);
  if (s->as<Mma>()) st.mmas.emplace_back();  // the operands' accesses join this group
  const size_t sources = st.bulk_sources.size();
  for (const MemAccess& m : accesses_of(k_, *s)) access(m, bar, st);
  if (const BulkCopy* c = s->as<BulkCopy>(); c && completes_in_peer(*c, k_))
    for (size_t i = sources; i < st.bulk_sources.size(); ++i) st.bulk_sources[i].peer_barrier = true;
  if (const Mma* m = s->as<Mma>())
    for (Issued& i : st.mmas.back()) i.acc = m->acc, i.a_frag = m->a_fragment;
  if (const Mma* m = s->as<Mma>()) st.unready.erase(m->acc);  // in flight again: read only after a wait
  if (const Declare* d = s->as<Declare>()) st.versions[d->name] = Version{st.versions[d->name].base + 1, 0};
  else if (const Assign* a = s->as<Assign>()) assigned(*a, st.versions);
  if (const If* i = s->as<If>()) {
    const bool leader = implies_pair_leader(i->cond);
    pair_leader_ += leader;
    if (splits_threads(k_, i->cond, {})) {
      agent_.push_back({ir::to_string(i->cond), true});
      splits_.push_back({i->cond, true});
      walk(i->then_body, st);
      agent_.back().second = false;
      splits_.back().second = false;
      pair_leader_ -= leader;
      walk(i->else_body, st);
      pair_leader_ += leader;
      agent_.pop_back();
      splits_.pop_back();
    } else {
      State other = st;
      conditions_.push_back({i->cond, true});
      walk(i->then_body, st);
      conditions_.back().second = false;
      pair_leader_ -= leader;
      walk(i->else_body, other);
      pair_leader_ += leader;
      conditions_.pop_back();
      st = merge(std::move(st), other);
    }
    pair_leader_ -= leader;
  } else if (const Role* r = s->as<Role>()) {
    State mine = st;
    agent_.push_back({"role " + r->name, true});
    splits_.push_back({r->condition(), true});
    walk(r->body, mine);
    leave(mine);
    agent_.pop_back();
    splits_.pop_back();
    st = merge(std::move(st), mine);
  } else if (std::optional<LoopView> f = as_loop(*s)) {
    State entry = st;
    const std::set<std::string> renewed = renewed_each_iteration(*f);
    // The walk binds the index to the trip number: the index's value where the loop counts
    // up from 0 by 1, a relative number otherwise.
    const bool from_zero = f->counted() && const_int(f->begin) == 0 && const_int(f->step) == 1;
    if (f->counted() && !from_zero) ++relative_loops_;
    for (int it = 0, walks = iterations_to_walk(*f); it < walks; ++it) {
      for (const std::string& b : renewed) {
        st.waited.erase(b), st.maybe_waited.erase(b), st.waited_at.erase(b), st.waiters.erase(b);
        std::erase_if(st.gate_waits, [&](const GateWait& g) { return g.barrier == b; });
      }
      if (f->counted()) iteration_[f->var] = it;
      walk(f->body, st);
    }
    if (f->counted() && !from_zero) --relative_loops_;
    if (f->counted()) iteration_.erase(f->var);
    st = merge(std::move(st), entry);
  } else if (const ClusterBarrier* c = s->as<ClusterBarrier>(); c && c->op != ClusterBarrierOp::Arrive) {
    st.bulk_sources.clear();  // a receiver may have handed the sources back
    st.unsynced.clear();
    met(st, Waiter{splits_, s->loc});
  } else if (s->as<SyncThreads>() || (s->as<NamedBarrier>() && !s->as<NamedBarrier>()->arrive)) {
    st.unsynced.clear();  // the threads met
    met(st, Waiter{splits_, s->loc}, s->as<NamedBarrier>() ? s->as<NamedBarrier>()->id : nullptr);
  } else if (const MbarrierWait* w = s->as<MbarrierWait>()) {
    // A receiver may have handed the sources back; not through this CTA's own barrier of
    // the name a copy to a peer completes on (that barrier takes the peer's copies in).
    std::erase_if(st.bulk_sources, [&](const Issued& i) {
      const bool back = !i.peer_barrier || i.barrier != buffer_of(w->bar).name;
      if (back) st.handed_back.push_back(i);
      return back;
    });
    for (Issued& i : st.bulk_sources) i.kept = s->loc;
    // Taken as the writers' hand-over where the writing threads arrive on the barrier (an
    // arrive by all of them, or by threads whose path holds theirs); a barrier that only
    // one thread of them arrives on (a TMA's 'full') orders that thread's writes alone.
    std::erase_if(st.unsynced, [&](const Issued& u) { return handed_over(buffer_of(w->bar).name, u); });
    // The barrier waited on; in the pair leader, also as the barrier its pair loads complete on.
    std::vector<std::string> names = {buffer_of(w->bar).name};
    if (in_pair_leader()) names.push_back(names[0] + kPairSuffix);
    for (const std::string& name : names) {
      st.waited.insert(name);
      st.waited_at[name].push_back({w->index, w->loc});
      st.gate_waits.push_back({name, w->index, conditions_, w->loc});
      add(st.waiters[name], Waiter{splits_, w->loc});
      st.maybe_waited.insert(name);
      // A wait in some threads only completes the copy for them: the others read it
      // only after they meet those threads at a barrier.
      if (splits_.empty()) std::erase_if(st.copies, [&](const Issued& c) { return c.barrier == name; });
      else
        for (Issued& c : st.copies)
          if (c.barrier == name) add(c.waiters, Waiter{splits_, w->loc});
      // The MMAs a commit to this barrier covers have completed.
      std::erase_if(st.committed, [&](const Issued& c) { return c.commits.count(name) > 0; });
      // The stages this barrier's copies fill are the producer's new data from here on;
      // except a stage given back before its fill was waited for, whose next wait (on
      // its stage) is for the data it gave back: the refill is the one after.
      std::vector<Issued> kept;
      for (Issued& r : st.released) {
        bool fills = false;
        for (const Placed& c : copies_[r.m.buf.name]) fills |= c.barrier == name;
        if (fills && !r.before_fill) continue;  // refilled
        if (fills) {
          const bool its_stage = meets(released_part(r.m.buf.name, name, w->index, w->loc), st, r);
          if (its_stage && r.unconsumed == 0) continue;  // the wait for the refill
          if (its_stage) --r.unconsumed;                 // the wait for the data it gave back
        }
        kept.push_back(std::move(r));
      }
      st.released = std::move(kept);
      // Which stages this thread has waited for: a release of one it has not is before_fill.
      for (const auto& [buf, placed] : copies_)
        for (const Placed& c : placed)
          if (c.barrier == name) {
            st.fill_waits.push_back(issued(released_part(buf, name, w->index, w->loc), name, st));
            break;
          }
    }
  } else if (const MbarrierArrive* a = s->as<MbarrierArrive>()) {
    release(*a, st);
    // tcgen05.commit: every MMA this thread issued so far, committed or not, completes
    // before this arrival; a wait on the barrier retires them.
    if (a->commit_group) {
      const std::string name = buffer_of(a->bar).name;
      for (std::vector<Issued>& g : st.mmas)
        for (Issued& i : g) st.committed.push_back(std::move(i));
      st.mmas.clear();
      for (Issued& i : st.committed) i.commits.insert(name);
    }
  } else if (const BulkGroup* g = s->as<BulkGroup>()) {
    if (g->op == BulkGroupOp::Commit) {
      st.store_groups.push_back(std::move(st.open_stores));
      st.open_stores.clear();
    } else {
      while (st.store_groups.size() > g->pending) st.store_groups.erase(st.store_groups.begin());
      for (size_t n = 0; n < st.store_groups.size(); ++n)
        for (Issued& i : st.store_groups[n]) {
          i.kept = g->loc;
          i.kept_call = std::string(g->op == BulkGroupOp::Wait ? "bulk_wait(" : "bulk_wait_read(") +
                        std::to_string(g->pending) + ")";
          i.kept_need = unsigned(st.store_groups.size() - 1 - n);
        }
    }
  } else if (const MmaWait* w = s->as<MmaWait>()) {
    if (w->pending == 0) st.unready.clear();
    while (st.mmas.size() > w->pending) {
      // Completed here: readable when the wait names them (the fence keeps reads after it).
      for (const Issued& i : st.mmas.front())
        if (!std::count(w->ready.begin(), w->ready.end(), i.acc) && w->pending > 0) st.unready[i.acc] = w->loc;
      st.mmas.erase(st.mmas.begin());
    }
    for (const std::string& r : w->ready) st.unready.erase(r);
  } else if (const Fence* f = s->as<Fence>(); f && f->fence == FenceKind::ProxyAsyncShared) {
    st.unfenced.clear();
  }
}

// Twice, so that iteration i + 1 meets iteration i; more where a wait in the body
// leaves n >= 2 groups in flight (bulk_wait_read(2), mma_wait(2)): a group then
// lives until iteration i + n, which must be walked to meet it.
bool AsyncWalk::bounded_in_loops(const Kernel& k, StmtKind kind) {
  const StmtKind wait = kind == StmtKind::Mma ? StmtKind::MmaWait : StmtKind::BulkGroup;
  bool bounded = true;
  for_each_stmt(k.body, [&](const StmtNode& s) {
    std::optional<LoopView> f = as_loop(s);
    if (!f) return;
    bool issues = false, waits = false;
    for_each_stmt(f->body, [&](const StmtNode& n) {
      issues |= n.kind == kind;
      if (n.kind == wait) waits |= wait != StmtKind::BulkGroup || n.as<BulkGroup>()->op != BulkGroupOp::Commit;
    });
    bounded &= !issues || waits;
  });
  return bounded;
}

int AsyncWalk::iterations_to_walk(const LoopView& f) const {
  unsigned pending = 1;
  for_each_stmt(f.body, [&](const StmtNode& s) {
    if (const BulkGroup* g = s.as<BulkGroup>(); g && g->op != BulkGroupOp::Commit) pending = std::max(pending, g->pending);
    if (const MmaWait* w = s.as<MmaWait>()) pending = std::max(pending, w->pending);
  });
  return int(std::min(pending, 3u)) + 1;
}

void AsyncWalk::leave(const State& st) {
  for (const Issued& w : st.unfenced) leaked_.push_back(w);
}

// The barriers whose waits one iteration of loop f cannot carry into the next:
// those with a phase per iteration that the body waits on, and those completing
// copies into a buffer that the body reads and gives back to its producer (an
// arrive on a barrier the producer waits on), so that the next iteration reads
// the next fill. A loop that only reads a stage waited for around it (the inner
// loop of a consumer over the stage's rows, say) or only releases (a loop over
// cluster ranks arriving on 'empty') keeps the enclosing iteration's waits.
std::set<std::string> AsyncWalk::renewed_each_iteration(const LoopView& f) {
  std::set<std::string> waited, read, arrived;
  std::function<void(const Stmt&)> scan = [&](const Stmt& s) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) scan(c);
      return;
    }
    if (const MbarrierWait* w = s->as<MbarrierWait>()) waited.insert(buffer_of(w->bar).name);
    if (const MbarrierArrive* a = s->as<MbarrierArrive>()) arrived.insert(buffer_of(a->bar).name);
    for (const MemAccess& m : accesses_of(k_, *s))
      if (!is_copy(m)) read.insert(m.buf.name);
    if (const If* i = s->as<If>()) scan(i->then_body), scan(i->else_body);
    else if (const Role* r = s->as<Role>()) scan(r->body);
    else if (std::optional<LoopView> g = as_loop(*s)) scan(g->body);
  };
  scan(f.body);
  std::set<std::string> used = waited;
  for (const std::string& buf : read) {
    bool gives_back = false;
    for (const std::string& b : arrived)
      for (const std::string& x : released_by(b)) gives_back |= x == buf;
    if (gives_back)
      for (const Placed& c : copies_[buf]) used.insert(c.barrier);
  }
  std::set<std::string> out;
  for (const std::string& b : repeating_)
    if (used.count(b)) out.insert(b);
  return out;
}

void check_async_proxy(const Kernel& k, Findings& out) {
  AsyncWalk w(k, out);
  Agent agent;
  w.survey(k.body, agent, 0);
  AsyncWalk::Pending none;
  w.find_gates(k.body, none);
  const size_t errors = out.errors.size(), lines = out.checks.size();
  State st;
  w.walk(k.body, st);
  w.settle_releases();
  w.check_handed_over_writes(st);
  w.check_stores_at_exit(st);
  size_t copies = 0;
  for (const auto& [b, c] : w.copies_) copies += c.size();
  // A multicast TMA load in a loop refills its buffer in every CTA of its mask, each refill gated by
  // the issuing CTA's waits: the other CTAs' readers are ordered before it only when they
  // give the buffer back to it too (an arrive through map_shared_rank on a gating barrier).
  // Where none does, whether their reads are done is not checked here.
  std::set<std::string> peer_arrived;
  for_each_stmt(k.body, [&](const StmtNode& s) {
    if (const MbarrierArrive* a = s.as<MbarrierArrive>(); a && buffer_of(a->bar).rank) peer_arrived.insert(buffer_of(a->bar).name);
  });
  std::string unchecked;
  for (const auto& [buf, placed] : w.copies_)
    for (const Placed& c : placed) {
      // Only a load that repeats (in a loop) refills what readers may still be reading.
      if (c.m.what != "multicast TMA load" || !w.repeating_.count(c.barrier) || !unchecked.empty()) continue;
      const std::set<std::string>& gates = w.gates_[buf];
      bool handed_back = false;
      std::string names;
      for (const std::string& g : gates) {
        handed_back |= peer_arrived.count(g) > 0;
        names += (names.empty() ? "'" : ", '") + g + "'";
      }
      if (!handed_back)
        unchecked = "the multicast TMA load at " + c.m.loc.str() + " refills shared buffer '" + buf +
                    "' in the other CTAs of its mask too, but their readers give it back on no barrier it waits for " +
                    (names.empty() ? "(it waits on none)" : "(no arrive on " + names + " through map_shared_rank)") +
                    ": whether their reads are done is not checked";
    }
  if (!unchecked.empty() && out.errors.size() == errors) out.checks.push_back({RaceCheck::NotChecked, "async proxy", unchecked});
  if (out.errors.size() == errors && out.checks.size() == lines)
    out.checks.push_back({RaceCheck::Verified, "async proxy",
                          std::to_string(w.accesses) + " shared-memory accesses walked, " + std::to_string(copies) +
                              " asynchronous copies into shared memory"});
}

}  // namespace tj::codegen::race
