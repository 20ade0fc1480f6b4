// fault_injection (test only): a kernel that fails on purpose, so that tests can check
// what a user sees when a kernel faults or hangs: exit code 5 from the CLI, and the hang
// guard's message. `fault` 0 runs cleanly and is checked; 1 stores through a null
// pointer (an illegal address); 2 waits on an mbarrier whose only arrival is skipped,
// which hangs unless the hang guard (--debug-hangs, TILEJIT_DEBUG_HANGS=1) is on.
// The fault is chosen at launch through kernel arguments, so the verifier cannot see it.
#pragma once

#include "generators/sample.h"

namespace tj::samples {

class FaultInjection final : public Sample {
 public:
  std::string name() const override { return "fault_injection"; }
  std::string summary() const override {
    return "test only: fault 1 stores through a null pointer, fault 2 never completes a barrier (hangs without "
           "--debug-hangs); fault 0 runs cleanly";
  }
  std::vector<ParamSpec> params() const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
};

}  // namespace tj::samples
