#include "codegen/analysis/guards.h"

#include <set>

#include "codegen/analysis/ir_queries.h"

namespace tj::codegen {

using namespace tj::ir;

void push_guard(Guards& g, const Expr& cond, bool negated, const Loc& loc) {
  std::vector<std::pair<Expr, bool>> parts;
  conjuncts(cond, negated, parts);
  for (auto& [e, neg] : parts) g.push_back({e, neg, loc});
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

bool may_pass(const Kernel& k, const Defs& d, const Guards& g, unsigned rank, const Dim3& t, const Bindings* vars) {
  EvalEnv env{k.cluster, k.block, rank, t, vars, &d};
  for (const Guard& c : g) {
    std::optional<int64_t> v = eval_int(c.expr, env);
    if (v && (*v != 0) == c.negated) return false;
  }
  return true;
}

std::optional<bool> all_hold(const Guards& g, const EvalEnv& env) {
  bool unknown = false;
  for (const Guard& c : g) {
    std::optional<int64_t> v = eval_int(c.expr, env);
    if (!v) unknown = true;
    else if ((*v != 0) == c.negated) return false;
  }
  return unknown ? std::nullopt : std::optional<bool>(true);
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

}  // namespace tj::codegen
