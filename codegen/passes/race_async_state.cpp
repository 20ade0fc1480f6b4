#include "codegen/passes/race_async_state.h"

#include "dsl/ir/printer.h"

#include <algorithm>

namespace tj::codegen::race {

namespace {

// One issue of one access: the same place, buffer and walked iteration.
bool same_issue(const Issued& a, const Issued& b) {
  return a.m.loc.line == b.m.loc.line && a.m.loc.column == b.m.loc.column && a.m.buf.name == b.m.buf.name && a.iteration == b.iteration;
}

bool listed(const std::vector<Issued>& list, const Issued& i) {
  return std::any_of(list.begin(), list.end(), [&](const Issued& j) { return same_issue(i, j); });
}

void unite(std::vector<Issued>& a, const std::vector<Issued>& b) {
  for (const Issued& i : b)
    if (!listed(a, i)) a.push_back(i);
}

// Groups (bulk store groups, MMA groups) aligned from the newest: a wait counts from there.
std::vector<std::vector<Issued>> unite_groups(const std::vector<std::vector<Issued>>& a,
                                              const std::vector<std::vector<Issued>>& b) {
  std::vector<std::vector<Issued>> g(std::max(a.size(), b.size()));
  for (size_t i = 0; i < a.size(); ++i) unite(g[g.size() - a.size() + i], a[i]);
  for (size_t i = 0; i < b.size(); ++i) unite(g[g.size() - b.size() + i], b[i]);
  return g;
}

// The threads that waited on both paths: where one path's waiters lie within the
// other's, the narrower.
std::vector<Waiter> common_waiters(const std::vector<Waiter>& a, const std::vector<Waiter>& b) {
  std::vector<Waiter> out;
  for (const Waiter& x : a)
    for (const Waiter& y : b) {
      if (within(y, x)) add(out, y);
      else if (within(x, y)) add(out, x);
    }
  return out;
}

void widen(std::vector<Waiter>& ws, const Waiter& group) {
  for (const Waiter& w : ws)
    if (within(w, group)) {
      add(ws, Waiter{group.splits, w.loc});
      return;
    }
}

}  // namespace

bool within(const Waiter& inner, const Waiter& outer) {
  if (outer.splits.size() > inner.splits.size()) return false;
  for (size_t i = 0; i < outer.splits.size(); ++i)
    if (outer.splits[i].second != inner.splits[i].second ||
        ir::to_string(outer.splits[i].first) != ir::to_string(inner.splits[i].first))
      return false;
  return true;
}

void add(std::vector<Waiter>& ws, Waiter w) {
  for (const Waiter& x : ws)
    if (within(w, x)) return;
  std::erase_if(ws, [&](const Waiter& x) { return within(x, w); });
  ws.push_back(std::move(w));
}

void met(State& st, const Waiter& group, const ir::Expr& id) {
  for (Issued& r : st.stage_reads) r.met.push_back(Meeting{group.splits, id});
  for (auto& [bar, ws] : st.waiters)
    if (!ws.empty()) widen(ws, group);
  for (Issued& c : st.copies)
    if (!c.waiters.empty()) widen(c.waiters, group);
  // A source handed back to the thread that waited (on some path) is back for those it met.
  std::erase_if(st.bulk_sources, [&](const Issued& i) { return listed(st.handed_back, i); });
}

State merge(State a, const State& b) {
  std::set<std::string> both;
  for (const std::string& w : a.waited)
    if (b.waited.count(w)) both.insert(w);
  a.waited = both;
  // The waits both paths made, by their text.
  std::map<std::string, std::vector<std::pair<ir::Expr, ir::Loc>>> at;
  for (const std::string& w : both) {
    auto ia = a.waited_at.find(w);
    auto ib = b.waited_at.find(w);
    if (ia == a.waited_at.end() || ib == b.waited_at.end()) continue;
    for (const auto& x : ia->second)
      for (const auto& y : ib->second)
        if (ir::to_string(x.first) == ir::to_string(y.first)) {
          at[w].push_back(x);
          break;
        }
  }
  a.waited_at = std::move(at);
  std::map<std::string, std::vector<Waiter>> waiters;
  for (const std::string& w : both) {
    auto ia = a.waiters.find(w);
    auto ib = b.waiters.find(w);
    if (ia != a.waiters.end() && ib != b.waiters.end()) waiters[w] = common_waiters(ia->second, ib->second);
  }
  a.waiters = std::move(waiters);
  a.maybe_waited.insert(b.maybe_waited.begin(), b.maybe_waited.end());
  unite(a.copies, b.copies);
  unite(a.open_stores, b.open_stores);
  unite(a.bulk_sources, b.bulk_sources);
  unite(a.handed_back, b.handed_back);
  unite(a.unfenced, b.unfenced);
  unite(a.unsynced, b.unsynced);
  unite(a.released, b.released);
  unite(a.fill_waits, b.fill_waits);
  for (const GateWait& w : b.gate_waits) {
    bool seen = false;
    for (const GateWait& v : a.gate_waits) seen |= v.loc.line == w.loc.line && v.loc.column == w.loc.column && v.barrier == w.barrier;
    if (!seen) a.gate_waits.push_back(w);
  }
  unite(a.stage_reads, b.stage_reads);
  a.store_groups = unite_groups(a.store_groups, b.store_groups);
  a.mmas = unite_groups(a.mmas, b.mmas);
  unite(a.committed, b.committed);
  a.unready.insert(b.unready.begin(), b.unready.end());
  // A local assigned differently on the two paths has a value after the merge that
  // neither had before.
  for (const auto& [name, n] : b.versions) {
    Version& mine = a.versions[name];
    if (!(mine == n)) mine = Version{std::max(mine.base, n.base) + 1, 0};
  }
  for (auto& [name, n] : a.versions)
    if (!b.versions.count(name) && !(n == Version{})) n = Version{n.base + 1, 0};
  return a;
}

}  // namespace tj::codegen::race
