// Emission of CUDA C++ for one Target. The generated code calls the prelude's
// wrappers (one per primitive) and carries, above each statement, the DSL op
// and the user's source line.
#pragma once

#include <string>

#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

std::string emit_cuda(const ir::Kernel& k, const Target& target);

// The C++ spelling of an IR type in generated code ("float", "tj::cluster_ptr<int>").
std::string cuda_type(const ir::Type& t);

}  // namespace tj::codegen
