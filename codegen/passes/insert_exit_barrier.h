#pragma once
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// A CTA must not exit while a peer may still read or write its shared memory.
// If the kernel touches distributed shared memory and does not already end
// with a cluster barrier, append cluster_sync() to its body; where a cluster_arrive
// is still pending at the end, its cluster_wait (then cluster_sync() as well unless
// that arrive released the last access).
ir::Kernel insert_exit_barrier(const ir::Kernel& k);

}  // namespace tj::codegen
