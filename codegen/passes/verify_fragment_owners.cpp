#include "codegen/passes/verify_fragment_owners.h"

#include <map>
#include <set>
#include <string>

#include "codegen/analysis/ir_queries.h"
#include "codegen/mma/family.h"
#include "dsl/ir/loops.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

const char* kind_name(FragmentKind k) {
  switch (k) {
    case FragmentKind::Tile: return "accumulator";
    case FragmentKind::Rows: return "row fragment";
    case FragmentKind::Operand: return "operand fragment";
  }
  return "fragment";
}

// The fragments a statement (not its nested ones) writes or reads.
std::vector<std::string> fragments_of(const StmtNode& s) {
  std::vector<std::string> out;
  auto reads = [&](const Expr& e) {
    if (!e) return;
    for (const FragElem* f : elem_reads(e).values) out.push_back(f->fragment);
  };
  if (const Mma* m = s.as<Mma>()) {
    out.push_back(m->acc);
    if (!m->a_fragment.empty()) out.push_back(m->a_fragment);
  } else if (const MmaWait* w = s.as<MmaWait>()) {
    out.insert(out.end(), w->ready.begin(), w->ready.end());
  } else if (const AccStore* a = s.as<AccStore>()) {
    out.push_back(a->acc);
    reads(a->epilogue);
  } else if (const FragMap* f = s.as<FragMap>()) {
    out.push_back(f->dst);
    reads(f->value);
  } else if (const RowReduce* r = s.as<RowReduce>()) {
    out.push_back(r->dst), out.push_back(r->src);
  } else if (const RowStore* r = s.as<RowStore>()) {
    out.push_back(r->frag);
    reads(r->index), reads(r->valid);
  } else if (const AccPartial* p = s.as<AccPartial>()) {
    out.push_back(p->acc);
  }
  return out;
}

class Owners {
 public:
  Owners(const Kernel& k, const Target& t, std::vector<Diagnostic>& out) : k_(k), out_(out) {
    const mma::Family* f = mma::family_for(t);
    in_registers_ = !f || f->accumulator_home() == mma::AccumulatorHome::Registers;
    roles_ = false;
    for_each_stmt(k.body, [&](const StmtNode& s) { roles_ |= s.as<Role>() != nullptr; });
  }

  void walk(const Stmt& s) {
    if (!s || !roles_) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c);
      return;
    }
    for (const std::string& name : fragments_of(*s)) use(name, *s);
    if (const If* i = s->as<If>()) {
      walk(i->then_body), walk(i->else_body);
    } else if (const Role* r = s->as<Role>()) {
      const Role* saved = role_;
      role_ = r;
      walk(r->body);
      role_ = saved;
    } else if (std::optional<LoopView> l = as_loop(*s)) {
      walk(l->body);
    }
  }

 private:
  std::string holder(const Role* r) const {
    return r ? "role '" + r->name + "'" : "the kernel body outside its roles";
  }

  void use(const std::string& name, const StmtNode& s) {
    const AccumulatorDecl* a = k_.find_accumulator(name);
    if (!a || (a->kind == FragmentKind::Tile && !in_registers_)) return;
    auto [first, fresh] = first_.emplace(name, std::make_pair(role_, s.loc));
    if (fresh || first->second.first == role_ || !reported_.insert(name).second) return;
    const std::string what = std::string(kind_name(a->kind)) + " '" + name + "'";
    out_.push_back({s.loc, what + " is used here by " + holder(role_) + ", but " + holder(first->second.first) + " used it at " +
                               first->second.second.str() + ": it lives in registers, each role's warpgroups hold their own copy, "
                               "so this one never sees what the other wrote",
                    "use it within one role, or hand its values over through shared memory (store_accumulator or "
                    "store_rows, then a barrier both roles pass)"});
  }

  const Kernel& k_;
  std::vector<Diagnostic>& out_;
  bool in_registers_ = true, roles_ = false;
  const Role* role_ = nullptr;
  std::map<std::string, std::pair<const Role*, Loc>> first_;
  std::set<std::string> reported_;
};

}  // namespace

std::vector<Diagnostic> verify_fragment_owners(const Kernel& k, const Target& t) {
  std::vector<Diagnostic> out;
  Owners o(k, t, out);
  o.walk(k.body);
  return out;
}

}  // namespace tj::codegen
