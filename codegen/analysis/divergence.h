// Evidence that a condition or a loop bound the host cannot evaluate still differs
// between threads that run it together: it reads memory at an index that is not the same
// in all of them (x[thread_idx_x()]), or asks which lane leads the warp. Used by the
// collectives check, where such a condition splits a warp, warpgroup or role.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/analysis/eval.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

struct Divergence {
  ir::Loc loc;       // the load or the intrinsic
  std::string what;  // "x[...] is read at index 0 in thread 0 and at index 1 in thread 1"
};

// One thread a check compares: its linear index in the CTA and its environment.
struct ThreadEnv {
  uint64_t linear;
  EvalEnv env;
};

// The first load in `e` (or in the single definition of a local it reads, as
// `env.defs` gives them) whose index evaluates in every one of `threads` and is not the same
// in all of them; or warp_leader()/warp_leader_of() where two of `threads` share a warp.
// Warp shuffles and reductions are not looked into: a full-mask reduction is the same
// in every lane. nullopt: no such evidence (the expression may still differ).
std::optional<Divergence> divergence(const ir::Expr& e, const std::vector<ThreadEnv>& threads);

}  // namespace tj::codegen
