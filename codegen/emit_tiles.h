// Emission of the tile layer for sm_90a: wgmma with shared-memory descriptors
// derived from the tiles' layouts, register accumulators, the epilogue into a
// swizzled shared tile, and warpgroup roles with setmaxnreg.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

using ExprText = std::function<std::string(const ir::Expr&)>;

// The generated wgmma wrappers the kernel's MMAs need (empty when none).
std::string emit_wgmma_wrappers(const ir::Kernel& k);
// Declarations of the kernel's accumulators (zeroed register arrays).
std::string emit_accumulators(const ir::Kernel& k);

// Lines of code, without indentation.
std::vector<std::string> emit_mma(const ir::Mma& n, const ir::Kernel& k, const ExprText& ex);
std::vector<std::string> emit_mma_wait(const ir::MmaWait& n, const ir::Kernel& k);
std::vector<std::string> emit_acc_store(const ir::AccStore& n, const ir::Kernel& k, const ExprText& ex);
// Split-K: the accumulator into / added from a global workspace slot (fragment order).
std::vector<std::string> emit_acc_partial(const ir::AccPartial& n, const ir::Kernel& k, const ExprText& ex);
// The role's condition, and what its warpgroups run first (setmaxnreg).
std::string role_condition(const ir::Role& r);
std::vector<std::string> role_prologue(const ir::Role& r, const ir::Kernel& k);

// Registers per thread the launch gives each thread: 64K / threads, a multiple of 8, at most 255.
unsigned launch_registers_per_thread(const ir::Kernel& k);

}  // namespace tj::codegen
