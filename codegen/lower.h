// The lowering pipeline, IR to CUDA C++ for one Target. Reads top to bottom in
// lower.cpp: verification passes, then rewrites, then emission.
#pragma once

#include <functional>
#include <string>

#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

struct LowerOptions {
  // Called with (pass name, IR text) after every pass that runs; also enabled
  // by TILEJIT_DUMP_IR=1 (to stderr) or TILEJIT_DUMP_IR=<pass name>.
  std::function<void(const std::string& pass, const std::string& ir)> dump;
};

struct Lowered {
  ir::Kernel kernel;  // after the rewrites
  std::string cuda;   // the generated translation unit
  unsigned dynamic_smem = 0;
};

// Verifies `k` for `target` (throws UserError with every diagnostic found),
// rewrites it and emits CUDA C++.
Lowered lower(const ir::Kernel& k, const Target& target, const LowerOptions& opts = {});

// The names of the passes lower() runs, in order.
const std::vector<std::string>& pass_names();

}  // namespace tj::codegen
