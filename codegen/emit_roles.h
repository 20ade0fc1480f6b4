// Emission of warpgroup roles: which threads run a role, and the register count each
// role's warpgroups take (setmaxnreg) out of what the launch gave every thread.
#pragma once

#include <string>
#include <vector>

#include "dsl/ir/kernel.h"

namespace tj::codegen {

// The role's condition, and what its warpgroups run first (setmaxnreg).
std::string role_condition(const ir::Role& r);
std::vector<std::string> role_prologue(const ir::Role& r, const ir::Kernel& k);

// Registers per thread the launch gives each thread: 64K / threads, a multiple of 8, at most 255.
unsigned launch_registers_per_thread(const ir::Kernel& k);

}  // namespace tj::codegen
