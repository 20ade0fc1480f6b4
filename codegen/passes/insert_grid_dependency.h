#pragma once
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// A kernel built with dependent_launch() starts its body with griddepcontrol.wait (the
// grid launched before it complete, its memory visible) and then
// griddepcontrol.launch_dependents (the next grid may start its CTAs), in every thread.
// This pass runs before the passes that put the prologue in front of the body (barrier
// init, tensor memory, the entry cluster barrier), so those run before the wait: they
// touch no global memory, and they are what a dependent launch overlaps with the
// previous kernel's tail. Other kernels are returned unchanged.
ir::Kernel insert_grid_dependency(const ir::Kernel& k);

}  // namespace tj::codegen
