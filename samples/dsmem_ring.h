// dsmem_ring: every CTA writes a block of values straight into the shared
// memory of its right-hand neighbour in the cluster (map_shared_rank), then the
// cluster barrier makes them visible and each CTA copies what it received out.
#pragma once

#include "generators/sample.h"

namespace tj::samples {

class DsmemRing : public Sample {
 public:
  std::string name() const override { return "dsmem_ring"; }
  std::string summary() const override {
    return "each CTA writes `elems` u32 into its cluster neighbour's shared memory, `rounds` times";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
};

// global_ring: the same exchange through global memory (each CTA writes its
// neighbour's slot of a global buffer, with the same cluster barrier per
// round): the reference dsmem_ring's bandwidth is compared with.
class GlobalRing final : public DsmemRing {
 public:
  std::string name() const override { return "global_ring"; }
  std::string summary() const override {
    return "dsmem_ring's exchange through global memory instead of DSMEM (the bandwidth reference)";
  }
  ir::Kernel build(const Config& c) const override;
};

// The value CTA `sender` writes at index i in round `round` (host reference).
uint32_t ring_value(uint32_t sender, uint32_t i, uint32_t round, uint32_t salt);

}  // namespace tj::samples
