#include "codegen/analysis/conditions.h"

#include "dsl/ir/printer.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {

using namespace tj::ir;

namespace {

bool mentions(const Expr& e, const Bindings& vars) {
  struct Finder : Visitor {
    const Bindings& vars;
    bool found = false;
    explicit Finder(const Bindings& v) : vars(v) {}
    void visit_node(const VarRef& n) override { found |= vars.count(n.name) != 0; }
  } f(vars);
  f.visit(e);
  return f.found;
}

}  // namespace

bool ConditionEval::evaluable(const Expr& e, const Bindings& vars) {
  auto key = std::make_pair(e.get(), vars);
  if (auto it = evaluable_.find(key); it != evaluable_.end()) return it->second;
  if (closed(e, vars)) return evaluable_[key] = true;
  bool all = true;
  for (unsigned r = 0; all && r < k_.cluster.count(); ++r) {
    if (eval_int(e, EvalEnv{k_.cluster, k_.block, r, std::nullopt, &vars, &defs_})) continue;
    for (unsigned z = 0; all && z < k_.block.z; ++z)
      for (unsigned y = 0; all && y < k_.block.y; ++y)
        for (unsigned x = 0; all && x < k_.block.x; ++x)
          all = eval_int(e, EvalEnv{k_.cluster, k_.block, r, Dim3{x, y, z}, &vars, &defs_}).has_value();
  }
  return evaluable_[key] = all;
}

// Whether `e` is built only from constants, the thread index, the cluster's shape and
// rank, and bound loop indices or locals defined from those: then it has a value in
// every thread of every CTA (no division, which could be by zero).
bool ConditionEval::closed(const Expr& e, const Bindings& vars) const {
  if (e->as<IntImm>() || e->as<BoolImm>()) return true;
  if (e->as<SpecialReg>()) return eval_int(e, EvalEnv{k_.cluster, k_.block, 0u, Dim3{0, 0, 0}, nullptr, nullptr}).has_value();
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

std::vector<Dim3> ConditionEval::threads_passing(const Guards& g, const std::vector<int>& unknown, unsigned rank,
                                                 const Bindings& vars) {
  // Guards that do not depend on the thread are decided once per rank.
  const EvalEnv cta{k_.cluster, k_.block, rank, std::nullopt, &vars, &defs_};
  std::vector<size_t> per_thread;
  for (size_t c = 0; c < g.size(); ++c) {
    if (unknown[c] >= 0) continue;
    if (std::optional<int64_t> v = eval_int(g[c].expr, cta)) {
      if ((*v != 0) == g[c].negated) return {};
    } else {
      per_thread.push_back(c);
    }
  }
  return passing(g, per_thread, rank, vars);
}

// The threads of CTA `rank` passing the guards `which` of `g`; remembered when the
// guards use no bound loop index (a role's and a lane's conditions, typically).
std::vector<Dim3> ConditionEval::passing(const Guards& g, const std::vector<size_t>& which, unsigned rank, const Bindings& vars) {
  std::vector<std::pair<const ExprNode*, bool>> key;
  bool uses_vars = false;
  for (size_t c : which) {
    key.push_back({g[c].expr.get(), g[c].negated});
    uses_vars |= mentions(g[c].expr, vars);
  }
  auto cache_key = std::make_pair(rank, key);
  if (!uses_vars)
    if (auto it = passing_.find(cache_key); it != passing_.end()) return it->second;
  std::vector<Dim3> out;
  for (unsigned z = 0; z < k_.block.z; ++z)
    for (unsigned y = 0; y < k_.block.y; ++y)
      for (unsigned x = 0; x < k_.block.x; ++x) {
        EvalEnv env{k_.cluster, k_.block, rank, Dim3{x, y, z}, &vars, &defs_};
        bool pass = true;
        for (size_t j = 0; pass && j < which.size(); ++j)
          if (std::optional<int64_t> v = eval_int(g[which[j]].expr, env)) pass = (*v != 0) != g[which[j]].negated;
        if (pass) out.push_back(Dim3{x, y, z});
      }
  if (!uses_vars) passing_[cache_key] = out;
  return out;
}

int Unknowns::add(const Expr& e) {
  const std::string key = ir::to_string(e);
  size_t id = 0;
  while (id < names_.size() && names_[id] != key) ++id;
  if (id == names_.size()) names_.push_back(key);
  return static_cast<int>(id);
}

bool Unknowns::hold(const Guards& g, const std::vector<int>& ids, uint32_t bits) {
  bool runs = true;
  for (size_t c = 0; c < g.size(); ++c)
    if (ids[c] >= 0) runs &= (((bits >> ids[c]) & 1u) != 0) != g[c].negated;
  return runs;
}

std::string Unknowns::values(uint32_t bits) const {
  std::string out;
  for (size_t i = 0; i < names_.size(); ++i) out += (i ? " and " : "") + names_[i] + ((bits >> i) & 1u ? " is true" : " is false");
  return out;
}

std::string Unknowns::list() const {
  std::string out;
  for (size_t i = 0; i < names_.size(); ++i) out += (i ? ", " : "") + names_[i];
  return out;
}

}  // namespace tj::codegen
