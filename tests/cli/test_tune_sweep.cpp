// The sweep of `tilejit tune` on the CPU: real compiles of dsmem_ring configs, and a
// stand-in for the GPU run, so that every path (verified, mismatch, compile error,
// launch error, device fault, time limit) is exercised without a device.
#include <catch2/catch.hpp>

#include <thread>

#include "cli/tune_sweep.h"
#include "runtime/error.h"
#include "samples/builtin.h"
#include "tests/runtime/test_support.h"

using tj::cli::CandidateResult;
using tj::cli::Sweep;
using tj::samples::Config;
using Outcome = tj::cli::CandidateResult::Outcome;

namespace {

const tj::samples::Sample& ring() { return *tj::samples::find_sample("dsmem_ring"); }

std::vector<Config> ring_configs(std::initializer_list<int64_t> elems) {
  std::vector<Config> out;
  for (int64_t e : elems) {
    Config c = tj::samples::default_config(ring());
    c.params["elems"] = e;
    out.push_back(c);
  }
  return out;
}

// Reports for each elems value: 1024 takes 2 ms, 2048 1 ms, 3072 mismatches, 4096 cannot
// launch, 5120 faults the device; bytes per launch = elems * 1e6.
tj::samples::RunReport fake_run(const Config& c, const tj::samples::Compiled& compiled, int iters) {
  REQUIRE(compiled.lowered.kernel.name == "dsmem_ring");
  const int64_t elems = c.param("elems");
  if (elems == 4096) throw tj::rt::RuntimeError(tj::rt::ErrorKind::Launch, "cuLaunchKernelEx failed: too many resources\nmore");
  if (elems == 5120) throw tj::rt::RuntimeError(tj::rt::ErrorKind::Device, "an illegal memory access was encountered");
  tj::samples::RunReport r;
  r.verified = true;
  r.check.ok = elems != 3072;
  r.check.detail = r.check.ok ? "all equal" : "3 of 4096 differ; first at 17";
  r.bytes_per_launch = double(elems) * 1e6;
  const double ms = elems == 1024 ? 2.0 : 1.0;
  r.timing = {ms, ms * 0.9, ms * 1.1, iters};
  return r;
}

Sweep sweep(const std::vector<Config>& configs, tj::cli::SweepOptions opts, tj::cli::CandidateRunner run = fake_run,
            std::vector<std::string>* events = nullptr) {
  tj::rt::test::TempDir tmp;
  tj::rt::test::ScopedEnv cache("TILEJIT_CACHE_DIR", tmp / "cache");
  return tj::cli::run_sweep(ring(), configs, *tj::codegen::Target::parse("sm_90a"), run, opts,
                            [&](size_t i, const CandidateResult* r) {
                              if (events) events->push_back((r ? "end " : "begin ") + std::to_string(i));
                            });
}

}  // namespace

TEST_CASE("tune sweep: every candidate's outcome, and the run goes on past failures", "[cli][tune]") {
  std::vector<Config> configs = ring_configs({1024, 2048, 3072, 4096, 1024});
  configs[4].params["vector"] = 3;  // refused before NVRTC: a compile error
  tj::cli::SweepOptions opts;
  opts.iters = 7;
  opts.compile_ahead = 2;
  std::vector<std::string> events;
  const Sweep s = sweep(configs, opts, fake_run, &events);
  REQUIRE(s.results.size() == 5);
  CHECK(s.tried == 5);
  CHECK_FALSE(s.cut_short);
  CHECK_FALSE(s.device_fault);
  CHECK(s.compile_s > 0);
  CHECK(s.wall_s > 0);
  CHECK(events == std::vector<std::string>{"begin 0", "end 0", "begin 1", "end 1", "begin 2", "end 2", "begin 3", "end 3",
                                           "begin 4", "end 4"});
  const auto& r = s.results;
  CHECK(r[0].outcome == Outcome::Passed);
  CHECK(r[0].timing.iters == 7);
  CHECK_FALSE(r[0].counts_flops);  // dsmem_ring counts bytes: GB/s
  CHECK(r[0].median_rate() == Approx(1024e6 / 2e6));
  CHECK(r[1].outcome == Outcome::Passed);
  CHECK(r[2].outcome == Outcome::Mismatch);
  CHECK(r[2].why == "3 of 4096 differ; first at 17");
  CHECK(r[3].outcome == Outcome::LaunchError);
  CHECK(r[3].why == "cuLaunchKernelEx failed: too many resources");  // first line only
  CHECK(r[4].outcome == Outcome::CompileError);
  CHECK(r[4].why.find("params.vector: must be 1 or 4, got 3") != std::string::npos);
  for (const CandidateResult& c : r) CHECK(c.seconds > 0);
  CHECK(tj::cli::ranking(r) == std::vector<size_t>{1, 0, 2, 4, 3});
}

TEST_CASE("tune sweep: a device fault stops it, and the rest are not run", "[cli][tune]") {
  const Sweep s = sweep(ring_configs({2048, 5120, 1024}), {});
  CHECK(s.tried == 2);
  CHECK(s.device_fault);
  CHECK(s.results[0].outcome == Outcome::Passed);
  CHECK(s.results[1].outcome == Outcome::DeviceError);
  CHECK(s.results[2].outcome == Outcome::NotRun);
  CHECK(s.results[2].why == "not run: an earlier candidate faulted the GPU context");
}

TEST_CASE("tune sweep: --max-seconds starts no candidate after the limit", "[cli][tune]") {
  auto slow = [](const Config& c, const tj::samples::Compiled& compiled, int iters) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    return fake_run(c, compiled, iters);
  };
  tj::cli::SweepOptions opts;
  opts.max_seconds = 3.9;
  opts.compile_ahead = 1;
  const Sweep s = sweep(ring_configs({1024, 2048, 1024, 2048}), opts, slow);
  CHECK(s.cut_short);
  // The second starts after 2 s plus the first compile and what its own (ahead, beside the
  // first run) adds on a loaded machine: up to 1.9 s in all; the third never before 4 s.
  CHECK(s.tried == 2);
  CHECK(s.results[1].outcome == Outcome::Passed);
  CHECK(s.results[2].outcome == Outcome::NotRun);
  CHECK(s.results[2].why == "not run: --max-seconds 3.9 reached");
  CHECK(tj::cli::outcome_text(s.results[3]) == "not run: --max-seconds 3.9 reached");
}
