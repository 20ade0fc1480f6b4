#include "codegen/passes/verify_cluster_shape.h"

#include "codegen/op_table.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_cluster_shape(const ir::Kernel& k, const Target& t) {
  std::vector<Diagnostic> out;
  const ir::Dim3& b = k.block;
  if (b.x == 0 || b.y == 0 || b.z == 0)
    out.push_back({k.block_loc, "kernel '" + k.name + "' has a zero block dimension " + b.str(), "give threads(x, y, z) values of at least 1"});
  else if (uint64_t(b.x) * b.y * b.z > t.max_threads_per_cta)
    out.push_back({k.block_loc,
                   "kernel '" + k.name + "' asks for " + std::to_string(uint64_t(b.x) * b.y * b.z) +
                       " threads per CTA; " + t.arch + " allows at most " + std::to_string(t.max_threads_per_cta),
                   "use fewer threads per CTA and loop over the work"});

  const ir::Dim3& c = k.cluster;
  const std::string shape = c.str();
  if (c.x == 0 || c.y == 0 || c.z == 0) {
    out.push_back({k.cluster_loc, "cluster shape " + shape + " has a zero dimension", "use cluster(1) for no clustering"});
    return out;
  }
  const uint64_t n = uint64_t(c.x) * c.y * c.z;
  if (n > 1 && !supports(t, Op::ClusterShape))
    out.push_back({k.cluster_loc, "cluster shape " + shape + " needs " + std::string(feature_name(missing_feature(t, Op::ClusterShape))) +
                                      ", which " + t.arch + " lacks",
                   "compile for sm_90a or sm_100a"});
  if (n > t.max_cluster)
    out.push_back({k.cluster_loc,
                   "cluster shape " + shape + " has " + std::to_string(n) + " CTAs; " + t.arch + " allows at most " +
                       std::to_string(t.max_cluster),
                   "use a cluster of at most " + std::to_string(t.max_cluster) + " CTAs"});
  else if (n > t.max_cluster_portable && !k.non_portable_cluster)
    out.push_back({k.cluster_loc,
                   "cluster shape " + shape + " has " + std::to_string(n) + " CTAs, more than the portable " +
                       std::to_string(t.max_cluster_portable),
                   "call allow_non_portable_cluster() on the kernel (or set \"non_portable\": true in the spec), "
                   "or use at most " + std::to_string(t.max_cluster_portable) + " CTAs"});
  return out;
}

}  // namespace tj::codegen
