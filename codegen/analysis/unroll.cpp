#include "codegen/analysis/unroll.h"

#include <map>
#include <set>

#include "codegen/analysis/ir_queries.h"
#include "dsl/ir/mutator.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// The names a statement declares: locals, atomic results, loop indices.
std::set<std::string> declared_in(const Stmt& s) {
  std::set<std::string> out;
  for_each_stmt(s, [&](const StmtNode& n) {
    if (const Declare* d = n.as<Declare>()) out.insert(d->name);
    if (const AtomicFetchAdd* a = n.as<AtomicFetchAdd>()) out.insert(a->result);
    if (const For* f = n.as<For>()) out.insert(f->var);
  });
  return out;
}

// One trip's body: the index replaced by its value, the declared names renamed.
class Trip final : public Mutator {
 public:
  Trip(std::string var, Expr value, std::map<std::string, std::string> renamed)
      : var_(std::move(var)), value_(std::move(value)), renamed_(std::move(renamed)) {}

 protected:
  Expr mutate_node(const VarRef& n, const Expr& self) override {
    if (n.name == var_) return value_;
    auto r = renamed_.find(n.name);
    return r == renamed_.end() ? self : VarRef::make(r->second, n.type, n.loc);
  }
  Stmt mutate_node(const Declare& n, const Stmt& self) override {
    Stmt s = Mutator::mutate_node(n, self);
    const Declare* d = s->as<Declare>();
    return Declare::make(name(d->name), d->init, d->loc);
  }
  Stmt mutate_node(const AtomicFetchAdd& n, const Stmt& self) override {
    Stmt s = Mutator::mutate_node(n, self);
    const AtomicFetchAdd* a = s->as<AtomicFetchAdd>();
    return AtomicFetchAdd::make(name(a->result), a->ptr, a->index, a->value, a->order, a->scope, a->loc);
  }
  Stmt mutate_node(const For& n, const Stmt& self) override {
    Stmt s = Mutator::mutate_node(n, self);
    const For* f = s->as<For>();
    return For::make(name(f->var), f->begin, f->end, f->step, f->body, f->loc, f->units);
  }

 private:
  std::string name(const std::string& n) const {
    auto r = renamed_.find(n);
    return r == renamed_.end() ? n : r->second;
  }
  std::string var_;
  Expr value_;
  std::map<std::string, std::string> renamed_;
};

class Unroll final : public Mutator {
 public:
  explicit Unroll(const std::function<bool(const For&)>& want) : want_(want) {}

 protected:
  Stmt mutate_node(const For& n, const Stmt& self) override {
    Stmt s = Mutator::mutate_node(n, self);  // inner loops first
    const For* f = s->as<For>();
    const std::optional<int64_t> b = const_int(f->begin), e = const_int(f->end), st = const_int(f->step);
    if (!b || !e || !st || *st <= 0 || (*e - *b + *st - 1) / *st > kMaxUnrolledTrips || !want_(n)) return s;
    const std::set<std::string> names = declared_in(f->body);
    std::vector<Stmt> trips;
    for (int64_t v = *b; v < *e; v += *st) {
      std::map<std::string, std::string> renamed;
      for (const std::string& d : names) renamed[d] = d + "_" + f->var + "_" + std::to_string(v - *b);
      trips.push_back(Trip(f->var, IntImm::make(f->begin->type.scalar, v), std::move(renamed)).mutate(f->body));
    }
    return Block::make(std::move(trips), f->loc);
  }

 private:
  const std::function<bool(const For&)>& want_;
};

}  // namespace

ir::Kernel unroll_small_loops(const ir::Kernel& k, const std::function<bool(const ir::For&)>& want) {
  ir::Kernel out = k;
  out.body = Unroll(want).mutate(k.body);
  return out;
}

bool walks_peers(const ir::For& f) {
  struct Peers : Visitor {
    const std::string& var;
    bool found = false;
    explicit Peers(const std::string& v) : var(v) {}
    void visit_node(const MapSharedRank& n) override {
      std::vector<std::string> names;
      var_names(n.rank, names);
      for (const std::string& x : names) found |= x == var;
      Visitor::visit_node(n);
    }
    using Visitor::visit_node;
  } p(f.var);
  p.visit(f.body);
  return p.found;
}

}  // namespace tj::codegen
