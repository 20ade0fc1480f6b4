// A fragment held in registers (a wgmma accumulator, a row fragment, an operand
// fragment) exists once per thread: every warpgroup role keeps its own copy. One used by
// two roles (an MMA role writing it, another role reading it) would read that role's
// never-written registers. Refused with both lines. Accumulators in tensor memory
// (tcgen05, sm_100a) are one per CTA and may pass between roles.
#pragma once

#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_fragment_owners(const ir::Kernel& k, const Target& t);

}  // namespace tj::codegen
