// The stages of a ring as the async-proxy walk sees them (the part of AsyncWalk that
// race_async_walk.h names for it): which part of a buffer an arrive gives back, a refill
// against the readers' releases, the stages given back and the reads that come after.
#include <set>

#include "codegen/analysis/eval.h"
#include "codegen/analysis/ir_queries.h"
#include "codegen/passes/race_async_walk.h"
#include "dsl/ir/printer.h"

namespace tj::codegen::race {

using namespace tj::ir;

// A copy into a buffer that other threads read: they must have released it.
void AsyncWalk::refill(const MemAccess& m, const State& st) {
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
    if (st.maybe_waited.count(b)) {
      const std::string why = other_stage_released(m, releases, st);
      if (!why.empty())
        error("pipeline stage refilled before its release", m, reader->m,
              "the " + m.what + " at " + m.loc.str() + " refills " + buffer_text(m) + ", which the " + reader->m.what + " at " +
                  reader->m.loc.str() + " (other threads) reads, " + why,
              "wait for the release of the stage it fills (a Pipeline's acquire(it) before filling its slot(it)) before " +
                  line_of(m.loc));
      return;
    }
  std::string names;
  for (const std::string& b : releases) names += (names.empty() ? "'" : ", '") + b + "'";
  error("pipeline stage refilled before its release", m, reader->m,
        "the " + m.what + " at " + m.loc.str() + " refills shared buffer '" + m.buf.name + "', which the " + reader->m.what +
            " at " + reader->m.loc.str() + " (other threads) reads, without waiting for the readers to release it" +
            (names.empty() ? " (they arrive on no barrier)" : " (they arrive on " + names + ")"),
        names.empty() ? "have the readers arrive on an 'empty' barrier after reading and wait on it before " + line_of(m.loc)
                      : "wait on " + names + " before " + line_of(m.loc) + " (Pipeline::acquire does this)");
}

std::string AsyncWalk::other_stage_released(const MemAccess& m, const std::set<std::string>& releases, const State& st) const {
  std::vector<const GateWait*> waits;
  for (const GateWait& g : st.gate_waits)
    if (releases.count(g.barrier)) waits.push_back(&g);
  const std::vector<Dim3> threads = running_threads();
  if (waits.empty() || !m.index || threads.empty() || relative_loops_ != 0) return "";
  // The loop index the copy's stage follows: one index bound by the walk, the same one
  // that the waits' stages and conditions name (any other name must evaluate alone).
  std::vector<std::string> names;
  var_names(m.index, names);
  for (const GateWait* g : waits) {
    var_names(g->index, names);
    for (const auto& [cond, branch] : g->conditions) var_names(cond, names);
  }
  for (const auto& [cond, branch] : conditions_) var_names(cond, names);
  std::set<std::string> loop;
  for (const std::string& n : names)
    if (iteration_.count(n)) loop.insert(n);
  if (loop.size() != 1) return "";
  for (int64_t p = 0; p < 64; ++p) {
    Bindings b = iteration_;
    b[*loop.begin()] = p;
    const EvalEnv env{k_.cluster, k_.block, std::nullopt, threads.front(), &b, &defs_};
    auto holds = [&](const std::vector<std::pair<ir::Expr, bool>>& conds) -> std::optional<bool> {
      for (const auto& [cond, branch] : conds) {
        const std::optional<int64_t> v = eval_int(cond, env);
        if (!v) return std::nullopt;
        if ((*v != 0) != branch) return false;
      }
      return true;
    };
    const std::optional<bool> copies = holds(conditions_);
    const std::optional<int64_t> start = eval_int(m.index, env);
    if (!copies || !start) return "";
    if (!*copies) continue;
    bool waited = false, covered = false;
    std::string seen;
    for (const GateWait* g : waits) {
      const std::optional<bool> runs = holds(g->conditions);
      if (!runs) return "";
      if (!*runs) continue;
      waited = true;
      const MemAccess part = released_part(m.buf.name, g->barrier, g->index, g->loc);
      if (!part.index) return "";  // the whole buffer goes back at once
      const std::optional<int64_t> first = eval_int(part.index, env), bar = eval_int(g->index, env);
      if (!first || !bar) return "";
      covered |= *start < *first + int64_t(part.extent) && *first < *start + int64_t(m.extent);
      seen += (seen.empty() ? "" : ", ") + g->barrier + "[" + std::to_string(*bar) + "] at " + g->loc.str();
    }
    // A trip that waits on none (a ring's first round) fills a stage never read yet.
    if (waited && !covered)
      return "after waiting on " + seen + " for another stage's release: in trip " + std::to_string(p) + " of its loop it fills " + m.buf.name + "[" + std::to_string(*start) + ".." + std::to_string(*start + int64_t(m.extent)) +
             "), which no wait of that trip gives back";
  }
  return "";
}

bool AsyncWalk::handed_over(const std::string& barrier, const Issued& w) const {
  for (const Placed& a : arrivals_) {
    if (a.barrier != barrier) continue;
    // The arriving path is a prefix of the writer's: every writing thread arrives.
    const bool holds = a.agent.size() <= w.agent.size() && std::equal(a.agent.begin(), a.agent.end(), w.agent.begin());
    if (holds || concurrent(a.agent, w.agent)) return true;
  }
  return false;
}

std::vector<std::string> AsyncWalk::released_by(const std::string& barrier) const {
  std::vector<std::string> out;
  if (filling_.count(barrier)) return out;  // a 'full' barrier announces data; it gives nothing back
  for (const auto& [buf, copies] : copies_) {
    bool fills = false;
    for (const Placed& c : copies) fills |= c.barrier == barrier;
    auto g = gates_.find(buf);
    if (!fills && g != gates_.end() && g->second.count(barrier)) out.push_back(buf);
  }
  return out;
}

// The part of `buf` an arrive on barrier [index] gives back: the stage of that number
// when the buffer holds as many stages (of its copies' size) as the barrier array has
// barriers, as Pipeline and the GEMM pair them; the whole buffer otherwise.
MemAccess AsyncWalk::released_part(const std::string& buf, const std::string& barrier, const Expr& index,
                                   const Loc& loc) const {
  MemAccess part{BufferRef{buf, nullptr}, nullptr, 1, false, false, false, "arrive", loc};
  const SharedBuffer* b = k_.find_shared(buf);
  const SharedBuffer* bars = k_.find_shared(barrier);
  if (!b || !bars || !index) return part;
  uint64_t stages = 0, stage_elems = 0;
  if (b->tile) {
    stages = b->tile->stages, stage_elems = 1;
  } else {
    for (const Placed& c : copies_.at(buf)) {
      if (stage_elems && stage_elems != c.m.extent) return part;
      stage_elems = c.m.extent;
    }
    if (stage_elems && b->count % stage_elems == 0) stages = b->count / stage_elems;
    // Stages padded past the copy (to keep each 128-byte aligned): one per barrier, evenly.
    else if (stage_elems && bars->count && b->count % bars->count == 0 && b->count / bars->count >= stage_elems)
      stages = bars->count, stage_elems = b->count / bars->count;
  }
  if (stages != bars->count) return part;
  part.index = b->tile ? index
                       : Binary::make(BinOp::Mul, Cast::make(Scalar::I64, index), IntImm::make(Scalar::I64, int64_t(stage_elems)));
  part.extent = stage_elems;
  return part;
}

void AsyncWalk::settle_releases() {
  std::map<std::string, const std::pair<size_t, std::function<void()>>*> first;  // per buffer
  for (const auto& [key, early] : early_releases_) {
    const auto& [buf, barrier] = key;
    bool decided = false;
    if (auto must = must_gates_.find(buf); must != must_gates_.end())
      for (const std::string& other : must->second)
        decided |= other != barrier && !filling_.count(other) && releases_seen_.count({buf, other}) &&
                   !early_releases_.count({buf, other});
    if (decided) continue;
    auto [at, fresh] = first.try_emplace(buf, &early);
    if (!fresh && early.first < at->second->first) at->second = &early;
  }
  for (const auto& [buf, early] : first) early->second();
}

void AsyncWalk::release(const MbarrierArrive& a, State& st) {
  const std::string bar = buffer_of(a.bar).name;
  bool found = false;  // one error per arrive, for the first stage it gives back too early
  for (const std::string& buf : released_by(bar)) {
    const Placed* producer = nullptr;
    for (const Placed& c : copies_[buf])
      if (concurrent(c.agent, agent_) && !producer) producer = &c;
    if (!producer) continue;  // the arriving threads refill the stage themselves, in program order
    bool reads = false;  // only a reader of the stage gives it back
    for (const Placed& r : readers_[buf]) reads |= !concurrent(r.agent, agent_);
    if (!reads) continue;
    releases_seen_.insert({buf, bar});
    // An arrive that gives the stage back early is reported after the walk, unless another
    // release of it decides (settle_releases).
    auto early = [&](const std::string& subject, const MemAccess& m, const MemAccess& other, std::string msg, std::string fix) {
      if (early_releases_.count({buf, bar})) return;
      early_releases_[{buf, bar}] = {early_releases_.size(), [this, subject, m, other, msg = std::move(msg), fix = std::move(fix)] {
                                       error(subject, m, other, msg, fix);
                                     }};
    };
    const MemAccess part = released_part(buf, bar, a.index, a.loc);
    const std::string tail = ": the " + producer->m.what + " at " + producer->m.loc.str() + " may refill it mid-read";
    // Ordinary reads of the stage by other threads: each reader arrives itself, after its
    // read, or meets the arriving threads at a barrier between.
    for (const Issued& r : st.stage_reads) {
      if (found || !meets(part, st, r)) continue;
      const std::string why = unordered(r);
      if (why.empty()) continue;
      found = true;
      early("pipeline stage released before other threads' reads", part, r.m,
            "the arrive at " + a.loc.str() + " gives " + buffer_text(r.m) + " back to its producer while other threads may still " +
                "be reading it: " + why + tail,
            "let every thread that reads the stage arrive on '" + bar + "' (counted in its arrivals), or let the readers meet " +
                "the arriving threads (role_sync, warpgroup_sync or sync_threads) between " + line_of(r.m.loc) + " and " +
                line_of(a.loc));
    }
    // A commit (tcgen05) arrives once this thread's MMAs have completed: it is the release.
    if (!a.commit_group) {
      for (const std::vector<Issued>& g : st.mmas)
        for (const Issued& i : g)
          if (!found && meets(part, st, i)) {
            found = true;
            early("pipeline stage released before its reads completed", part, i.m,
                  "the arrive at " + a.loc.str() + " gives " + buffer_text(i.m) + " back to its producer while the mma at " +
                      i.m.loc.str() + " may still be reading it" + tail,
                  commits_ ? "give the stage back with mma_commit(" + buffer_of(a.bar).name +
                                 "[...], group) after the mma: it arrives once the MMAs have completed"
                           : "call mma_wait(" + std::to_string(newer_than(st.mmas, i)) + ") between " + line_of(i.m.loc) + " and " +
                                 line_of(a.loc) + ": a stage goes back to its producer after its last read has completed");
          }
      for (const Issued& i : st.committed)
        if (!found && meets(part, st, i)) {
          found = true;
          early("pipeline stage released before its reads completed", part, i.m,
                "the arrive at " + a.loc.str() + " gives " + buffer_text(i.m) + " back to its producer while the mma at " +
                    i.m.loc.str() + " may still be reading it (a commit does not wait)" + tail,
                "give the stage back with mma_commit(" + buffer_of(a.bar).name + "[...], group) after the mma: it arrives once "
                "the MMAs have completed");
        }
    }
    // TMA stores still reading the stage, each with the wait that would let it go.
    std::vector<std::pair<const Issued*, std::string>> stores;
    for (const Issued& s : st.open_stores)
      stores.push_back({&s, "call bulk_commit() after line " + std::to_string(s.m.loc.line) + " and bulk_wait_read(0) before " +
                                line_of(a.loc)});
    for (const std::vector<Issued>& g : st.store_groups)
      for (const Issued& s : g)
        stores.push_back({&s, "call bulk_wait_read(" + std::to_string(newer_than(st.store_groups, s)) + ") between " +
                                  line_of(s.m.loc) + " and " + line_of(a.loc)});
    for (const auto& [s, wait] : stores)
      if (!found && meets(part, st, *s)) {
        found = true;
        early("pipeline stage released before its reads completed", part, s->m,
              "the arrive at " + a.loc.str() + " gives " + buffer_text(s->m) + " back to its producer while the TMA store at " +
                  s->m.loc.str() + " may still be reading it" + tail,
              wait + ": a stage goes back to its producer after its last read has completed");
      }
    Issued r = issued(part, bar, st);
    r.agent = {};
    // In a loop, a stage whose fill these threads have not waited for yet (release(it + 1)
    // where the reads are of slot(it)): the next wait on its stage is for the data it gave
    // back. Only where the stage is known here.
    if (!iteration_.empty() && known_here(part.index) && feasible_here()) {
      bool waited = false;
      for (const Issued& w : st.fill_waits) waited |= meets(part, st, w);
      r.before_fill = !waited;
      r.unconsumed = waited ? 0 : 1;
    }
    st.released.push_back(std::move(r));
  }
}

bool AsyncWalk::feasible_here() const {
  const std::vector<Dim3> threads = running_threads();
  if (threads.empty()) return false;
  for (const auto& [cond, branch] : conditions_) {
    const std::optional<int64_t> v =
        eval_int(cond, EvalEnv{k_.cluster, k_.block, std::nullopt, threads.front(), &iteration_, &defs_});
    if (v && (*v != 0) != branch) return false;
  }
  return true;
}

bool AsyncWalk::known_here(const Expr& e, bool exact) const {
  const std::vector<Dim3> threads = running_threads();
  return e && !threads.empty() && (!exact || relative_loops_ == 0) &&
         eval_int(e, EvalEnv{k_.cluster, k_.block, std::nullopt, threads.front(), &iteration_, &defs_}).has_value();
}

void AsyncWalk::read_released(const MemAccess& m, const State& st) {
  for (const Issued& r : st.released)
    // A stage given back before its fill counts where the read's part evaluates too (an
    // inner loop's index by its trip number: the stage is the outer index's).
    if (meets(m, st, r) && (!r.before_fill || known_here(m.index, false))) {
      const Placed* producer = nullptr;
      for (const Placed& c : copies_[m.buf.name])
        if (concurrent(c.agent, agent_) && !producer) producer = &c;
      if (!producer) continue;
      if (r.before_fill) {
        error("pipeline stage read after its release", m, r.m,
              "the " + m.what + " at " + m.loc.str() + " " + verb(m) + " " + buffer_text(m) + " after the arrive at " +
                  r.m.loc.str() + " gave it back to its producer before these threads had waited for its fill (the arrive " +
                  "gives back a stage that a later iteration reads): the " + producer->m.what + " at " + producer->m.loc.str() +
                  " may already be refilling it",
              "give back the stage this iteration waited for and read (a Pipeline's release(it) after wait_full(it)), after "
              "its last read");
        return;
      }
      error("pipeline stage read after its release", m, r.m,
            "the " + m.what + " at " + m.loc.str() + " " + verb(m) + " " + buffer_text(m) + " after the arrive at " +
                r.m.loc.str() + " gave it back to its producer: the " + producer->m.what + " at " +
                producer->m.loc.str() + " may already be refilling it",
            "move the arrive at " + line_of(r.m.loc) + " after " + line_of(m.loc) +
                ": a stage goes back to its producer after its last read");
      return;
    }
}

}  // namespace tj::codegen::race
