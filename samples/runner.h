// Driving a sample the whole way: DSL -> verify + lower -> NVRTC (cached) ->
// module -> launch -> check -> time. Shared by the CLI, GPU tests and benches.
#pragma once

#include <memory>
#include <string>

#include "codegen/lower.h"
#include "codegen/target.h"
#include "runtime/cache.h"
#include "runtime/compiler.h"
#include "runtime/device.h"
#include "runtime/launch.h"
#include "runtime/module.h"
#include "samples/sample.h"

namespace tj::samples {

// The sample's own rules and the launch checks, as UserError diagnostics
// whose location is the spec field ("spec: cluster") when no source line applies.
void check_sample_config(const Sample& s, const Config& c);

// Where compile_sample's time goes, in seconds: what a user waits for before a launch,
// with module loading (load_module) on top.
struct CompileTimes {
  double build = 0;    // the sample's config checks and the DSL building the IR
  double lower = 0;    // verification passes, rewrites and CUDA emission
  double compile = 0;  // NVRTC, or the disk-cache lookup on a hit (result.from_cache)
  double total() const { return build + lower + compile; }
};

struct Compiled {
  codegen::Lowered lowered;
  rt::CompileResult result;
  CompileTimes times;
};

// The NVRTC request for lowered code: the source plus the embedded prelude.
rt::CompileRequest compile_request(const codegen::Lowered& lowered, const codegen::Target& target);

// Builds the sample's kernel, verifies and lowers it, compiles it through the cache.
Compiled compile_sample(const Sample& s, const Config& c, const codegen::Target& target, rt::Cache* cache);

rt::LaunchConfig launch_config(const Config& c, const Compiled& compiled);

struct RunOptions {
  int iters = 20;   // timed launches (0: no timing)
  bool verify = true;
  uint64_t seed = 1;
};

struct RunReport {
  Check check;            // check.ok is meaningful only when verified
  bool verified = false;
  int max_active_clusters = 0;
  rt::Timing timing;      // iters == 0 when not timed
  double bytes_per_launch = 0;
  double gbytes_per_s() const { return timing.median_ms > 0 ? bytes_per_launch / (timing.median_ms * 1e6) : 0; }
};

// Loads the compiled kernel on ctx's device; `seconds`, when given, receives the time it took.
rt::Module load_module(const Compiled& compiled, const rt::Context& ctx, double* seconds = nullptr);

// Launches `module` (loaded from `compiled`) once and checks the result, then times.
RunReport run_sample(const Sample& s, const Config& c, const Compiled& compiled, const rt::Module& module,
                     const RunOptions& opts);
// The same, loading the module first.
RunReport run_sample(const Sample& s, const Config& c, const Compiled& compiled, const rt::Context& ctx,
                     const RunOptions& opts);

}  // namespace tj::samples
