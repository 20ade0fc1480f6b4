// Rewrites each for_each_tile into the loop its schedule stands for (before
// verification, so every later pass sees plain loops and declarations).
#pragma once

#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// StaticPersistent: cluster c walks cluster tiles c, c + clusters, ... of the
// ceil(tiles_m / cluster_y) x ceil(tiles_n / cluster_x) grid in groups of
// `group` cluster rows; CTA (x, y) of the cluster takes tile (m * cy + y, n * cx + x).
// With a split count S the walk is over units (cluster tile, split), unit u being
// cluster tile u / S and split u % S: a tile's splits are adjacent.
ir::Kernel lower_schedules(const ir::Kernel& k, const Target& target);

}  // namespace tj::codegen
