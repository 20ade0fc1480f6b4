#include "generators/sample.h"

#include "dsl/ir/ir.h"

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

Config default_config(const Sample& s) {
  Config c;
  c.cluster = s.default_cluster();
  c.grid_clusters = {2, 1, 1};
  for (const ParamSpec& p : s.params()) c.params[p.name] = p.default_value;
  for (const RealParamSpec& p : s.real_params()) c.reals[p.name] = p.default_value;
  return c;
}

}  // namespace tj::samples
