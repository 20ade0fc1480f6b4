// The hazards the async-proxy walk meets (race_async.cpp walks): each access is
// checked against what is in flight on its path, each arrive that gives a pipeline
// stage back against the reads of that stage still running or still to come, each
// read of an accumulator against the MMAs writing it.
#include <set>

#include "codegen/analysis/ir_queries.h"
#include "codegen/passes/race_async_walk.h"
#include "codegen/passes/race_checks.h"
#include "codegen/analysis/eval.h"
#include "dsl/ir/printer.h"

namespace tj::codegen::race {

using namespace tj::ir;

std::string buffer_text(const MemAccess& m) { return "shared buffer '" + m.buf.name + "'"; }
const char* verb(const MemAccess& m) { return m.write ? "overwrites" : "reads"; }

size_t newer_than(const std::vector<std::vector<Issued>>& groups, const Issued& i) {
  for (size_t g = 0; g < groups.size(); ++g)
    for (const Issued& j : groups[g])
      if (j.m.loc.line == i.m.loc.line && j.m.loc.column == i.m.loc.column) return groups.size() - 1 - g;
  return 0;
}

namespace {

Version version(const Versions& v, const std::string& name) {
  auto it = v.find(name);
  return it == v.end() ? Version{} : it->second;
}

// Where a local of one base is bound to evaluate two indices: its shifts from a value
// that keeps both positive and every residue modulo 1..16 (a stage count) as the shifts
// give it, so that (it - 3) % stages meets it % stages exactly where they can be equal.
constexpr int64_t kShiftOrigin = int64_t(720720) * 1024;

}  // namespace

Issued AsyncWalk::issued(const MemAccess& m, const std::string& bar, const State& st) const {
  Issued i;
  i.m = m, i.barrier = bar, i.iteration = iteration_, i.versions = st.versions, i.agent = agent_;
  return i;
}

bool AsyncWalk::overlaps(const MemAccess& m, const Issued& i) const {
  return i.m.buf.name == m.buf.name && !disjoint(k_, defs_, i.m, i.iteration, m, iteration_);
}

bool AsyncWalk::meets(const MemAccess& m, const State& st, const Issued& i) const {
  if (i.m.buf.name != m.buf.name) return false;
  Bindings now = iteration_, then = i.iteration;
  std::vector<std::string> names;
  var_names(m.index, names);
  var_names(i.m.index, names);
  const std::vector<Dim3> threads = running_threads();
  for (const std::string& n : names) {
    const Version a = version(st.versions, n), b = version(i.versions, n);
    // A local assigned once whose value the thread and the walked iterations give (the
    // role's `wg`) is evaluated per thread through its definition instead.
    auto def = defs_.find(n);
    if (def != defs_.end() && !threads.empty() &&
        eval_int(def->second, EvalEnv{k_.cluster, k_.block, std::nullopt, threads.front(), &now, &defs_}))
      continue;
    if (!now.count(n) && !then.count(n) && a.base == b.base) now[n] = kShiftOrigin + a.shift, then[n] = kShiftOrigin + b.shift;
  }
  return !disjoint(k_, defs_, i.m, then, m, now, &threads);
}

std::optional<int64_t> AsyncWalk::at_thread(const Expr& e, const Dim3& t) const {
  return eval_int(e, EvalEnv{k_.cluster, k_.block, std::nullopt, t, nullptr, &defs_});
}

bool AsyncWalk::runs(const Dim3& t, const Splits& splits) const {
  for (const auto& [cond, branch] : splits) {
    std::optional<int64_t> v = at_thread(cond, t);
    if (v && (*v != 0) != branch) return false;
  }
  return true;
}

std::vector<Dim3> AsyncWalk::threads_of(const Splits& splits) const {
  std::vector<Dim3> threads;
  for (unsigned w = 0; w < k_.block.x; w += 32)
    for (unsigned x : {w, std::min(w + 31, k_.block.x - 1)})
      if (runs(Dim3{x, 0, 0}, splits)) threads.push_back(Dim3{x, 0, 0});
  return threads;
}

std::vector<Dim3> AsyncWalk::running_threads() const { return threads_of(splits_); }

std::string AsyncWalk::unordered(const Issued& read) const {
  const std::vector<Dim3> arrivers = running_threads();
  if (arrivers.empty()) return "";
  // A phase completes once all its arrivals are in (the arrivals check counts them): a
  // reader is done before it when one arrival that it needs comes after the read, in
  // its own thread, its warp (the warp issues them in order: the corpus's
  // `if_(lane_id() == 0, release)` after the read), or a thread it met at a barrier since.
  auto ordered = [&](const Dim3& t, const Dim3& a) {
    if (t.x / 32 == a.x / 32) return true;
    for (const Meeting& m : read.met) {
      if (!runs(t, m.splits) || !runs(a, m.splits)) continue;
      const std::optional<int64_t> it = m.id ? at_thread(m.id, t) : std::nullopt, ia = m.id ? at_thread(m.id, a) : std::nullopt;
      if (!it || !ia || *it == *ia) return true;
    }
    return false;
  };
  for (const Dim3& t : threads_of(read.waiters.front().splits)) {
    if (runs(t, splits_)) continue;  // it arrives too, after its own read
    // It arrives elsewhere (another branch of its own) on a barrier the producer waits on
    // before refilling the buffer: that arrival is needed too.
    bool arrives = false;
    if (auto g = gates_.find(read.m.buf.name); g != gates_.end())
      for (const std::string& b : g->second)
        if (auto p = arrive_paths_.find(b); p != arrive_paths_.end())
          for (const Splits& path : p->second) arrives = arrives || runs(t, path);
    if (arrives) continue;
    bool done = false;
    for (const Dim3& a : arrivers) done = done || ordered(t, a);
    if (!done)
      return "thread " + std::to_string(t.x) + " reads it at " + read.m.loc.str() + ", and no arriving thread (thread " +
             std::to_string(arrivers.front().x) + (arrivers.size() > 1 ? " and others" : "") +
             ") arrives after a barrier that both meet";
  }
  return "";
}

std::string AsyncWalk::not_waited(const std::vector<Waiter>& waiters, const std::string& barrier) const {
  if (waiters.empty()) return "";
  const std::vector<Dim3> threads = running_threads();
  // A thread of this path outside the waiter's conditions; none when the waiter covers them all.
  auto outside = [&](const Waiter& w) -> std::optional<std::pair<Dim3, size_t>> {
    for (const Dim3& t : threads)
      for (size_t i = 0; i < w.splits.size(); ++i) {
        const auto& [cond, branch] = w.splits[i];
        const std::optional<int64_t> v = at_thread(cond, t);
        if (v && (*v != 0) != branch) return std::make_pair(t, i);
      }
    return std::nullopt;
  };
  for (const Waiter& w : waiters)
    if (!outside(w)) return "";
  const Waiter& w = waiters.back();
  const auto [t, i] = *outside(w);
  const std::string cond = ir::to_string(w.splits[i].first);
  return "the wait on barrier '" + barrier + "' at " + w.loc.str() + " runs only in the threads where " +
         (w.splits[i].second ? cond : "!" + cond) + ", and thread " + std::to_string(t.x) +
         " reads without waiting or meeting them at a barrier after it";
}

std::string AsyncWalk::wrong_stage(const MemAccess& m, const Placed& c, const State& st) const {
  auto waits = st.waited_at.find(c.barrier);
  if (!m.index || !c.m.index || !c.bar_index || waits == st.waited_at.end() || waits->second.empty()) return "";
  // The copy's own index: at most one name the walk does not fix (the producer's loop
  // index), tried over enough values to wrap any ring.
  std::vector<std::string> names;
  var_names(c.m.index, names);
  var_names(c.bar_index, names);
  std::set<std::string> free;
  for (const std::string& n : names)
    if (!defs_.count(n) && !iteration_.count(n)) free.insert(n);
  if (free.size() > 1) return "";
  for (const Dim3& t : running_threads()) {
    const EvalEnv now{k_.cluster, k_.block, std::nullopt, t, &iteration_, &defs_};
    const std::optional<int64_t> read = eval_int(m.index, now);
    if (!read) return "";
    std::set<int64_t> waited;
    for (const auto& [index, loc] : waits->second) {
      std::optional<int64_t> w = eval_int(index, now);
      if (!w) return "";
      waited.insert(*w);
    }
    for (int64_t p = 0; p < 64; ++p) {
      Bindings b = iteration_;
      if (!free.empty()) b[*free.begin()] = p;
      const EvalEnv then{k_.cluster, k_.block, std::nullopt, std::nullopt, &b, &defs_};
      const std::optional<int64_t> start = eval_int(c.m.index, then), bar = eval_int(c.bar_index, then);
      if (!start || !bar) return "";
      const bool overlap = *read < *start + int64_t(c.m.extent) && *start < *read + int64_t(m.extent);
      if (overlap && !waited.count(*bar)) {
        std::string seen;
        for (const auto& [index, loc] : waits->second)
          seen += (seen.empty() ? "" : ", ") + c.barrier + "[" + ir::to_string(index) + "] at " + loc.str();
        return "the " + c.m.what + " at " + c.m.loc.str() + " fills the part it reads (" + m.buf.name + "[" +
               ir::to_string(m.index) + "]) and completes on " + c.barrier + "[" + ir::to_string(c.bar_index) +
               "], but this iteration waited on " + seen + ": in some iterations these are different barriers";
      }
      if (free.empty()) break;
    }
  }
  return "";
}

void AsyncWalk::partly_waited(const MemAccess& m, const MemAccess& copy, const std::string& barrier, const Waiter& w,
                              const std::string& why) {
  error("copy destination read by threads that did not wait", m, copy,
        "the " + m.what + " at " + m.loc.str() + " " + verb(m) + " " + buffer_text(m) + ", which the " + copy.what + " at " +
            copy.loc.str() + " fills: " + why,
        "wait on '" + barrier + "' in every thread that reads it, or let the readers meet the waiting threads "
        "(sync_threads, role_sync or warpgroup_sync) between " + line_of(w.loc) + " and " + line_of(m.loc));
}

void AsyncWalk::error(const std::string& subject, const MemAccess& m, const MemAccess& other, std::string msg, std::string fix) {
  out_.hazard(k_, "async proxy: " + subject, {m.loc, other.loc}, Diagnostic{m.loc, std::move(msg), std::move(fix)});
}

void AsyncWalk::access(const MemAccess& m, const std::string& bar, State& st) {
  ++accesses;
  const std::string buf = buffer_text(m);
  // A copy's destination, touched before the copy is waited for.
  if (!is_copy(m)) {
    bool found = false;
    for (const Issued& c : st.copies)
      if (overlaps(m, c)) {
        found = true;
        if (!c.waiters.empty()) {
          const std::string why = not_waited(c.waiters, c.barrier);
          found = !why.empty();
          if (found) partly_waited(m, c.m, c.barrier, c.waiters.back(), why);
          if (found) break;
          continue;
        }
        error("copy destination read before its wait", m, c.m,
              "the " + m.what + " at " + m.loc.str() + " " + verb(m) + " " + buf + " while the " + c.m.what + " at " +
                  c.m.loc.str() + " into it may still be landing: no wait on barrier '" + c.barrier + "' between them",
              "wait on '" + c.barrier + "' (wait or wait_local) between " + line_of(c.m.loc) + " and " + line_of(m.loc));
        break;
      }
    for (const Placed& c : copies_[m.buf.name]) {
      if (found || !concurrent(c.agent, agent_)) continue;
      if (st.waited.count(c.barrier)) {
        if (auto ws = st.waiters.find(c.barrier); ws != st.waiters.end()) {
          const std::string who = not_waited(ws->second, c.barrier);
          if (!who.empty()) {
            found = true;
            partly_waited(m, c.m, c.barrier, ws->second.back(), who);
            continue;
          }
        }
        const std::string why = wrong_stage(m, c, st);
        if (why.empty()) continue;
        found = true;
        error("copy destination read before its wait", m, c.m,
              "the " + m.what + " at " + m.loc.str() + " " + verb(m) + " " + buf + " where another stage's copy may still be landing: " + why,
              "read the part whose barrier this iteration waited on (a Pipeline's slot(it) with wait_full(it)), or wait "
              "on the barrier of the part it reads");
        continue;
      }
      found = true;
      error("copy destination read before its wait", m, c.m,
            "the " + m.what + " at " + m.loc.str() + " " + verb(m) + " " + buf + ", which the " + c.m.what + " at " +
                c.m.loc.str() + " (other threads) fills, without first waiting on barrier '" + c.barrier + "'" +
                (iteration_.empty() ? "" : " in the same loop iteration"),
            "wait on '" + c.barrier + "' before " + line_of(m.loc));
    }
    if (!found) read_released(m, st);
    // A read of what other threads' copies fill: the arrive that gives it back must follow it.
    bool filled_by_others = false;
    for (const Placed& c : copies_[m.buf.name]) filled_by_others |= concurrent(c.agent, agent_);
    if (!m.async && filled_by_others) {
      Issued r = issued(m, "", st);
      r.waiters = {Waiter{splits_, m.loc}};
      st.stage_reads.push_back(std::move(r));
    }
  }
  if (m.write) {
    bool found = false;
    for (const Issued& s : st.open_stores)
      if (!found && (stores_bounded_ ? meets(m, st, s) : overlaps(m, s))) {
        found = true;
        error("TMA store source overwritten", m, s.m,
              "the " + m.what + " at " + m.loc.str() + " overwrites " + buf + " while the TMA store at " + s.m.loc.str() +
                  " may still be reading it",
              "call bulk_commit() after the store and bulk_wait_read(n) between " + line_of(s.m.loc) + " and " +
                  line_of(m.loc) + ", n at most the store groups committed since");
      }
    for (const std::vector<Issued>& g : st.store_groups)
      for (const Issued& s : g)
        if (!found && (stores_bounded_ ? meets(m, st, s) : overlaps(m, s))) {
          found = true;
          if (s.kept.known()) {
            // A wait stood between them, one that lets this store's group stay in flight.
            error("TMA store source overwritten", m, s.m,
                  "the " + m.what + " at " + m.loc.str() + " overwrites " + buf + " while the TMA store at " + s.m.loc.str() +
                       " may still be reading it: the " + s.kept_call + " at " + s.kept.str() + " lets its group stay in flight",
                  "use bulk_wait_read(" + std::to_string(s.kept_need) + ") at " + line_of(s.kept) +
                      ", so that it waits until the TMA store at " + line_of(s.m.loc) + " has read its source");
          } else {
            error("TMA store source overwritten", m, s.m,
                  "the " + m.what + " at " + m.loc.str() + " overwrites " + buf + " while the TMA store at " + s.m.loc.str() +
                      " may still be reading it",
                  "call bulk_commit() after the store and bulk_wait_read(n) between " + line_of(s.m.loc) + " and " +
                      line_of(m.loc) + ", n at most the store groups committed since");
          }
        }
    found = false;
    for (const Issued& s : st.bulk_sources)
      if (!found && overlaps(m, s)) {
        found = true;
        error("bulk copy source overwritten", m, s.m,
              "the " + m.what + " at " + m.loc.str() + " overwrites " + buf + " while the bulk copy at " + s.m.loc.str() +
                  " may still be reading it: its reads end when the receiver's barrier completes, and " +
                  (s.kept.known() ? "the wait at " + s.kept.str() + " is on this CTA's own '" + s.barrier +
                                        "', which copies into this CTA complete, not on a hand-back from the receiver"
                                  : std::string("this thread waited on no barrier since")),
              "have the receiver hand the buffer back (an mbarrier it arrives on after its wait, or a cluster barrier) and "
              "wait for that between " + line_of(s.m.loc) + " and " + line_of(m.loc));
      }
    found = false;
    for (size_t gi = 0; gi < st.mmas.size(); ++gi)
      for (const Issued& s : st.mmas[gi])
        if (!found && (mmas_bounded_ ? meets(m, st, s) : overlaps(m, s))) {
          found = true;
          // mma_wait(n) leaves the n newest groups in flight: the groups issued after this one.
          const size_t newer = st.mmas.size() - 1 - gi;
          const bool next_iteration = m.loc.line < s.m.loc.line;
          const std::string where = next_iteration ? "after " + line_of(s.m.loc) + " and before " + line_of(m.loc) + " of the next iteration"
                                                   : "between " + line_of(s.m.loc) + " and " + line_of(m.loc);
          error("MMA operand overwritten", m, s.m,
                "the " + m.what + " at " + m.loc.str() + " overwrites " + buf + " while the mma at " + s.m.loc.str() +
                    " may still be reading it",
                commits_ ? "wait on the barrier of an mma_commit issued after the mma, " + where
                         : "call mma_wait(" + std::to_string(newer) + ") " + where);
        }
  }
  // The async proxy reads what ordinary writes left only after a proxy fence.
  const bool tma_store = m.what == "TMA store", mma = m.what == "mma", bulk_source = m.what == "bulk copy" && !m.write;
  if (tma_store || mma || bulk_source) {
    async_reads_.push_back({"", agent_, m});
    for (const Issued& w : st.unfenced)
      if (overlaps(m, w)) {
        fenced_.insert({w.m.loc.str() + ":" + std::to_string(w.m.loc.column), m.loc.str() + ":" + std::to_string(m.loc.column)});
        error(tma_store     ? "generic write read by a TMA store without a fence"
              : bulk_source ? "generic write read by a bulk copy without a fence"
                            : "generic write read by an MMA without a fence",
              m, w.m,
              "the " + m.what + " at " + m.loc.str() + " reads " + buf + " written by the " + w.m.what + " at " +
                  w.m.loc.str() + " with no fence_proxy_async() between: " +
                  (mma ? "the tensor cores read it through the async proxy and may read old data"
                       : "the copy engine may read old data"),
              "add fence_proxy_async() (and a barrier among the writing threads) between " + line_of(w.m.loc) + " and " +
                  line_of(m.loc));
        break;
      }
  }
  // A TMA store or bulk copy is issued by some threads; what the others wrote reaches it only
  // after a barrier among them (the fence orders the writing thread's own proxies only). An
  // MMA is issued by each warp of the warpgroup for the whole operand: what other warps
  // wrote reaches it only after a barrier among them too.
  if (mma)
    for (const Issued& w : st.unsynced) {
      if (!overlaps(m, w) || concurrent(w.agent, agent_)) continue;
      error("generic writes of other threads read by an MMA without a barrier", m, w.m,
            "the " + m.what + " at " + m.loc.str() + " reads " + buf + " written by the " + w.m.what + " at " + w.m.loc.str() +
                " with no barrier among the writing threads between: each warp of the warpgroup issues the MMA for the "
                "whole operand, which may read rows other warps have not written yet (the fence orders each thread's own "
                "writes only)",
            "after fence_proxy_async(), let the writing threads meet (warpgroup_sync, role_sync or sync_threads) before " +
                line_of(m.loc));
      break;
    }
  if (tma_store || bulk_source)
    for (const Issued& w : st.unsynced) {
      const bool others = w.agent.size() < agent_.size() && !concurrent(w.agent, agent_);
      if (!others || !overlaps(m, w)) continue;
      error(tma_store ? "generic writes of other threads read by a TMA store without a barrier"
                      : "generic writes of other threads read by a bulk copy without a barrier",
            m, w.m,
            "the " + m.what + " at " + m.loc.str() + " reads " + buf + " written by the " + w.m.what + " at " + w.m.loc.str() +
                " in more threads than issue the copy, with no barrier among them between: the copy may read before the "
                "other threads' writes (fenced or not) are done",
            "after fence_proxy_async(), let the writing threads meet (sync_threads, role_sync or warpgroup_sync) before " +
                line_of(m.loc));
      break;
    }
  if (is_copy(m) && !iteration_.empty()) refill(m, st);  // a copy that repeats refills
  // What is now in flight.
  Issued now = issued(m, bar, st);
  if (is_copy(m)) st.copies.push_back(now);
  else if (tma_store) st.open_stores.push_back(now);
  else if (bulk_source) st.bulk_sources.push_back(now);
  else if (mma) st.mmas.back().push_back(now);
  else if (m.write) st.unfenced.push_back(now), st.unsynced.push_back(now);
}

void AsyncWalk::read_accumulator(const StmtNode& s, const State& st) {
  // The accumulators the statement reads or writes outside the tensor cores: each must
  // have no MMA into it in flight.
  struct Use {
    std::string acc, how;
  };
  std::vector<Use> uses;
  std::string what;
  const auto elements = [&](const Expr& e) {
    for (const FragElem* f : elem_reads(e).values) uses.push_back({f->fragment, "reads"});
  };
  if (const AccStore* a = s.as<AccStore>()) {
    what = "store_accumulator";
    uses.push_back({a->acc, "reads"});
    elements(a->epilogue);
  } else if (const AccPartial* p = s.as<AccPartial>()) {
    what = acc_partial_name(p->op);
    const bool adds = p->op == AccPartialOp::Add || p->op == AccPartialOp::Take;
    uses.push_back({p->acc, adds ? "adds into" : "reads"});
  } else if (const FragMap* f = s.as<FragMap>()) {
    what = "acc_map";
    uses.push_back({f->dst, "writes"});
    elements(f->value);
  } else if (const RowReduce* r = s.as<RowReduce>()) {
    what = "row_" + std::string(reduce_name(r->op));
    uses.push_back({r->src, "reads"});
  } else if (const Mma* m = s.as<Mma>(); m && !m->a_fragment.empty()) {
    what = "mma";
    uses.push_back({m->a_fragment, "reads as its A operand"});
  }
  for (const Use& u : uses)
    for (const Issued& i : st.committed)
      if (i.acc == u.acc) {
        const MemAccess here{{}, nullptr, 1, false, false, false, what, s.loc};
        error("accumulator read before its MMA completed", here, i.m,
              "the " + what + " at " + s.loc.str() + " " + u.how + " accumulator '" + u.acc + "' while the mma at " + i.m.loc.str() +
                  " may still be writing it",
              "wait on the barrier of an mma_commit issued after line " + std::to_string(i.m.loc.line) +
                  " (it completes once the MMA has) before " + line_of(s.loc));
        return;
      }
  for (const Use& u : uses)
    for (const std::vector<Issued>& g : st.mmas)
      for (const Issued& i : g)
        if (i.acc == u.acc) {
          const MemAccess here{{}, nullptr, 1, false, false, false, what, s.loc};
          error("accumulator read before mma_wait", here, i.m,
                "the " + what + " at " + s.loc.str() + " " + u.how + " accumulator '" + u.acc + "' while the mma at " +
                    i.m.loc.str() + " may still be writing it",
                commits_ ? "mma_commit to a barrier after line " + std::to_string(i.m.loc.line) + " and wait on it before " + line_of(s.loc)
                         : "call mma_wait(0) between " + line_of(i.m.loc) + " and " + line_of(s.loc));
          return;
        }
  for (const Use& u : uses) {
    if (auto un = st.unready.find(u.acc); un != st.unready.end()) {
      const MemAccess here{{}, nullptr, 1, false, false, false, what, s.loc};
      MemAccess at_wait = here;
      at_wait.what = "mma_wait", at_wait.loc = un->second;
      error("accumulator read after a wait that does not name it", here, at_wait,
            "the " + what + " at " + s.loc.str() + " " + u.how + " accumulator '" + u.acc + "', completed by the mma_wait at " +
                un->second.str() + " with groups still pending, which does not name it: the compiler may move the access above the wait",
            "name it in that wait: mma_wait(n, {" + u.acc + "})");
      return;
    }
    for (const std::vector<Issued>& g : st.mmas)
      for (const Issued& i : g)
        if (u.how == "writes" && i.a_frag == u.acc) {
          const MemAccess here{{}, nullptr, 1, false, false, false, what, s.loc};
          error("accumulator read before mma_wait", here, i.m,
                "the " + what + " at " + s.loc.str() + " writes '" + u.acc + "' while the mma at " + i.m.loc.str() +
                    " may still be reading it as its A operand",
                "call mma_wait between " + line_of(i.m.loc) + " and " + line_of(s.loc) + " that leaves that mma done");
          return;
        }
  }
}

void AsyncWalk::check_handed_over_writes(const State& end) {
  leave(end);
  for (const Placed& r : async_reads_)
    for (const Issued& w : leaked_) {
      if (!concurrent(w.agent, r.agent) || w.m.buf.name != r.m.buf.name) continue;
      if (!disjoint(k_, defs_, w.m, {}, r.m, {})) {
        const std::pair<std::string, std::string> key{w.m.loc.str() + ":" + std::to_string(w.m.loc.column),
                                                      r.m.loc.str() + ":" + std::to_string(r.m.loc.column)};
        if (!fenced_.insert(key).second) continue;
        const bool mma = r.m.what == "mma";
        error(mma ? "generic write read by an MMA without a fence" : "generic write read by a TMA store without a fence", r.m,
              w.m,
              "the " + r.m.what + " at " + r.m.loc.str() + " reads " + buffer_text(r.m) + ", which the " + w.m.what + " at " +
                  w.m.loc.str() + " (other threads) writes with no fence_proxy_async() after it: " +
                  (mma ? "the tensor cores may read old data" : "the copy engine may read old data"),
              "add fence_proxy_async() after " + line_of(w.m.loc) +
                  " in the threads that write it, before they hand the buffer over (arrive or barrier)");
      }
    }
}

void AsyncWalk::check_stores_at_exit(const State& end) {
  const Issued* open = nullptr;
  for (const Issued& s : end.open_stores) open = open ? open : &s;
  for (const std::vector<Issued>& g : end.store_groups)
    for (const Issued& s : g) open = open ? open : &s;
  if (!open) return;
  const bool committed = end.open_stores.empty();
  out_.hazard(k_, "async proxy: TMA store at exit", {open->m.loc},
              {open->m.loc,
               "the TMA store at " + open->m.loc.str() + " may still be reading " + buffer_text(open->m) +
                   " when the CTA exits: " +
                   (committed ? "no bulk_wait_read(0) or bulk_wait(0) follows its bulk_commit() on some path to the end"
                              : "it is never closed with bulk_commit() and waited for") +
                   "; the CTA's shared memory is released at exit while the copy engine reads it",
               std::string(committed ? "" : "call bulk_commit() after it, then ") +
                   "call bulk_wait_read(0) (or bulk_wait(0), which also waits for the global writes) in the issuing thread "
                   "after " + line_of(open->m.loc) + ", before the kernel ends"});
}

}  // namespace tj::codegen::race
