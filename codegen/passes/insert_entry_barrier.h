#pragma once
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// A CTA must not touch a peer's shared memory before every CTA of the cluster
// has started (compute-sanitizer's racecheck reports such writes as "located
// in a block that might not have entered yet"). If the kernel reaches a peer's
// shared memory and no cluster wait comes before the first statement that
// does, start the kernel with cluster_arrive(relaxed) + cluster_wait().
ir::Kernel insert_entry_barrier(const ir::Kernel& k);

}  // namespace tj::codegen
