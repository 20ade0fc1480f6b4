#pragma once
#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// Threads per CTA and CTAs per cluster are within what `target` can launch:
// clusters of at most 8 CTAs (portable), 9..16 only with the explicit opt-in.
std::vector<Diagnostic> verify_cluster_shape(const ir::Kernel& k, const Target& target);

}  // namespace tj::codegen
