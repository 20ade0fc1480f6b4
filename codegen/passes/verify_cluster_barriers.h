#pragma once
#include <vector>

#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// Each thread's cluster_arrive and cluster_wait alternate (codegen/analysis/cluster_pairing.h).
std::vector<Diagnostic> verify_cluster_barriers(const ir::Kernel& k);

}  // namespace tj::codegen
