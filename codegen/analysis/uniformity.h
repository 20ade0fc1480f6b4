// Which threads see the same value of an expression: all threads of the cluster,
// all threads of one CTA, or possibly each thread its own. Used by checks that treat
// a condition they cannot evaluate as one unknown truth value (transaction accounting).
#pragma once

#include <map>
#include <string>

#include "dsl/ir/kernel.h"

namespace tj::codegen {

// Ordered: a combination of values is as uniform as its least uniform part.
enum class Uniform { Cluster, Cta, Thread };

// The loop indices in scope and how uniform each is (as uniform as its bounds).
using LoopScope = std::map<std::string, Uniform>;

// Kernel parameters and constants are the same for the whole cluster; %ctaid and the
// rank in the cluster per CTA, and loads from a buffer whose reads are uniform
// (SharedBuffer::uniform_reads) at a uniform index; %tid, %laneid and other loads may
// differ between threads.
// Locals are taken to differ between threads unless `defs` is given
// (single_assignment_defs, guards.h); then a local declared once and never assigned is
// as uniform as its initial value, and a local assigned more than once as the least
// uniform of its values and of the conditions and loop controls under which the
// assignments run (between the local's declaration and each assignment).
Uniform uniformity(const ir::Expr& e, const ir::Kernel& k, const LoopScope& loops,
                   const std::map<std::string, ir::Expr>* defs = nullptr);

}  // namespace tj::codegen
