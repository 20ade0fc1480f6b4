// The uneven sample without a GPU: how a config becomes a plan and a tile schedule, its
// config rules (exact messages at the spec's fields), the makespan bound its benchmark holds
// makespans against, the check of a launch's records, the grid each schedule launches, and
// the kernel under both schedules on both targets: lowered with every check passing, and
// compiled by NVRTC for sm_90a (the timer read in the busy-wait's loop, the SM id, the
// dynamic schedule's counter claim). The numbers: tests/gpu/test_uneven.cpp.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "codegen/lower.h"
#include "dsl/ir/printer.h"
#include "dsl/tile.h"
#include "generators/runner.h"
#include "runtime/compiler.h"
#include "samples/uneven.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/samples/sample_test_support.h"

using namespace tj;

namespace {

samples::Config uneven_config(const std::map<std::string, int64_t>& params, unsigned cluster = 1, unsigned threads = 128) {
  samples::Config c = test::sample_config("uneven", params, threads);
  c.cluster = {cluster, 1, 1};
  return c;
}

std::vector<std::pair<std::string, std::string>> problems(const samples::Config& c) { return test::config_problems("uneven", c); }

}  // namespace

TEST_CASE("uneven: the plan of a config and its tile schedule", "[samples][uneven]") {
  samples::UnevenPlan p = samples::uneven_plan(uneven_config({}));
  CHECK(p.text() == "32 x 32 causal, 10000 ns per cost unit, dynamic rasterized, cluster 1");
  CHECK(p.units() == 1024);
  CHECK(p.cost_of(0) == 1);
  CHECK(p.nominal_ns(31) == 320000);
  CHECK(p.tile_schedule() == dsl::dynamic(8, 2, ir::UnitOrder::Rasterized));
  p = samples::uneven_plan(uneven_config({{"schedule", 0}, {"order", 1}, {"cost", 1}, {"tiles_n", 33}, {"group", 4}}, 2));
  CHECK(p.text() == "32 x 33 uniform, 10000 ns per cost unit, static longest_first, cluster 2");
  CHECK(p.cost_of(31) == 1);
  CHECK(p.cluster_tiles() == 32 * 17);  // the last cluster column half empty
  const ir::TileSchedule s = p.tile_schedule();
  CHECK(s.kind == ir::ScheduleKind::StaticPersistent);
  CHECK(s.group == 4);
  CHECK(s.order == ir::UnitOrder::LongestRowsFirst);
}

TEST_CASE("uneven: check_config refuses at the spec's fields", "[samples][uneven][config]") {
  using P = std::vector<std::pair<std::string, std::string>>;
  CHECK(problems(uneven_config({})).empty());
  CHECK(problems(uneven_config({}, 8)).empty());
  CHECK(problems(uneven_config({}, 1, 100)) == P{{"threads", "uneven needs whole warps: threads a multiple of 32, got 100"}});
  samples::Config c = uneven_config({});
  c.cluster = {2, 2, 1};
  CHECK(problems(c) == P{{"cluster", "uneven takes clusters along N only, of 1 to 8 CTAs: got (2,2,1)"}});
  CHECK(problems(uneven_config({}, 16)) == P{{"cluster", "uneven takes clusters along N only, of 1 to 8 CTAs: got (16,1,1)"}});
  CHECK(problems(uneven_config({{"tiles_m", 4096}, {"unit_ns", 1000000}})) ==
        P{{"params.unit_ns", "the largest unit would busy-wait 4096000000 ns (4096 cost units of 1000000 ns); at most "
                             "4000000000: lower unit_ns"}});
  CHECK(problems(uneven_config({{"tiles_m", 4096}, {"unit_ns", 1000000}, {"cost", 1}})).empty());  // uniform: 1 ms each
}

TEST_CASE("uneven: the makespan bound, max(total / SMs, largest unit)", "[samples][uneven][bound]") {
  // Work-bound: 10 + 20 + 30 on 2 SMs is 30, and so is the largest unit.
  samples::MakespanBound b = samples::makespan_bound({10, 20, 30}, 2);
  CHECK(b.total_ns == 60);
  CHECK(b.largest_ns == 30);
  CHECK(b.bound_ns == 30);
  CHECK_FALSE(b.work_bound());
  b = samples::makespan_bound({10, 20, 30}, 1);
  CHECK(b.bound_ns == 60);
  CHECK(b.work_bound());
  b = samples::makespan_bound({5, 100}, 4);  // one long unit decides
  CHECK(b.bound_ns == 100);
  CHECK(samples::makespan_bound({}, 132).bound_ns == 0);
  // The pair bound: of 5 units on 2 SMs, two of the 3 longest share an SM.
  b = samples::makespan_bound({9, 1, 7, 8, 2}, 2);
  CHECK(b.bound_ns == 13.5);
  CHECK(b.pair_ns == 15);  // 8 + 7
  CHECK(b.with_pair_ns() == 15);
  CHECK(samples::makespan_bound({9, 1}, 2).pair_ns == 0);
  // The causal 32 x 32 grid, 10 us per cost unit, on 132 SMs: 32 x (1 + ... + 32) = 16896 cost
  // units, 1.28 ms per SM; the largest unit (row 31) is 0.32 ms.
  b = samples::nominal_bound(samples::uneven_plan(uneven_config({})), 132);
  CHECK(b.total_ns == 168960000.0);
  CHECK(b.largest_ns == 320000.0);
  CHECK(b.bound_ns == Approx(1280000.0).epsilon(1e-12));
  CHECK(b.pair_ns == 560000.0);  // rows 31..28 hold the 132 longest: the 132nd and 133rd cost 28 each
  CHECK(b.with_pair_ns() == b.bound_ns);
  // 133 uniform units of 0.2 ms on 132 SMs: the plain bound is barely above one unit.
  b = samples::nominal_bound(samples::uneven_plan(uneven_config({{"tiles_m", 7}, {"tiles_n", 19}, {"cost", 1}, {"unit_ns", 200000}})), 132);
  CHECK(b.bound_ns == Approx(133 * 200000.0 / 132).epsilon(1e-12));
  CHECK(b.with_pair_ns() == 400000.0);  // no schedule does better than two units
  CHECK(samples::nominal_durations(samples::uneven_plan(uneven_config({{"tiles_m", 2}, {"tiles_n", 2}, {"unit_ns", 5}}))) ==
        std::vector<double>{5, 5, 10, 10});
  // Recorded durations and the span of a launch.
  const std::vector<samples::UnitRecord> records = {{100, 150, 0, 1}, {120, 400, 1, 1}, {90, 95, 2, 1}};
  CHECK(samples::recorded_span_ns(records) == 310);
  CHECK(samples::recorded_durations(records) == std::vector<double>{50, 280, 5});
}

TEST_CASE("uneven: the check of a launch's records", "[samples][uneven][check]") {
  const samples::UnevenPlan p = samples::uneven_plan(uneven_config({{"tiles_m", 2}, {"tiles_n", 2}, {"unit_ns", 100}}));
  // Row 0 costs 100 ns, row 1 200 ns.
  std::vector<samples::UnitRecord> r = {{1000, 1100, 3, 1}, {1000, 1150, 4, 1}, {1100, 1300, 3, 1}, {1150, 1400, 4, 1}};
  samples::Check c = samples::check_uneven_records(p, r);
  CHECK(c.ok);
  CHECK(c.detail == "uneven 2 x 2 causal, 100 ns per cost unit, dynamic rasterized, cluster 1: each unit ran exactly once "
                    "and at least its cost: all 8 match; span 0.000 ms on 2 SMs");
  r[2].runs = 2;        // unit (1, 0) ran twice
  r[1].end = 1050;      // unit (0, 1) ran 50 ns of its 100
  r[3] = {UINT64_MAX, UINT64_MAX, UINT32_MAX, 0};  // unit (1, 1) never ran (as poisoned)
  c = samples::check_uneven_records(p, r);
  CHECK_FALSE(c.ok);
  CHECK(c.detail == "uneven 2 x 2 causal, 100 ns per cost unit, dynamic rasterized, cluster 1: each unit ran exactly once "
                    "and at least its cost: 3 of 6 differ; unit (0, 1) ns busy (at least): got 50, want 100; unit (1, 0) "
                    "runs: got 2, want 1; unit (1, 1) runs: got 0, want 1; span 0.000 ms on 2 SMs");
  CHECK_FALSE(samples::check_uneven_records(p, {}).ok);
}

TEST_CASE("uneven: static launches a persistent grid, dynamic leaves its grid to the schedule", "[samples][uneven]") {
  const samples::Sample* s = samples::find_sample("uneven");
  REQUIRE(s);
  CHECK(s->persistent_grid(uneven_config({{"schedule", 0}}), 132) == ir::Dim3{132, 1, 1});
  CHECK(s->persistent_grid(uneven_config({{"schedule", 0}, {"tiles_m", 7}, {"tiles_n", 13}}), 132) == ir::Dim3{91, 1, 1});
  CHECK(s->persistent_grid(uneven_config({{"schedule", 0}, {"tiles_n", 3}}, 2), 66) == ir::Dim3{64, 1, 1});  // 32 x 2 cluster tiles
  CHECK_FALSE(s->persistent_grid(uneven_config({{"schedule", 1}}), 132).has_value());
}

TEST_CASE("uneven: both schedules lower on both targets with every check passing", "[samples][uneven][codegen]") {
  const samples::Sample* s = samples::find_sample("uneven");
  for (const codegen::Target& t : {codegen::Target::sm90a(), codegen::Target::sm100a()})
    for (unsigned cluster : {1u, 2u})
      for (int64_t schedule : {0, 1}) {
        CAPTURE(t.arch, cluster, schedule);
        const samples::Config c = uneven_config({{"schedule", schedule}, {"order", 1}}, cluster);
        samples::check_sample_config(*s, c);
        const codegen::Lowered l = codegen::lower(s->build(c), t);
        const std::string ir = ir::to_string(l.kernel);
        INFO(ir);
        CHECK(l.dynamic_smem >= 120u * 1024);  // the reservation that keeps one CTA per SM
        CHECK(test::contains(ir, "global_timer()"));
        CHECK(test::contains(ir, "sm_id()"));
        for (const auto& r : l.races) CHECK(r.outcome != codegen::race::RaceCheck::Allowed);
        if (schedule == 0) {
          CHECK_FALSE(l.kernel.schedule_grid.has_value());
          continue;
        }
        REQUIRE(l.kernel.schedule_grid.has_value());
        CHECK(l.kernel.schedule_grid->per_unit == (t.arch == "sm_100a"));  // cluster launch control: one cluster per unit
        CHECK(test::contains(ir, "while tj_sched0_valid units tj_sched0_unit of i64("));
      }
}

TEST_CASE("uneven: sm_90a PTX reads %globaltimer in the busy-wait loop and %smid, and dynamic claims by atom.add",
          "[samples][uneven][ptx][nvrtc]") {
  const samples::Sample* s = samples::find_sample("uneven");
  for (int64_t schedule : {0, 1}) {
    CAPTURE(schedule);
    const codegen::Lowered l = codegen::lower(s->build(uneven_config({{"schedule", schedule}})), codegen::Target::sm90a());
    const rt::CompileResult r = rt::compile(samples::compile_request(l, codegen::Target::sm90a()), nullptr);
    INFO(r.log);
    REQUIRE_FALSE(r.cubin.empty());
    // t0, then the loop's reads (volatile: not folded into one).
    CHECK(test::count(r.ptx, "%globaltimer;") >= 2);
    CHECK(test::count(r.ptx, "%smid;") == 1);
    CHECK(test::contains(r.ptx, "st.global.u64"));
    CHECK(test::count(r.ptx, "red.add.u32") == 1);  // the run count
    CHECK(test::contains(r.ptx, "atom.relaxed.gpu.global.add.u32") == (schedule == 1));
  }
}
