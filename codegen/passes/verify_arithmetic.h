#pragma once
#include <vector>

#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// Integer arithmetic whose result C++ leaves undefined, where the operand is known
// before run time (for every thread and CTA): a division or remainder by zero, a
// shift by a negative amount or by the operand's width or more. Run-time values are
// not checked.
std::vector<Diagnostic> verify_arithmetic(const ir::Kernel& k);

}  // namespace tj::codegen
