#include "codegen/passes/verify_shared_memory.h"

namespace tj::codegen {
namespace {
std::string kib(uint64_t bytes) {
  return std::to_string(bytes) + " bytes (" + std::to_string(bytes / 1024) + (bytes % 1024 ? "+" : "") + " KiB)";
}
const ir::SharedBuffer* largest(const ir::Kernel& k) {
  const ir::SharedBuffer* best = nullptr;
  for (const ir::SharedBuffer& b : k.shared)
    if (!best || b.bytes() > best->bytes()) best = &b;
  return best;
}
}  // namespace

std::vector<Diagnostic> verify_shared_memory(const ir::Kernel& k, const Target& t) {
  std::vector<Diagnostic> out;
  const uint64_t stat = k.static_shared_bytes();
  const uint64_t total = stat + k.dynamic_shared_bytes();
  if (total > t.max_shared_per_cta) {
    const ir::SharedBuffer* big = largest(k);
    out.push_back({big->loc,
                   "kernel '" + k.name + "' uses " + kib(total) + " of shared memory per CTA; " + t.arch +
                       " allows at most " + kib(t.max_shared_per_cta) + " (largest buffer: '" + big->name + "', " +
                       kib(big->bytes()) + ")",
                   "shrink the buffers, or split the tile across the cluster with map_shared_rank"});
    return out;
  }
  if (stat > t.max_static_shared) {
    const ir::SharedBuffer* big = nullptr;
    for (const ir::SharedBuffer& b : k.shared)
      if (!b.dynamic && (!big || b.bytes() > big->bytes())) big = &b;
    for (const ir::SharedBuffer& b : {*big}) {
      out.push_back({b.loc,
                     "static shared buffers of kernel '" + k.name + "' take " + kib(stat) +
                         ", over the 48 KiB static limit ('" + b.name + "' is " + kib(b.bytes()) + ")",
                     "declare the large buffers with dynamic_shared<T>(...), which may use up to " +
                         kib(t.max_shared_per_cta)});
      break;
    }
  }
  return out;
}

}  // namespace tj::codegen
