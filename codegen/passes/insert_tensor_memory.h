#pragma once
#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// Kernels whose accumulators live in tensor memory (the tcgen05 family, sm_100a) get it
// here: at entry warp 0 allocates one block for all of them (tmem_plan: a power of two
// of columns, CTA group 2 when the kernel issues pair MMAs) into the shared slot
// tj_tmem and relinquishes the permit; a barrier (the cluster's for a pair, whose leader
// issues MMAs into its peer's tensor memory) between the tcgen05 fences publishes the
// address. At exit, after the same fences around a barrier (every thread's tensor-memory
// reads and the MMAs they waited for are done), warp 0 frees the block. Other kernels
// are returned unchanged.
ir::Kernel insert_tensor_memory(const ir::Kernel& k, const Target& t);

}  // namespace tj::codegen
