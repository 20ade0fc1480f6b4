// A GEMM case of the GPU tests: the problem, the spec's params and cluster, alpha and
// beta; optionally made concrete for the test's GPU first (Sample::for_device), with what
// that must decide.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "dsl/ir/kernel.h"
#include "samples/builtin.h"

namespace tj::gpu_test {

struct GemmCase {
  int64_t m, n, k;
  std::map<std::string, int64_t> params;
  tj::ir::Dim3 cluster{1, 1, 1};
  double alpha = 1.0, beta = 0.0;
  // Made concrete for this GPU first, as `tilejit run` and the bench do (Sample::for_device:
  // bn 0, splits 0); then these params must be what it decided.
  bool on_device = false;
  std::map<std::string, int64_t> decided = {};
  std::string decided_cluster = "";  // and this cluster, where given
};

// "MxNxK cluster (x,y,z) key=value ... alpha A beta B[ for this device]": a section's name.
inline std::string describe(const GemmCase& g) {
  std::string p;
  for (auto& [k, v] : g.params) p += " " + k + "=" + std::to_string(v);
  return std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) + " cluster " + g.cluster.str() + p +
         " alpha " + std::to_string(g.alpha) + " beta " + std::to_string(g.beta) + (g.on_device ? " for this device" : "");
}

// The GEMM sample's config of `g` as a spec would give it (its params named, so that
// for_device leaves them alone), before any decision for the device.
inline samples::Config config_of(const GemmCase& g) {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  samples::Config c = samples::default_config(*s);
  c.cluster = g.cluster;
  c.grid_clusters = {1, 1, 1};  // the sample sizes its persistent grid itself
  c.params["m"] = g.m, c.params["n"] = g.n, c.params["k"] = g.k;
  for (auto& [key, v] : g.params) c.params[key] = v, c.named.insert("params." + key);
  c.reals["alpha"] = g.alpha, c.reals["beta"] = g.beta;
  return c;
}

}  // namespace tj::gpu_test
