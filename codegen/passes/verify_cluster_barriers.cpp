#include "codegen/passes/verify_cluster_barriers.h"

#include "codegen/analysis/cluster_pairing.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_cluster_barriers(const ir::Kernel& k) { return pair_cluster_barriers(k).errors; }

}  // namespace tj::codegen
