#pragma once
#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// A grid of `grid_ctas` CTAs can be launched with the kernel's cluster shape:
// every dimension divisible by the cluster's, within the hardware's grid limits.
std::vector<Diagnostic> verify_launch(const ir::Kernel& k, const ir::Dim3& grid_ctas);

}  // namespace tj::codegen
