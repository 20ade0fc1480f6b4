// cluster_reduce: each CTA sums its slice of the input in shared memory; the
// partial sums meet in rank 0's shared memory through DSMEM atomics, and rank
// 0 writes one sum per cluster. Checked against a host sum in double.
#pragma once

#include "samples/sample.h"

namespace tj::samples {

class ClusterReduce final : public Sample {
 public:
  std::string name() const override { return "cluster_reduce"; }
  std::string summary() const override {
    return "sums `elems` f32 per CTA; partial sums meet in cluster rank 0 through DSMEM; one sum per cluster";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
};

}  // namespace tj::samples
