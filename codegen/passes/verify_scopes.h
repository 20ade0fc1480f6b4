// Every local a statement reads must be in scope there, as the generated CUDA scopes
// it: a loop's index inside the loop, a local declared in an if_, loop or role body
// inside that body after its declaration. A DSL value that escapes its body (a loop
// index kept in a C++ variable and used after the loop, say) or comes from another
// kernel is refused here with both lines, instead of failing in NVRTC.
#pragma once

#include <vector>

#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_scopes(const ir::Kernel& k);

}  // namespace tj::codegen
