// The uneven sample on the GPU under both schedules (sm_90a: the dynamic one's atomic
// counter; its sm_100a form cannot run here): every unit ran exactly once and none shorter
// than its cost, over grid sizes that do and do not fill the SMs or the clusters, causal
// and uniform costs, both orders, clusters of 1 and 2; launched as the CLI launches it
// (plan_launch: the dynamic schedule's own grid), twice in a row; and the dynamic schedule
// on the causal 32 x 32 grid near the bound max(total work / SMs, largest unit).
#include "tests/gpu/gpu_fixture.h"

#include "samples/uneven.h"

namespace {

using namespace tj;

struct Case {
  int64_t tiles_m, tiles_n;
  const char* cost;
  int64_t unit_ns;
};

samples::Config config_of(const Case& k, unsigned cluster, int64_t schedule, int64_t order) {
  const samples::Sample* s = samples::find_sample("uneven");
  REQUIRE(s);
  samples::Config c = samples::default_config(*s);
  c.cluster = {cluster, 1, 1};
  c.grid_clusters = {1, 1, 1};
  c.threads = 128;
  c.params["tiles_m"] = k.tiles_m, c.params["tiles_n"] = k.tiles_n, c.params["unit_ns"] = k.unit_ns;
  c.params["cost"] = std::string(k.cost) == "uniform" ? 1 : 0;
  c.params["schedule"] = schedule, c.params["order"] = order;
  return c;
}

// Launches twice as the CLI does and checks each launch's records; returns the last ones.
std::vector<samples::UnitRecord> run_checked(const samples::Config& c) {
  const samples::Sample* s = samples::find_sample("uneven");
  JitKernel kernel = tj::load(samples::compile_sample(*s, c, gpu_test::target(), nullptr), gpu_test::device());
  std::unique_ptr<samples::Instance> inst = s->instantiate(c, 1);
  auto* uneven = dynamic_cast<samples::UnevenInstance*>(inst.get());
  REQUIRE(uneven);
  BoundArgs args = samples::bind_instance(kernel, *inst);
  const samples::LaunchPlan plan = samples::plan_launch(*s, c, kernel, args);
  const bool dynamic = c.param("schedule") == 1;
  CHECK(plan.scheduled == dynamic);  // the dynamic schedule sizes its own grid
  CHECK(plan.persistent == !dynamic);
  std::vector<samples::UnitRecord> records;
  for (int launch = 0; launch < 2; ++launch) {
    INFO("launch " << launch << ", grid " << plan.grid.x << " clusters");
    inst->poison();
    kernel.launch(plan.grid, args);
    kernel.synchronize();
    const samples::Check check = inst->verify();
    INFO(check.detail);
    CHECK(check.ok);
    records = uneven->records();
  }
  return records;
}

}  // namespace

TEST_CASE("uneven: every unit once and at least its cost, both schedules, clusters 1 and 2 [gpu]", "[gpu][uneven]") {
  const std::vector<Case> cases = {
      {1, 1, "causal", 1000},    // one unit
      {7, 13, "causal", 2000},   // 91 units: fewer than the SMs
      {33, 5, "causal", 1000},   // 165: more than 132, a ragged cluster column with cluster 2
      {7, 19, "uniform", 5000},  // 133: one more than the SMs
      {10, 20, "uniform", 5000}, // 200
      {32, 32, "causal", 1000},  // the spec's grid, shorter units
  };
  for (const Case& k : cases)
    for (unsigned cluster : {1u, 2u})
      for (int64_t schedule : {0, 1})
        for (int64_t order : {0, 1}) {
          DYNAMIC_SECTION(k.tiles_m << " x " << k.tiles_n << " " << k.cost << ", cluster " << cluster << ", "
                                    << (schedule ? "dynamic" : "static") << (order ? " longest_first" : "")) {
            run_checked(config_of(k, cluster, schedule, order));
          }
        }
}

TEST_CASE("uneven: the dynamic schedule, longest rows first, near the bound on causal 32 x 32 [gpu]", "[gpu][uneven][timing]") {
  const Case k{32, 32, "causal", 10000};
  const samples::Config c = config_of(k, 1, 1, 1);
  const std::vector<samples::UnitRecord> records = run_checked(c);
  const int sms = gpu_test::device().info().sm_count;
  const samples::MakespanBound bound = samples::nominal_bound(samples::uneven_plan(c), sms);
  const double span = samples::recorded_span_ns(records);
  INFO("span " << span * 1e-6 << " ms, bound " << bound.bound_ns * 1e-6 << " ms on " << sms << " SMs");
  CHECK(span >= bound.bound_ns * 0.999);  // no schedule beats it (the timer's granularity aside)
  CHECK(span <= bound.bound_ns * 1.10);   // the target is 1.05 (bench/schedules_bench.cpp measures it)
}
