// The sweep behind `tilejit tune`: every candidate config compiled (through the disk
// cache, on several threads ahead of the GPU), then run on the GPU one at a time,
// verified against the sample's reference and timed.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "api/device.h"
#include "generators/runner.h"
#include "generators/sample.h"
#include "runtime/launch.h"

namespace tj::cli {

struct CandidateResult {
  enum class Outcome { Passed, Mismatch, CompileError, LaunchError, DeviceError, NotRun };
  samples::Config config;
  Outcome outcome = Outcome::NotRun;
  std::string why;       // all but Passed: what happened, one line
  rt::Timing timing;     // when it ran (Passed or Mismatch)
  double work = 0;       // per launch: flops, or bytes when the sample counts no flops
  bool counts_flops = true;
  double seconds = 0;    // waiting for its compile, plus running it

  // work / ms in TFLOP/s (flops) or GB/s (bytes); 0 for ms <= 0.
  double rate(double ms) const;
  double median_rate() const { return rate(timing.median_ms); }
  const char* unit() const { return counts_flops ? "TFLOP/s" : "GB/s"; }
};

struct SweepOptions {
  int iters = 50;            // timed launches per candidate
  double max_seconds = 0;    // > 0: no candidate starts after this long
  unsigned compile_ahead = 1;  // candidates compiling while the GPU runs one
};

struct Sweep {
  std::vector<CandidateResult> results;  // one per candidate, in candidate order
  size_t tried = 0;                      // candidates that were started
  bool cut_short = false;                // --max-seconds stopped it
  bool device_fault = false;             // a candidate broke the GPU context: the rest did not run
  double wall_s = 0;
  double compile_s = 0;                  // summed over the compile threads (they overlap the runs)
};

// Called as candidate `index` starts (result null) and when it is done.
using SweepProgress = std::function<void(size_t index, const CandidateResult* result)>;

// Launches a compiled candidate: verifies it once and times `iters` launches (may throw
// rt::RuntimeError). `tilejit tune` runs samples::run_sample on the GPU; tests pass stand-ins.
using CandidateRunner = std::function<samples::RunReport(const samples::Config&, const samples::Compiled&, int iters)>;

// The runner of `tilejit tune`: samples::run_sample on `device` (the candidate loaded as a
// JitKernel, launched through the host API), with verification.
CandidateRunner gpu_runner(const samples::Sample& s, const Device& device);

Sweep run_sweep(const samples::Sample& s, const std::vector<samples::Config>& candidates, const codegen::Target& target,
                const CandidateRunner& run, const SweepOptions& opts, const SweepProgress& progress);

// Indexes of `results`, best first: passed ones by median rate, fastest first; then
// mismatches, errors and the ones not run, each in candidate order.
std::vector<size_t> ranking(const std::vector<CandidateResult>& results);

// "745.0 TFLOP/s", "mismatch: ...", "compile error: ..." for a finished candidate.
std::string outcome_text(const CandidateResult& r);

}  // namespace tj::cli
