// Each thread's cluster barrier operations alternate: cluster_arrive (or its relaxed
// form), then cluster_wait; cluster_sync is both. Followed along every path through
// the kernel (each thread takes one): a cluster_wait with no arrive of its own before
// it never completes; a second arrive before the wait arrives twice on one phase.
// An operation is an error where every path reaching it makes it wrong; where paths
// disagree (an if_ arrives in one branch only) nothing is claimed (the race check's
// cluster epochs report that as not checked).
#pragma once

#include <vector>

#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// Whether a cluster_arrive is still waiting for its cluster_wait at the kernel's end:
// on no path, on every path, or on some.
enum class PendingArrive { None, All, Some };

struct ClusterPairing {
  std::vector<Diagnostic> errors;
  PendingArrive at_end = PendingArrive::None;
};

ClusterPairing pair_cluster_barriers(const ir::Kernel& k);

}  // namespace tj::codegen
