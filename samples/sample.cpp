#include "samples/sample.h"

#include "dsl/ir/ir.h"
#include "samples/cluster_reduce.h"
#include "samples/dsmem_ring.h"
#include "samples/fault_injection.h"
#include "samples/race_demo.h"
#include "samples/gemm.h"
#include "samples/tma_copy.h"
#include "samples/tma_multicast.h"

namespace tj::samples {

int64_t Config::param(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end()) ir::internal_error("sample parameter '" + name + "' has no value");
  return it->second;
}

double Config::real(const std::string& name) const {
  auto it = reals.find(name);
  if (it == reals.end()) ir::internal_error("sample parameter '" + name + "' has no value");
  return it->second;
}

ir::Dim3 Config::grid_ctas() const {
  return {grid_clusters.x * cluster.x, grid_clusters.y * cluster.y, grid_clusters.z * cluster.z};
}

const std::vector<const Sample*>& all_samples() {
  static const DsmemRing ring;
  static const GlobalRing global_ring;
  static const ClusterReduce reduce;
  static const TmaMulticast multicast;
  static const TmaCopy copy;
  static const Gemm gemm;
  static const FaultInjection fault;  // test only: faults and hangs on purpose
  static const RaceDemo race_demo;    // test only: races let through with allow_race, and their fixes
  static const std::vector<const Sample*> all = {&ring, &reduce, &multicast, &copy, &gemm, &global_ring, &fault, &race_demo};
  return all;
}

const Sample* find_sample(const std::string& name) {
  for (const Sample* s : all_samples())
    if (s->name() == name) return s;
  return nullptr;
}

Config default_config(const Sample& s) {
  Config c;
  c.cluster = {2, 1, 1};
  c.grid_clusters = {2, 1, 1};
  for (const ParamSpec& p : s.params()) c.params[p.name] = p.default_value;
  for (const RealParamSpec& p : s.real_params()) c.reals[p.name] = p.default_value;
  return c;
}

}  // namespace tj::samples
