#include "codegen/passes/verify_accumulators.h"

#include <map>
#include <string>

#include "dsl/ir/loops.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// What an accumulator holds at a point of the walk. Paths merge to the best of them:
// a write on any path counts, so that only what certainly adds to nothing, or to the
// last unit's result, is refused.
enum class Held : uint8_t { Nothing, LastUnit, ThisUnit };

struct Value {
  Held held = Held::Nothing;
  Loc units;  // LastUnit: the loop over units that started a new unit with it
};

using Values = std::map<std::string, Value>;

Values merge(Values a, const Values& b) {
  for (auto& [name, v] : a) {
    auto it = b.find(name);
    const Value other = it == b.end() ? Value{} : it->second;
    if (other.held > v.held) v = other;
  }
  for (const auto& [name, v] : b)
    if (!a.count(name)) a[name] = v;
  return a;
}

bool always(const Expr& e) {
  const BoolImm* b = e ? e->as<BoolImm>() : nullptr;
  return b && b->value;
}

// Whether `s` is a loop over a schedule's units (a lowered for_each_tile).
bool over_units(const StmtNode& s) {
  if (const For* f = s.as<For>()) return f->units.has_value();
  if (const While* w = s.as<While>()) return w->units.has_value();
  return false;
}

class Walk {
 public:
  explicit Walk(std::vector<Diagnostic>& out) : out_(out) {}

  void walk(const Stmt& s, Values& v) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c, v);
      return;
    }
    if (const Mma* m = s->as<Mma>()) {
      if (!m->acc_stage) {
        if (always(m->accumulate)) check(*m, v[m->acc]);
        v[m->acc] = Value{Held::ThisUnit, {}};
      }
    } else if (const FragMap* f = s->as<FragMap>()) {
      v[f->dst] = Value{Held::ThisUnit, {}};
    } else if (const AccPartial* p = s->as<AccPartial>(); p && (p->op == AccPartialOp::Add || p->op == AccPartialOp::Take)) {
      v[p->acc] = Value{Held::ThisUnit, {}};
    } else if (const If* i = s->as<If>()) {
      Values other = v;
      walk(i->then_body, v);
      walk(i->else_body, other);
      v = merge(std::move(v), other);
    } else if (const Role* r = s->as<Role>()) {
      Values mine;  // a role's fragments are its own registers
      walk(r->body, mine);
    } else if (std::optional<LoopView> l = as_loop(*s)) {
      const Values entry = v;
      // Twice: the second pass starts from what the first left, as iteration i + 1 does.
      if (over_units(*s)) units_.push_back(s->loc);
      for (int pass = 0; pass < 2; ++pass) {
        if (over_units(*s))
          for (auto& [name, value] : v)
            if (value.held == Held::ThisUnit) value = Value{Held::LastUnit, s->loc};
        walk(l->body, v);
      }
      if (over_units(*s)) units_.pop_back();
      v = merge(std::move(v), entry);
    }
  }

 private:
  void check(const Mma& m, const Value& v) {
    if (v.held == Held::ThisUnit || !reported_.emplace(m.loc.str(), true).second) return;
    const std::string fix = "pass accumulate = false to the first mma of each unit (a k-block index > 0, say), or clear '" +
                            m.acc + "' first (fill(" + m.acc + ", 0.0f))";
    if (v.held == Held::Nothing)
      out_.push_back(Diagnostic{m.loc,
                                "the mma at " + m.loc.str() + " adds to accumulator '" + m.acc +
                                    "' (accumulate true), which holds no value yet: no mma, fill, copy or map wrote it before" +
                                    (units_.empty() ? std::string()
                                                    : " (and in each later unit of the loop at " + units_.back().str() +
                                                          " it holds the previous unit's result)"),
                                fix});
    else
      out_.push_back(Diagnostic{m.loc,
                                "the mma at " + m.loc.str() + " adds to accumulator '" + m.acc +
                                    "' (accumulate true), which still holds the previous unit's result: the loop over units at " +
                                    v.units.str() + " starts each unit with it, and nothing sets it between the unit's start "
                                    "and this mma",
                                fix + " inside the loop at " + line_of(v.units)});
  }

  static std::string line_of(const Loc& l) { return "line " + std::to_string(l.line); }

  std::vector<Diagnostic>& out_;
  std::map<std::string, bool> reported_;
  std::vector<Loc> units_;  // the loops over units the walk is in, innermost last
};

}  // namespace

std::vector<Diagnostic> verify_accumulators(const Kernel& k) {
  std::vector<Diagnostic> out;
  Values v;
  Walk(out).walk(k.body, v);
  return out;
}

}  // namespace tj::codegen
