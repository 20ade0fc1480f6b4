// Who runs a statement: the roles and thread-dependent if_ branches around it,
// outermost first. Two statements whose agents are not one a prefix of the other
// run in different threads, concurrently.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "codegen/analysis/uniformity.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

using Agent = std::vector<std::pair<std::string, bool>>;  // (role name or if_ condition text, which branch)
bool concurrent(const Agent& a, const Agent& b);
// Whether an if_ condition splits the threads of a CTA (a new agent per branch).
bool splits_threads(const ir::Kernel& k, const ir::Expr& cond, const LoopScope& loops);

}  // namespace tj::codegen
