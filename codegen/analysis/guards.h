// The conditions a statement runs under (the conjuncts of the enclosing if_s and
// roles), evaluated per CTA rank and thread: whether a thread may pass them, and
// which CTA ranks an expression names for the threads that do.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/analysis/eval.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// One conjunct of the conditions a statement runs under: `expr`, or its negation.
struct Guard {
  ir::Expr expr;
  bool negated = false;
  ir::Loc loc;  // the if_ or role it belongs to, where the walk records it
};
using Guards = std::vector<Guard>;
void push_guard(Guards& g, const ir::Expr& cond, bool negated, const ir::Loc& loc = {});

// Loop indices bound to a value by a walk that unrolls a loop.
using Bindings = std::map<std::string, int64_t>;
// Locals declared once and never assigned (a role's warpgroup index, say): their values.
using Defs = std::map<std::string, ir::Expr>;
Defs single_assignment_defs(const ir::Kernel& k);

// Whether thread `t` of CTA `rank` passes every guard; a guard that cannot be
// evaluated is taken to hold.
bool may_pass(const ir::Kernel& k, const Defs& d, const Guards& g, unsigned rank, const ir::Dim3& t, const Bindings* vars = nullptr);
// Whether every guard certainly holds for `env` (the CTA, thread and loop indices it fixes):
// true, false (one is false), or nullopt (none is false, but one does not evaluate).
std::optional<bool> all_hold(const Guards& g, const EvalEnv& env);
// Whether some thread of CTA `rank` may pass every guard.
bool may_run(const ir::Kernel& k, const Defs& d, const Guards& g, unsigned rank, const Bindings* vars = nullptr);
// The CTA ranks `e` may name for the threads of CTA `rank` passing `g`, as a bit
// set; every rank of the cluster when it cannot be evaluated.
uint32_t ranks_named(const ir::Kernel& k, const Defs& d, const ir::Expr& e, const Guards& g, unsigned rank, const Bindings* vars = nullptr);

}  // namespace tj::codegen
