#include "runtime/occupancy_probe.h"

#include <string>

#include "runtime/device.h"
#include "runtime/module.h"

namespace tj::rt {

namespace {
// An empty kernel: its registers and static shared memory are nil, so the dynamic shared
// memory, the threads and the cluster decide the count. PTX for the oldest target with
// clusters at launch; the driver compiles it for the device.
constexpr const char* kProbePtx = R"(.version 7.8
.target sm_90
.address_size 64
.visible .entry tj_occupancy_probe()
{
  ret;
}
)";
}  // namespace

int probe_active_clusters(const Context& ctx, Dim3 cluster, unsigned threads, unsigned dynamic_smem) {
  const Module probe = Module::load(ctx, kProbePtx, "tj_occupancy_probe", 0);
  LaunchConfig lc;
  lc.grid_clusters = {1, 1, 1};
  lc.cluster = cluster;
  lc.block = {threads, 1, 1};
  lc.dynamic_smem = dynamic_smem;
  return max_active_clusters(probe, lc);
}

}  // namespace tj::rt
