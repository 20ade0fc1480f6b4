// Tensor memory (tcgen05): the ops exist on targets with tcgen05 only (elsewhere the
// error names Hopper's way: register accumulators and wgmma); a kernel uses one CTA
// group; cta_group::2 needs CTA pairs in the cluster; a CTA's allocations fit its 512
// columns (each tmem_alloc statement counted once).
#pragma once

#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_tensor_memory(const ir::Kernel& k, const Target& t);

}  // namespace tj::codegen
