// Driving a sample the whole way: DSL -> verify + lower -> NVRTC (cached) -> a JitKernel
// (api/jit.h) -> launch -> check -> time. Shared by the CLI, GPU tests and benches. Every
// launch goes through the host API: the instance's arguments are checked against the
// kernel's parameters (JitKernel::bind_vector) before anything runs.
#pragma once

#include <memory>
#include <string>

#include "api/compile.h"
#include "api/jit.h"
#include "codegen/lower.h"
#include "codegen/target.h"
#include "generators/sample.h"
#include "runtime/cache.h"
#include "runtime/compiler.h"
#include "runtime/launch.h"
#include "runtime/module.h"

namespace tj::samples {

// The sample's own rules and the launch checks, as UserError diagnostics
// whose location is the spec field ("spec: cluster") when no source line applies.
void check_sample_config(const Sample& s, const Config& c);

// Where compile_sample's time goes (build: the sample's config checks and the DSL
// building the IR), and what it made: the host API's types (api/compile.h).
using CompileTimes = tj::CompileTimes;
using Compiled = tj::CompiledKernel;

// The NVRTC request for lowered code: the source plus the embedded prelude.
using tj::compile_request;

// Builds the sample's kernel, verifies and lowers it, compiles it through the cache.
Compiled compile_sample(const Sample& s, const Config& c, const codegen::Target& target, rt::Cache* cache,
                        const codegen::LowerOptions& lower = {});

// The spec's grid (in CTAs, which compile_sample checked against the kernel's cluster
// shape), counted in clusters of the compiled kernel.
Grid spec_grid(const Config& c, const Compiled& compiled);

// Block, cluster shape and dynamic shared memory from the compiled kernel; the spec's grid.
rt::LaunchConfig launch_config(const Config& c, const Compiled& compiled);

// How `kernel` is launched with `args`: the grid its schedule decides when it has one
// (for_each_tile(dynamic(...)): JitKernel::schedule_grid, one cluster per unit on sm_100a,
// the co-resident clusters on sm_90a), else the one the sample's persistent_grid() asks
// for, given how many clusters of it fit at once, else the problem's or the spec's grid.
// The CLI, the tests and the benchmarks all launch through this, so a kernel gets the
// same grid in each.
struct LaunchPlan {
  Grid grid;                    // in clusters
  rt::LaunchConfig config;      // kernel.launch_config(grid)
  int max_active_clusters = 0;  // of the kernel (the grid does not change it)
  bool persistent = false;      // the grid came from persistent_grid()
  bool scheduled = false;       // the grid came from the kernel's schedule
};
LaunchPlan plan_launch(const Sample& s, const Config& c, const JitKernel& kernel, const BoundArgs& args);

// The instance's arguments (Instance::args()) checked against the kernel's parameters.
BoundArgs bind_instance(const JitKernel& kernel, Instance& instance);

struct RunOptions {
  int iters = 20;   // timed launches (0: no timing)
  bool verify = true;
  uint64_t seed = 1;
};

struct RunReport {
  Check check;            // check.ok is meaningful only when verified
  bool verified = false;
  int max_active_clusters = 0;
  rt::LaunchConfig launch;  // as launched: the persistent grid when the sample has one
  bool persistent = false;  // launch.grid_clusters came from persistent_grid()
  bool scheduled = false;   // ... or from the kernel's schedule (JitKernel::schedule_grid)
  rt::Timing timing;      // iters == 0 when not timed
  double bytes_per_launch = 0;
  double flops_per_launch = 0;  // 0: not a compute kernel
  double gbytes_per_s() const { return timing.median_ms > 0 ? bytes_per_launch / (timing.median_ms * 1e6) : 0; }
  double tflops() const { return timing.median_ms > 0 ? flops_per_launch / (timing.median_ms * 1e9) : 0; }
};

// Launches `kernel` (the sample's, built for `c`) once and checks the result, then times.
RunReport run_sample(const Sample& s, const Config& c, JitKernel& kernel, const RunOptions& opts);
// The same, loading `compiled` on `device` first.
RunReport run_sample(const Sample& s, const Config& c, const Compiled& compiled, const Device& device,
                     const RunOptions& opts);

// What Sample::for_device needs of `device`: its SM count, and the clusters of n CTAs it
// holds at once with a whole SM each (rt::probe_active_clusters at the device's opt-in
// shared memory, asked once per n; 0 where the query fails).
Sample::DeviceFacts device_facts(const Device& device);

}  // namespace tj::samples
