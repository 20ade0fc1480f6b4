// cluster_reduce: each CTA sums its slice of the input in shared memory; the
// partial sums meet in rank 0's shared memory through DSMEM atomics, and rank
// 0 writes one sum per cluster. Checked against a host sum in double (ReduceInputs).
#pragma once

#include "generators/sample.h"

namespace tj::samples {

// How each cluster's sum is checked against the exact sum (a host sum in double).
// With n = cluster x elems inputs per cluster and n <= 2^24, the inputs are k 2^-p with
// 1 <= |k| <= K = 2^24 / n and 2^p >= K (so |x| <= 1): every partial sum, in any order,
// is a multiple of 2^-p of magnitude at most n K 2^-p <= 2^24 2^-p, which f32 holds
// exactly. The GPU's sum must then equal the exact sum (tolerance 0), and a dropped or
// repeated input is always caught. Beyond 2^24 inputs they are uniform in [-1, 1] and the
// tolerance is the worst case gamma(h) sum|x|: each input meets at most h = ceil(elems /
// threads) + log2(threads) + cluster roundings (the thread's running sum, the tree, the
// DSMEM atomics), gamma(h) = h u / (1 - h u) with u = 2^-24, plus n 2^-53 sum|x| for the
// double sum itself.
struct ReduceInputs {
  int64_t max_units = 0;       // K; 0: too many inputs for exact sums, uniform inputs
  int scale_log2 = 0;          // p: inputs are multiples of 2^-p
  double relative_bound = 0;   // tolerance / sum|x|; 0 when exact
};
ReduceInputs reduce_inputs(const Config& c);

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
