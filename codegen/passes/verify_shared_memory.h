#pragma once
#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// The kernel's shared buffers fit: static ones within 48 KiB, all of them
// within the per-CTA opt-in limit of `target` (227 KiB on sm_90a).
std::vector<Diagnostic> verify_shared_memory(const ir::Kernel& k, const Target& target);

}  // namespace tj::codegen
