// The tile schedules on uneven work (the uneven sample): for each workload, the static
// schedule, the dynamic one and, where units differ in cost, the dynamic one longest rows
// first, each verified once (every unit ran once, none shorter than its cost) and then
// timed in one run, one launch per event pair, the schedules in rotation (bench/
// interleaved_timing.h: repetition r starts with schedule r % n). Each line holds against
// its makespan the lower bound no schedule beats on this GPU's SMs, one unit per SM at a
// time (the sample reserves the shared memory for that):
//   nominal  max(total work / SMs, largest unit) from the units' set costs;
//   measured the same from the durations the last timed launch recorded per unit;
//   pair     max(nominal, p(SMs) + p(SMs + 1)), the costs sorted longest first: two of the
//            SMs + 1 longest units share an SM (with equal units that do not divide the SMs,
//            e.g. 133 on 132, no schedule comes near the plain bound: this one says so).
// "span" is the last launch's first start to last end on %globaltimer (no launch overhead).
// Every figure of a line comes from this run. Target (issue 20): dynamic within 1.05x of the
// nominal bound on the causal workloads.
// Exit: 0 all verified, 1 a verification failed, 3 no GPU, 5 a launch or device error.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/interleaved_timing.h"
#include "generators/runner.h"
#include "runtime/cache.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "samples/builtin.h"
#include "samples/uneven.h"

namespace {

using namespace tj;

constexpr int kReps = 9, kWarmup = 1;

struct Workload {
  const char* name;
  int64_t tiles_m, tiles_n;
  const char* cost;  // "causal" or "uniform"
  int64_t unit_ns;
  unsigned cluster;
};

struct Way {
  const char* name;
  int64_t schedule, order;  // the params' values: static 0 / dynamic 1; rasterized 0 / longest_first 1
};

// One schedule of one workload, compiled, with its buffers.
struct Variant {
  std::string name;
  samples::Config config;
  std::unique_ptr<JitKernel> kernel;
  std::unique_ptr<samples::Instance> instance;
  std::optional<BoundArgs> args;
  samples::LaunchPlan plan;
  samples::Check check;
  uint32_t launches = 1;  // since the counts were zeroed: the verified launch, then the timed ones
};

Variant prepare(const samples::Sample& s, const Workload& w, const Way& way, const Device& device,
                const codegen::Target& target, rt::Cache& cache) {
  Variant v;
  v.name = way.name;
  samples::Config& c = v.config;
  c = samples::default_config(s);
  c.cluster = {w.cluster, 1, 1};
  c.grid_clusters = {1, 1, 1};
  c.threads = 128;
  c.params["tiles_m"] = w.tiles_m, c.params["tiles_n"] = w.tiles_n;
  c.params["cost"] = std::string(w.cost) == "uniform" ? 1 : 0;
  c.params["unit_ns"] = w.unit_ns;
  c.params["schedule"] = way.schedule, c.params["order"] = way.order;
  v.kernel = std::make_unique<JitKernel>(tj::load(samples::compile_sample(s, c, target, &cache), device));
  v.instance = s.instantiate(c, 1);
  v.args = samples::bind_instance(*v.kernel, *v.instance);
  v.plan = samples::plan_launch(s, c, *v.kernel, *v.args);
  v.instance->poison();
  v.kernel->launch(v.plan.grid, *v.args);
  v.kernel->synchronize();
  v.check = v.instance->verify();
  return v;
}

struct Line {
  std::string workload, schedule, grid;
  bench::Spread ms;
  double span_ms = 0, nominal_ms = 0, measured_ms = 0, pair_ms = 0;
  bool ok = false;
};

}  // namespace

int main() {
  std::string why;
  if (!rt::driver_available(&why)) {
    std::printf("tilejit_bench_schedules needs a GPU: %s\n", why.c_str());
    return 3;
  }
  try {
    const Device device = Device::get();
    const std::optional<codegen::Target> target = codegen::Target::parse(device.arch());
    if (!target) return 3;
    const samples::Sample* s = samples::find_sample("uneven");
    if (!s) return 3;
    const int sms = device.info().sm_count;
    rt::Cache cache = rt::Cache::from_env();
    std::printf("device %s (%d SMs); the uneven sample under each schedule, %d reps of one launch each, the schedules "
                "in rotation; one unit per SM at a time (120 KiB of shared memory per CTA)\n",
                device.info().name.c_str(), sms, kReps);

    const std::vector<Workload> workloads = {
        {"causal 32x32", 32, 32, "causal", 10000, 1},
        {"causal 64x64", 64, 64, "causal", 2000, 1},
        {"causal 32x32, cluster 2", 32, 32, "causal", 10000, 2},
        {"uniform 133 (7x19)", 7, 19, "uniform", 200000, 1},
        {"uniform 200 (10x20)", 10, 20, "uniform", 200000, 1},
    };
    std::vector<Line> lines;
    for (const Workload& w : workloads) {
      std::vector<Way> ways = {{"static", 0, 0}, {"dynamic", 1, 0}};
      if (std::string(w.cost) == "causal") ways.push_back({"dynamic longest_first", 1, 1});
      std::vector<Variant> variants;
      for (const Way& way : ways) variants.push_back(prepare(*s, w, way, device, *target, cache));
      std::printf("\n%s\n", w.name);
      for (const Variant& v : variants)
        std::printf("  %-22s %u clusters of %u%s; verify %s: %s\n", v.name.c_str(), v.plan.config.grid_clusters.count(),
                    v.plan.config.cluster.count(), v.plan.scheduled ? " (the schedule's grid)" : v.plan.persistent ? " (persistent)" : "",
                    v.check.ok ? "PASSED" : "FAILED", v.check.detail.c_str());

      std::vector<std::function<void(int)>> runs;
      for (Variant& v : variants)
        runs.push_back([&v](int n) {
          for (int i = 0; i < n; ++i) v.kernel->launch(v.plan.grid, *v.args);
          v.launches += uint32_t(n);
        });
      const std::vector<std::vector<double>> ms = bench::time_rotated(nullptr, 1, kReps, kWarmup, runs);

      for (size_t i = 0; i < variants.size(); ++i) {
        Variant& v = variants[i];
        auto* inst = dynamic_cast<samples::UnevenInstance*>(v.instance.get());
        if (!inst) throw std::runtime_error("the uneven sample's instance is not a samples::UnevenInstance");
        const samples::UnevenPlan& p = inst->plan();
        const std::vector<samples::UnitRecord> records = inst->records();
        const samples::MakespanBound nominal = samples::nominal_bound(p, sms);
        Line l;
        l.workload = w.name, l.schedule = v.name;
        l.grid = std::to_string(v.plan.config.grid_clusters.count()) + "x" + std::to_string(v.plan.config.cluster.count());
        l.ms = bench::spread(ms[i]);
        l.span_ms = samples::recorded_span_ns(records) * 1e-6;
        l.nominal_ms = nominal.bound_ns * 1e-6;
        l.measured_ms = samples::makespan_bound(samples::recorded_durations(records), sms).bound_ns * 1e-6;
        l.pair_ms = nominal.with_pair_ns() * 1e-6;
        // The timed launches must have done the work too: every unit once per launch (the
        // counts were zeroed before the verified launch), the last one's times.
        const samples::Check last = samples::check_uneven_records(p, records, v.launches);
        l.ok = v.check.ok && last.ok;
        if (!last.ok) std::printf("  %s: the last timed launch FAILED: %s\n", v.name.c_str(), last.detail.c_str());
        lines.push_back(l);
      }
    }

    std::printf("\n| workload | schedule | grid | makespan ms (median; min / max) | span ms | bound ms nominal | bound ms "
                "measured | makespan / nominal bound | span / measured bound | bound with pair ms | makespan / bound with pair | "
                "verified |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    bool ok = true;
    for (const Line& l : lines) {
      ok &= l.ok;
      std::printf("| %s | %s | %s | %.3f; %.3f / %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s |\n",
                  l.workload.c_str(), l.schedule.c_str(), l.grid.c_str(), l.ms.median, l.ms.min, l.ms.max, l.span_ms,
                  l.nominal_ms, l.measured_ms, l.ms.median / l.nominal_ms, l.span_ms / l.measured_ms, l.pair_ms,
                  l.ms.median / l.pair_ms, l.ok ? "yes" : "FAILED");
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 5;
  }
}
