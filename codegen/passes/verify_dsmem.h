#pragma once
#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// map_shared_rank is applied to shared memory only, and a constant peer rank
// names a CTA inside the kernel's cluster.
std::vector<Diagnostic> verify_dsmem(const ir::Kernel& k, const Target& target);

}  // namespace tj::codegen
