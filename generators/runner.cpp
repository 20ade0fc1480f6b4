#include "generators/runner.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "api/jit.h"
#include "runtime/error.h"
#include "runtime/occupancy_probe.h"
#include "codegen/passes/verify_launch.h"
#include "dsl/diagnostic.h"

namespace tj::samples {
namespace {

// Seconds since construction or the last lap.
class Stopwatch {
 public:
  double lap() {
    auto now = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

void check_sample_config(const Sample& s, const Config& c) {
  std::vector<Diagnostic> diags;
  for (const ConfigProblem& p : s.check_config(c)) diags.push_back({ir::Loc{"config", 0, 0}, p.field + ": " + p.message, ""});
  if (!diags.empty()) throw UserError(std::move(diags));
}

Compiled compile_sample(const Sample& s, const Config& c, const codegen::Target& target, rt::Cache* cache,
                        const codegen::LowerOptions& lower) {
  Stopwatch clock;
  const std::vector<std::string> archs = s.targets();
  if (!archs.empty() && std::find(archs.begin(), archs.end(), target.arch) == archs.end()) {
    std::string list;
    for (const std::string& a : archs) list += (list.empty() ? "" : " or ") + a;
    throw rt::RuntimeError(rt::ErrorKind::Usage, "kernel '" + s.name() + "' is written for " + list + ", not " + target.arch +
                                                     ": compile it with --arch " + archs.front());
  }
  check_sample_config(s, c);
  ir::Kernel k = s.build(c);
  const double build = clock.lap();
  std::vector<Diagnostic> diags = codegen::verify_launch(k, c.grid_ctas());
  if (!diags.empty()) throw UserError(std::move(diags));
  Compiled out = tj::compile(k, target, cache, lower);  // times.lower and times.compile
  out.times.build = build;
  return out;
}

Grid spec_grid(const Config& c, const Compiled& compiled) {
  // The kernel's cluster shape is the one its code was built and verified for.
  const ir::Dim3& k = compiled.kernel().cluster;
  const ir::Dim3 g = c.grid_ctas();
  return {g.x / k.x, g.y / k.y, g.z / k.z};
}

rt::LaunchConfig launch_config(const Config& c, const Compiled& compiled) {
  return tj::launch_config(compiled, spec_grid(c, compiled));
}

LaunchPlan plan_launch(const Sample& s, const Config& c, const JitKernel& kernel, const BoundArgs& args) {
  LaunchPlan plan;
  plan.grid = spec_grid(c, kernel.compiled());
  if (std::optional<ir::Dim3> g = s.problem_grid(c)) plan.grid = {g->x, g->y, g->z};
  plan.max_active_clusters = kernel.max_active_clusters();  // prepares the module too
  if (std::optional<Grid> g = kernel.schedule_grid(args)) {
    // The schedule's grid is part of its protocol (sm_100a: a claimed cluster is one that
    // has not started), so it wins over the sample's and the spec's.
    plan.grid = *g;
    plan.scheduled = true;
  } else if (plan.max_active_clusters > 0) {
    // With no room for one cluster, the launch itself says which resource is short.
    if (std::optional<ir::Dim3> grid = s.persistent_grid(c, plan.max_active_clusters)) {
      plan.grid = {grid->x, grid->y, grid->z};
      plan.persistent = true;
    }
  }
  plan.config = kernel.launch_config(plan.grid);
  return plan;
}

BoundArgs bind_instance(const JitKernel& kernel, Instance& instance) {
  return kernel.bind_vector(encoded_args(instance.args()));
}

RunReport run_sample(const Sample& s, const Config& c, const Compiled& compiled, const Device& device,
                     const RunOptions& opts) {
  JitKernel kernel = tj::load(compiled, device);
  return run_sample(s, c, kernel, opts);
}

RunReport run_sample(const Sample& s, const Config& c, JitKernel& kernel, const RunOptions& opts) {
  std::unique_ptr<Instance> inst = s.instantiate(c, opts.seed);
  BoundArgs args = bind_instance(kernel, *inst);
  const LaunchPlan plan = plan_launch(s, c, kernel, args);

  RunReport report;
  report.max_active_clusters = plan.max_active_clusters;
  report.launch = plan.config;
  report.persistent = plan.persistent;
  report.scheduled = plan.scheduled;
  report.bytes_per_launch = inst->bytes_per_launch();
  report.flops_per_launch = inst->flops_per_launch();
  if (opts.verify) {
    inst->poison();
    kernel.launch(plan.grid, args);
    kernel.synchronize();
    report.check = inst->verify();
    report.verified = true;
  }
  if (opts.iters > 0) report.timing = kernel.time(plan.grid, args, opts.iters);
  return report;
}

Sample::DeviceFacts device_facts(const Device& device) {
  struct Memo {
    std::mutex mu;
    std::map<unsigned, int> fit;
  };
  auto memo = std::make_shared<Memo>();
  return Sample::DeviceFacts(device.info().sm_count, [device, memo](unsigned ctas) {
    if (ctas == 0) return 0;
    std::lock_guard<std::mutex> lock(memo->mu);
    if (auto it = memo->fit.find(ctas); it != memo->fit.end()) return it->second;
    int fit = 0;
    try {
      fit = rt::probe_active_clusters(device.context(), {ctas, 1, 1}, 128, unsigned(device.info().max_smem_per_block_optin));
    } catch (const rt::RuntimeError&) {
      fit = 0;  // a driver without the query, or a size it refuses: none known to fit
    }
    return memo->fit[ctas] = fit;
  });
}

}  // namespace tj::samples
