// Operations a group of threads executes together, reached by only part of the group:
// a warpgroup's MMA (where the target's MMA family issues it per warpgroup: wgmma) and
// accumulator operations (mma, mma_wait, store_accumulator, acc_map,
// row reductions, split-K partials), a named barrier (role_sync, warpgroup_sync, turns:
// per warp), sync_threads (the whole CTA), and a warp shuffle or reduction (the lanes
// of its mask). Per CTA rank, the conditions around the operation are evaluated for
// every thread; where they certainly split a group (some of its threads pass, some do
// not) it is an error naming the condition that splits it: on the GPU the operation
// hangs or is undefined. Conditions that depend on data or parameters are not
// evaluated (not checked here); nor are loops whose trips differ between threads.
#pragma once

#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_collectives(const ir::Kernel& k, const Target& t);

}  // namespace tj::codegen
