// The minimum CTAs per SM a kernel asks for (KernelBuilder::min_blocks_per_sm) must
// fit the target's SM: its threads, its CTA slots, its shared memory (with what the system
// keeps per CTA), and one CTA per SM for kernels
// with warpgroup roles (they split the registers with setmaxnreg).
#pragma once

#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_launch_bounds(const ir::Kernel& k, const Target& t);

}  // namespace tj::codegen
