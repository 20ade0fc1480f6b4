#include "codegen/passes/verify_launch_bounds.h"

#include "dsl/ir/visitor.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_launch_bounds(const ir::Kernel& k, const Target& t) {
  std::vector<Diagnostic> out;
  const unsigned n = k.min_blocks_per_sm;
  if (n == 0) return out;
  const std::string what = "min_blocks_per_sm(" + std::to_string(n) + ") on kernel '" + k.name + "'";
  const uint64_t threads = uint64_t(n) * k.block.count();
  if (n > t.max_ctas_per_sm)
    out.push_back({k.min_blocks_loc, what + ": " + t.arch + " holds at most " + std::to_string(t.max_ctas_per_sm) + " CTAs per SM",
                   "ask for at most " + std::to_string(t.max_ctas_per_sm) + " CTAs per SM"});
  else if (threads > t.max_threads_per_sm)
    out.push_back({k.min_blocks_loc,
                   what + ": " + std::to_string(n) + " CTAs of " + std::to_string(k.block.count()) + " threads are " +
                       std::to_string(threads) + " threads; an SM of " + t.arch + " holds at most " +
                       std::to_string(t.max_threads_per_sm),
                   "ask for at most " + std::to_string(std::max<uint64_t>(1, t.max_threads_per_sm / k.block.count())) +
                       " CTAs per SM, or use fewer threads per CTA"});
  const uint64_t smem = k.static_shared_bytes() + k.dynamic_shared_bytes() + t.reserved_shared_per_cta;
  if (n <= t.max_ctas_per_sm && threads <= t.max_threads_per_sm && n * smem > t.max_shared_per_sm)
    out.push_back({k.min_blocks_loc,
                   what + ": " + std::to_string(n) + " CTAs of " + std::to_string(smem - t.reserved_shared_per_cta) +
                       " bytes of shared memory (plus " + std::to_string(t.reserved_shared_per_cta) + " the system keeps per CTA) are " +
                       std::to_string(n * smem) + " bytes; an SM of " + t.arch + " has " + std::to_string(t.max_shared_per_sm),
                   "ask for at most " + std::to_string(std::max<uint64_t>(1, t.max_shared_per_sm / smem)) +
                       " CTAs per SM, or use less shared memory per CTA"});
  struct Roles : ir::Visitor {
    bool found = false;
    void visit_node(const ir::Role&) override { found = true; }
  } roles;
  roles.visit(k.body);
  if (roles.found && n > 1)
    out.push_back({k.min_blocks_loc, what + ": a kernel with warpgroup roles runs one CTA per SM (setmaxnreg shares its registers)",
                   "drop min_blocks_per_sm, or ask for 1"});
  return out;
}

}  // namespace tj::codegen
