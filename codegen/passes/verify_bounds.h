// Shared-memory accesses that certainly fall outside their buffer, or that name a CTA
// outside the cluster. Per CTA rank, each access's element index (and the rank it
// reaches through map_shared_rank) is evaluated for every thread and every trip of
// the counted loops around it whose bounds are constants, wherever every condition
// around it evaluates to true: an element past the buffer (a store, a load, a TMA box,
// a bulk copy's bytes, an mbarrier of the array, a tile's stage), a rank outside the
// cluster, or a bulk copy whose shared address is not 16-byte aligned is an error
// with the CTA, the value and the buffer's extent. What depends on parameters, loads
// or data-bound loops is not evaluated (not checked here).
#pragma once

#include <vector>

#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_bounds(const ir::Kernel& k);

}  // namespace tj::codegen
