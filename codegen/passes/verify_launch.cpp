#include "codegen/passes/verify_launch.h"

namespace tj::codegen {

std::vector<Diagnostic> verify_launch(const ir::Kernel& k, const ir::Dim3& g) {
  std::vector<Diagnostic> out;
  const ir::Dim3& c = k.cluster;
  if (g.x == 0 || g.y == 0 || g.z == 0) {
    out.push_back({k.loc, "grid " + g.str() + " of kernel '" + k.name + "' has a zero dimension", "launch at least one cluster"});
    return out;
  }
  if (c.x == 0 || c.y == 0 || c.z == 0) return out;  // verify_cluster_shape reports it
  const char* axis[] = {"x", "y", "z"};
  const unsigned gd[] = {g.x, g.y, g.z}, cd[] = {c.x, c.y, c.z};
  for (int i = 0; i < 3; ++i) {
    if (gd[i] % cd[i] != 0)
      out.push_back({k.cluster_loc,
                     "grid of " + g.str() + " CTAs is not divisible by the cluster shape " + c.str() + " (" +
                         axis[i] + ": " + std::to_string(gd[i]) + " % " + std::to_string(cd[i]) + " = " +
                         std::to_string(gd[i] % cd[i]) + ")",
                     "give the grid in clusters, or round " + std::string(axis[i]) + " up to " +
                         std::to_string((gd[i] + cd[i] - 1) / cd[i] * cd[i])});
  }
  const uint64_t lim[] = {(1ull << 31) - 1, 65535, 65535};
  for (int i = 0; i < 3; ++i)
    if (gd[i] > lim[i])
      out.push_back({k.loc, "grid " + std::string(axis[i]) + " = " + std::to_string(gd[i]) + " CTAs exceeds the limit " +
                                std::to_string(lim[i]),
                     "use fewer CTAs, e.g. a persistent loop"});
  return out;
}

}  // namespace tj::codegen
