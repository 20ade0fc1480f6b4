// Rewrites each for_each_tile into the loop its schedule stands for (before
// verification, so every later pass sees plain loops and declarations).
#pragma once

#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// The units are (cluster tile, split) of the ceil(tiles_m / cluster_y) x
// ceil(tiles_n / cluster_x) grid of cluster tiles, S splits per tile (1 without
// split-K); the for_each_tile's schedule (codegen/schedules/) decides which CTA walks
// which units and decodes each into the tile the body sees.
ir::Kernel lower_schedules(const ir::Kernel& k, const Target& target);

}  // namespace tj::codegen
