#include "samples/sample.h"

#include "dsl/ir/ir.h"
#include "samples/cluster_reduce.h"
#include "samples/dsmem_ring.h"
#include "samples/fault_injection.h"
#include "samples/race_demo.h"
#include "samples/gemm.h"
#include "samples/registry.h"
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

namespace {

// The built-in samples, in ladder order, registered like any plugin's generators.
void register_builtin_samples(Registrar& r) {
  r.add(std::make_unique<DsmemRing>());
  r.add(std::make_unique<ClusterReduce>());
  r.add(std::make_unique<TmaMulticast>());
  r.add(std::make_unique<TmaCopy>());
  r.add(std::make_unique<Gemm>());
  r.add(std::make_unique<GlobalRing>());
  r.add(std::make_unique<FaultInjection>());  // test only: faults and hangs on purpose
  r.add(std::make_unique<RaceDemo>());        // test only: races let through with allow_race, and their fixes
}

}  // namespace

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // never destroyed: plugins' generators live as long as the process
    reg->register_from("built-in", register_builtin_samples);
    return reg;
  }();
  return *r;
}

const std::vector<const Sample*>& all_samples() { return registry().all(); }

const Sample* find_sample(const std::string& name) { return registry().find(name); }

Config default_config(const Sample& s) {
  Config c;
  c.cluster = {2, 1, 1};
  c.grid_clusters = {2, 1, 1};
  for (const ParamSpec& p : s.params()) c.params[p.name] = p.default_value;
  for (const RealParamSpec& p : s.real_params()) c.reals[p.name] = p.default_value;
  return c;
}

}  // namespace tj::samples
