// What an MMA adds to. An `mma` whose accumulate flag is the constant true adds its
// product to what the accumulator holds; that must be this unit's work. Refused with the
// user's line:
//  - an accumulator that nothing wrote before (no MMA that sets it, no fill, copy or map):
//    its registers hold whatever they held;
//  - an accumulator that still holds the previous unit's result: a loop over a schedule's
//    units (for_each_tile) starts each unit with it, and nothing between the unit's start
//    and the MMA sets it (the persistent GEMM that never clears its accumulator adds
//    every tile to the tiles before it).
// Any write on some path counts (a branch that clears it, a flag that is not a constant):
// what the check cannot decide it lets through. Staged accumulators (a buffer index per
// MMA) are not followed.
#pragma once

#include <vector>

#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_accumulators(const ir::Kernel& k);

}  // namespace tj::codegen
