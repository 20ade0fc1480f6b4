// Emission of CUDA C++ for one Target. The generated code calls the prelude's
// wrappers (one per primitive) and carries, above each statement, the DSL op
// and the user's source line.
#pragma once

#include <string>

#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

struct EmitOptions {
  // Non-zero: every mbarrier wait gives up after this many nanoseconds,
  // printing the barrier, phase and CTA, and traps (TILEJIT_DEBUG_HANGS).
  unsigned long long hang_guard_ns = 0;
};

std::string emit_cuda(const ir::Kernel& k, const Target& target, const EmitOptions& opts = {});

// The C++ spelling of an IR type in generated code ("float", "tj::cluster_ptr<int>").
std::string cuda_type(const ir::Type& t);

}  // namespace tj::codegen
