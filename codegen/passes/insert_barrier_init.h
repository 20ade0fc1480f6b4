#pragma once
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// Kernels with mbarriers start by initializing them: thread 0 inits every
// barrier with its arrival count, fences the inits to the cluster
// (fence.mbarrier_init.release.cluster), and a cluster barrier (a CTA barrier
// for clusters of one) makes sure no CTA uses a peer's barrier before it exists.
ir::Kernel insert_barrier_init(const ir::Kernel& k);

}  // namespace tj::codegen
