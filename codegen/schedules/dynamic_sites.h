// Who walks a dynamic schedule: every for_each_tile(dynamic(...)) of a kernel is one
// walk of the same sequence of units, by the threads that reach it (a role, a branch on
// the thread index). The schedule hands each claimed unit to all of them, so it must
// know them when its barriers are initialized: here each walk's threads are counted per
// CTA rank from the conditions around it, which must be decidable before run time.
#pragma once

#include <vector>

#include "dsl/ir/kernel.h"

namespace tj::codegen::schedules {

struct DynamicSite {
  const ir::ForEachTile* node = nullptr;
  std::vector<std::vector<ir::Dim3>> threads;  // per CTA rank: the threads that walk it
  uint64_t walkers() const;                    // over every rank of the cluster
};

// The kernel's dynamic walks in program order, those no thread reaches left out. Throws
// UserError (the for_each_tile's line) when one is inside a loop or another
// for_each_tile, when the threads that reach it cannot be known before run time, when
// one thread reaches two of them, or when two walk different grids or schedules.
std::vector<DynamicSite> dynamic_sites(const ir::Kernel& k);

}  // namespace tj::codegen::schedules
