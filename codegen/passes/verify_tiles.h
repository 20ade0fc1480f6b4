#pragma once
#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// The rules of the tile layer, in DSL terms: MMAs only where the Target has
// them (wgmma: sm_90a), operand tiles the MMA can read (128-byte swizzle, A
// K-major, bf16/f16 alike, K extents equal and a multiple of 16, M and N
// extents covering the accumulator, row offsets on 8-row boundaries), epilogue
// tiles matching the accumulator, TMA boxes loaded into a tile matching its
// panels, warpgroup roles on whole warpgroups of a 1-D CTA, and register
// budgets: the roles' setmaxnreg counts within an SM's 64K registers and each
// role's accumulators within its per-thread count.
std::vector<Diagnostic> verify_tiles(const ir::Kernel& k, const Target& target);

// Registers per thread an MMA role needs beyond its accumulators (addresses,
// descriptors, loop state, the pipeline's phase bits): an estimate the check uses.
inline constexpr unsigned kMmaRoleOverheadRegisters = 40;

}  // namespace tj::codegen
