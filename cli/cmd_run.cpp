#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "cli/report.h"
#include "cli/run_timeline.h"
#include "cli/spec.h"
#include "cli/target_choice.h"
#include "generators/runner.h"
#include "generators/tuning.h"
#include "runtime/driver.h"
#include "runtime/error.h"

namespace tj::cli {
namespace {

// "cluster 2x1x1, 66 clusters = 132 CTAs (persistent grid), 384 threads, 201728 B dynamic smem".
std::string shape(const rt::LaunchConfig& lc, const std::string& grid_note) {
  const rt::Dim3& c = lc.cluster;
  return "cluster " + std::to_string(c.x) + "x" + std::to_string(c.y) + "x" + std::to_string(c.z) + ", " +
         std::to_string(lc.grid_clusters.count()) + " clusters = " + std::to_string(lc.grid_clusters.count() * c.count()) +
         " CTAs" + grid_note + ", " + std::to_string(lc.block.count()) + " threads, " + std::to_string(lc.dynamic_smem) +
         " B dynamic smem";
}

// Where the one compile's result came from, for its line.
std::string compile_source(const samples::Compiled& c, const rt::Cache& cache) {
  if (c.result.from_cache) return "cache hit";
  return std::string(cache.enabled() ? "cache miss" : "cache disabled") + "; NVRTC " + rt::nvrtc_version();
}

// The tuned config for this run (see generators/tuning.h); prints its "tuned" line, if any.
samples::Config tuned_config(const Spec& spec, const RunArgs& args, const std::string& device) {
  std::optional<samples::TuningDb> db;
  samples::TunedQuery q;
  q.enabled = args.tuned;
  q.device = device;
  q.db = [&]() -> const samples::TuningDb& {
    if (!db) db = samples::TuningDb::load(samples::tuning_db_path(""));
    return *db;
  };
  samples::TunedChoice choice = samples::decide_tuned(*spec.sample, spec.config, q);
  if (!choice.line.empty()) std::cout << "tuned     " << choice.line << "\n";
  return choice.config;
}

}  // namespace

int cmd_run(const RunArgs& args) {
  Spec spec = load_spec(args.spec);
  if (!args.timeline.empty()) check_timeline_path(args.timeline);
  std::string why;
  const bool have_driver = rt::driver_available(&why);

  if (!have_driver) {
    codegen::Target target = choose_target("");
    samples::Compiled c = samples::compile_sample(*spec.sample, spec.config, target, nullptr);
    ensure_output_dir(args.out_dir);
    std::string path = write_output(args.out_dir, c.lowered.kernel.name + "." + target.arch + ".ptx", c.result.ptx);
    // A persistent kernel's grid depends on how many clusters fit on the GPU; a grid that
    // follows the problem is known here.
    const bool scheduled = c.lowered.kernel.schedule_grid.has_value();
    const bool sized_on_gpu = !scheduled && spec.sample->persistent_grid(spec.config, 1).has_value();
    rt::LaunchConfig lc = samples::launch_config(spec.config, c);
    const std::optional<ir::Dim3> problem = spec.sample->problem_grid(spec.config);
    if (problem) lc.grid_clusters = {problem->x, problem->y, problem->z};
    const char* note = scheduled      ? " as the spec says (the kernel's schedule sizes its grid on the GPU)"
                       : sized_on_gpu ? " as the spec says (a persistent kernel's grid is sized on the GPU)"
                       : problem      ? " (the problem's grid)"
                                      : "";
    std::cout << "kernel    " << spec.sample->name() << ": " << shape(lc, note) << "\n";
    tuned_config(spec, args, "");
    std::cout << "compile   " << compile_time_text(c.times, false) << " for " << target.arch << " (NVRTC "
              << rt::nvrtc_version() << "); PTX written to " << path << "\n"
              << "launch    not run: no GPU here (" << why << "). Launching needs an sm_90a or sm_100a GPU.\n";
    print_checks(std::cout, c.lowered);
    if (!args.timeline.empty()) {
      compile_timeline(spec, spec.config, target);
      std::cout << "timeline  not recorded: no GPU here (the kernel compiles with the timeline; nothing was written to "
                << args.timeline << ")\n";
    }
    return kNoGpu;
  }

  const Device device = open_device(args.device);
  const rt::DeviceInfo& dev = device.info();
  const codegen::Target target = device_target(device.context());
  std::cout << "kernel    " << spec.sample->name() << "\n"
            << "device    " << dev.ordinal << ": " << dev.name << " (" << target.arch << ", " << dev.sm_count << " SMs)\n";
  samples::Config config = tuned_config(spec, args, dev.name);
  if (std::optional<samples::Sample::DeviceChoice> d = spec.sample->for_device(config, samples::device_facts(device))) {
    std::cout << "auto      " << d->line << "\n";
    config = d->config;
  }
  // One compile, through the disk cache; cold and cache-hit compiles side by side are
  // tilejit_bench_jit's (bench/jit_latency.cpp).
  rt::Cache cache = rt::Cache::from_env();
  samples::Compiled compiled = samples::compile_sample(*spec.sample, config, target, &cache);
  const std::string source = compile_source(compiled, cache);
  const auto load_start = std::chrono::steady_clock::now();
  JitKernel kernel = tj::load(std::move(compiled), device);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  const samples::Compiled& c = kernel.compiled();
  // What a user waits for before the first launch.
  std::cout << "compile   " << compile_time_text(c.times, c.result.from_cache, load_s) << " (" << source << ")\n";
  print_checks(std::cout, c.lowered);

  samples::RunOptions opts;
  opts.iters = args.iters;
  opts.verify = args.verify;
  opts.seed = args.seed;
  samples::RunReport r = samples::run_sample(*spec.sample, config, kernel, opts);
  std::cout << "launch    " << shape(r.launch, r.scheduled ? " (the schedule's grid)" : r.persistent ? " (persistent grid)" : "") << "\n"
            << "occupancy " << r.max_active_clusters << " clusters of " << r.launch.cluster.count()
            << " CTAs can be co-resident\n";
  if (r.verified) std::cout << "verify    " << (r.check.ok ? "PASSED: " : "FAILED: ") << r.check.detail << "\n";
  else std::cout << "verify    skipped (--no-verify)\n";
  if (r.timing.iters > 0) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "time      median %.4f ms (min %.4f, max %.4f) over %d launches; %.1f GB/s\n",
                  r.timing.median_ms, r.timing.min_ms, r.timing.max_ms, r.timing.iters, r.gbytes_per_s());
    std::cout << buf;
    if (r.flops_per_launch > 0) {
      std::snprintf(buf, sizeof buf, "compute   %.1f TFLOP/s at the median\n", r.tflops());
      std::cout << buf;
    }
  }
  if (r.verified && !r.check.ok) return kMismatch;
  if (!args.timeline.empty()) return run_timeline(spec, config, target, device, cache, args.timeline, args.seed, args.verify);
  return kOk;
}

}  // namespace tj::cli
