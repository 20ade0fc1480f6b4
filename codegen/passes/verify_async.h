#pragma once
#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// The structural rules of mbarriers, TMA and bulk copies: tensor-map boxes
// TMA can move (box <= 256 per dimension, inner box a multiple of 16 bytes and
// within the swizzle span), coordinates matching the map's rank, copies into
// and out of shared memory, barriers in shared memory and never read or
// written as data, waits only on this CTA's own barriers, multicast masks that
// are non-empty and inside the cluster, bulk copies of a multiple of 16 bytes.
std::vector<Diagnostic> verify_async(const ir::Kernel& k, const Target& target);

}  // namespace tj::codegen
