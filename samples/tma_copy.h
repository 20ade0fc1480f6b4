// tma_copy: a pipelined global -> shared -> global copy of an f32 matrix.
// Each CTA walks its tiles (tile = CTA + i x grid); one thread keeps `stages`
// TMA loads in flight, each completing on its stage's mbarrier, and writes
// every tile back with a TMA store whose shared-memory read is awaited before
// the stage is refilled.
#pragma once

#include "generators/sample.h"

namespace tj::samples {

class TmaCopy final : public Sample {
 public:
  std::string name() const override { return "tma_copy"; }
  std::string summary() const override {
    return "copies a rows x cols f32 matrix through `stages` shared-memory stages with TMA loads and stores";
  }
  std::vector<ParamSpec> params() const override;
  ir::Dim3 default_cluster() const override { return {1, 1, 1}; }  // runs without clusters
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
};

}  // namespace tj::samples
