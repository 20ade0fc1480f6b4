// tma_multicast: one TMA box per cluster, loaded once by rank 0 and delivered
// by multicast to the CTAs the mask names; every receiving CTA copies what
// landed in its shared memory out, and the host checks each copy against the
// tensor (with the swizzle applied and zeros beyond the tensor's edges).
#pragma once

#include "generators/sample.h"

namespace tj::samples {

class TmaMulticast final : public Sample {
 public:
  std::string name() const override { return "tma_multicast"; }
  std::string summary() const override {
    return "rank 0 multicasts one TMA box per cluster to the CTAs in `mask`; each receiver's copy is checked";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
};

// The multicast mask a config asks for: params.mask 0 = all CTAs, 1 = only the
// last rank, 2 = even ranks.
uint32_t multicast_mask(const Config& c);

// Byte offset of dense byte offset `o` in a box stored with a TMA swizzle of
// `span` bytes (0, 32, 64, 128): 16-byte chunks XORed with bits 7.. of o.
uint64_t swizzled_offset(uint64_t o, unsigned span);

}  // namespace tj::samples
