#include "codegen/emit_roles.h"

#include <algorithm>

namespace tj::codegen {

using namespace tj::ir;

unsigned launch_registers_per_thread(const Kernel& k) {
  const unsigned threads = std::max(1u, k.block.count());
  return std::min(255u, 65536u / threads / 8 * 8);
}

std::string role_condition(const Role& r) {
  return "(int)threadIdx.x / 128 >= " + std::to_string(r.first) + " && (int)threadIdx.x / 128 < " +
         std::to_string(r.first + r.count);
}

std::vector<std::string> role_prologue(const Role& r, const Kernel& k) {
  if (!r.max_regs) return {};
  const unsigned launched = launch_registers_per_thread(k);
  if (r.max_regs == launched) return {};
  const char* dir = r.max_regs > launched ? "inc" : "dec";
  return {"tj::setmaxnreg_" + std::string(dir) + "<" + std::to_string(r.max_regs) + ">();  // " + std::to_string(launched) +
          " registers per thread at launch"};
}

}  // namespace tj::codegen
