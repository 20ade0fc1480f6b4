#include "codegen/passes/race_model.h"

#include <set>

#include "dsl/ir/visitor.h"
#include "dsl/ir/loops.h"

namespace tj::codegen::race {

using namespace tj::ir;

BufferRef buffer_of(const Expr& ptr) {
  BufferRef out;
  Expr base = ptr;
  if (const MapSharedRank* m = ptr->as<MapSharedRank>()) {
    base = m->buffer;
    out.rank = m->rank;
  }
  if (const SharedRef* s = base->as<SharedRef>()) out.name = s->name;
  return out;
}

void push_guard(Guards& g, const Expr& cond, bool negated) {
  std::vector<std::pair<Expr, bool>> parts;
  conjuncts(cond, negated, parts);
  for (auto& [e, neg] : parts) g.push_back({e, neg});
}

bool may_pass(const Kernel& k, const Defs& d, const Guards& g, unsigned rank, const Dim3& t, const Bindings* vars) {
  EvalEnv env{k.cluster, k.block, rank, t, vars, &d};
  for (const Guard& c : g) {
    std::optional<int64_t> v = eval_int(c.expr, env);
    if (v && (*v != 0) == c.negated) return false;
  }
  return true;
}

namespace {
template <class F>
void each_thread(const Kernel& k, F&& f) {
  for (unsigned z = 0; z < k.block.z; ++z)
    for (unsigned y = 0; y < k.block.y; ++y)
      for (unsigned x = 0; x < k.block.x; ++x)
        if (!f(Dim3{x, y, z})) return;
}
uint32_t all_ranks(const Kernel& k) {
  const unsigned n = k.cluster.count();
  return n >= 32 ? ~0u : (1u << n) - 1;
}
}  // namespace

bool may_run(const Kernel& k, const Defs& d, const Guards& g, unsigned rank, const Bindings* vars) {
  bool any = false;
  each_thread(k, [&](const Dim3& t) {
    any = may_pass(k, d, g, rank, t, vars);
    return !any;
  });
  return any;
}

uint32_t ranks_named(const Kernel& k, const Defs& d, const Expr& e, const Guards& g, unsigned rank, const Bindings* vars) {
  // Most ranks do not depend on the thread: one evaluation decides.
  if (std::optional<int64_t> r = eval_int(e, EvalEnv{k.cluster, k.block, rank, std::nullopt, vars, &d}))
    return *r >= 0 && *r < int64_t(k.cluster.count()) && *r < 32 ? 1u << *r : 0u;
  uint32_t out = 0;
  each_thread(k, [&](const Dim3& t) {
    if (!may_pass(k, d, g, rank, t, vars)) return true;
    std::optional<int64_t> r = eval_int(e, EvalEnv{k.cluster, k.block, rank, t, vars, &d});
    if (!r) {
      out = all_ranks(k);
      return false;
    }
    if (*r >= 0 && *r < int64_t(k.cluster.count()) && *r < 32) out |= 1u << *r;
    return true;
  });
  return out;
}

std::string ranks_text(uint32_t ranks) {
  std::vector<unsigned> r;
  for (unsigned i = 0; i < 32; ++i)
    if ((ranks >> i) & 1u) r.push_back(i);
  if (r.empty()) return "no CTA";
  std::string out = r.size() == 1 ? "CTA rank " : "CTA ranks ";
  for (size_t i = 0; i < r.size(); ++i)
    out += (i == 0 ? "" : i + 1 == r.size() ? " and " : ", ") + std::to_string(r[i]);
  return out;
}

bool concurrent(const Agent& a, const Agent& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return true;
  return false;
}

bool splits_threads(const Kernel& k, const Expr& cond, const LoopScope&) {
  struct Finder : Visitor {
    bool found = false;
    void visit_node(const SpecialReg& n) override {
      found |= n.reg == SpecialRegKind::ThreadIdxX || n.reg == SpecialRegKind::ThreadIdxY ||
               n.reg == SpecialRegKind::ThreadIdxZ || n.reg == SpecialRegKind::LaneId;
    }
  } f;
  f.visit(cond);
  return f.found && k.block.count() > 1;
}

std::string line_of(const Loc& l) { return l.known() ? "line " + std::to_string(l.line) : "an unknown line"; }

std::string to_string(const RaceCheck& c) {
  switch (c.outcome) {
    case RaceCheck::Verified: return c.subject + ": verified" + (c.detail.empty() ? "" : " (" + c.detail + ")");
    case RaceCheck::NotChecked: return c.subject + ": not checked: " + c.detail;
    case RaceCheck::Allowed: return c.subject + ": allowed: " + c.detail;
  }
  return c.subject;
}

void Findings::hazard(const Kernel& k, const std::string& subject, std::vector<Loc> locs, Diagnostic d) {
  // Loop bodies are walked twice: the same finding once.
  for (const Diagnostic& e : errors)
    if (e.message == d.message && e.loc.line == d.loc.line) return;
  for (const RaceCheck& c : checks)
    if (c.outcome == RaceCheck::Allowed && c.detail.rfind(d.loc.str() + ": " + d.message, 0) == 0) return;
  for (const Loc& l : locs)
    if (const RaceAllowance* a = k.race_allowance(l)) {
      checks.push_back({RaceCheck::Allowed, subject,
                        d.loc.str() + ": " + d.message + " [allow_race at " + a->where.str() + ": \"" + a->reason + "\"]"});
      return;
    }
  errors.push_back(std::move(d));
}

Defs single_assignment_defs(const Kernel& k) {
  Defs defs;
  std::set<std::string> assigned;
  for_each_stmt(k.body, [&](const StmtNode& s) {
    if (const Declare* d = s.as<Declare>()) defs[d->name] = d->init;
    if (const Assign* a = s.as<Assign>())
      if (const VarRef* v = a->var->as<VarRef>()) assigned.insert(v->name);
  });
  for (const std::string& n : assigned) defs.erase(n);
  return defs;
}

void for_each_stmt(const Stmt& s, const std::function<void(const StmtNode&)>& f) {
  if (!s) return;
  f(*s);
  if (const Block* b = s->as<Block>())
    for (const Stmt& c : b->body) for_each_stmt(c, f);
  else if (const If* i = s->as<If>()) {
    for_each_stmt(i->then_body, f);
    for_each_stmt(i->else_body, f);
  } else if (std::optional<LoopView> l = as_loop(*s)) for_each_stmt(l->body, f);
  else if (const Role* r = s->as<Role>()) for_each_stmt(r->body, f);
  else if (const ForEachTile* t = s->as<ForEachTile>()) for_each_stmt(t->body, f);
}

void loads_in(const Expr& e, std::vector<const Load*>& out) {
  struct Finder : Visitor {
    std::vector<const Load*>& out;
    explicit Finder(std::vector<const Load*>& o) : out(o) {}
    void visit_node(const Load& n) override {
      Visitor::visit_node(n);
      out.push_back(&n);
    }
  } f(out);
  f.visit(e);
}

}  // namespace tj::codegen::race
