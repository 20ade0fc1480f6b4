// race_demo (test only): two races the race check refuses, built with allow_race so
// that they run, next to their corrected versions, to show on the GPU what the check
// prevents. `kernel` 0: each CTA zeroes its counters while its neighbour already
// adds into them through map_shared_rank (even ranks zero `zero_passes` times, odd
// ranks once, so that odd ranks add while their even neighbour still zeroes); every
// counter must end at 1. `kernel` 1: a TMA box is read before waiting on its barrier
// (the tile is first filled with a poison value); every element must equal the
// tensor's. `racy` 1 builds the race with allow_race; 0 the corrected kernel
// (cluster_sync(); wait before reading); 2 the race as written, which the race check
// refuses (exit 2 from the CLI).
#pragma once

#include "generators/sample.h"

namespace tj::samples {

class RaceDemo final : public Sample {
 public:
  std::string name() const override { return "race_demo"; }
  std::string summary() const override {
    return "test only: kernel 0 zeroes DSMEM counters while peers add (racy 1: no cluster_sync), kernel 1 reads a TMA "
           "box before its wait (racy 1); racy 0 is the corrected kernel";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
};

}  // namespace tj::samples
