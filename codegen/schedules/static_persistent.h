// static_persistent(group): each cluster walks the units cluster id, + number of
// clusters, ... in a fixed order decided before any of them runs; cluster tiles are
// walked `group` cluster rows at a time (grouped rasterization), so that tiles sharing
// operands run close in time.
#pragma once

#include "codegen/schedules/schedule.h"

namespace tj::codegen::schedules {

const Schedule& static_persistent();

}  // namespace tj::codegen::schedules
