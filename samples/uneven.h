// uneven: a tiles_m x tiles_n grid of work units of uneven cost, walked with
// for_each_tile under the static or the dynamic schedule, to measure what a schedule's
// tail costs. Unit (i, j) costs cost(i) "cost units": i + 1 (causal: the shape of causal
// attention, whose query tile i attends to i + 1 key tiles) or 1 (uniform); one cost unit
// is `unit_ns` nanoseconds of thread 0 of the unit's CTA busy-waiting on %globaltimer, so
// the work is real time on an SM whatever the clocks. Each CTA reserves most of an SM's
// shared memory, so that one CTA (one unit) runs per SM at a time, as in a GEMM or an
// attention kernel; the schedule's makespan can then be held against the bound
//   max(total work / SMs, largest unit)
// that no schedule beats. Per unit the kernel records the SM it ran on, %globaltimer at its
// start and end, and how many times it ran (the check: exactly once each, and none
// shorter than its cost).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dsl/ir/ir.h"
#include "dsl/ir/kernel.h"
#include "generators/sample.h"
#include "generators/timeline.h"

namespace tj::samples {

enum class UnevenCost : uint8_t { Causal, Uniform };
enum class UnevenSchedule : uint8_t { Static, Dynamic };

// The problem and how the kernel covers it, from a config.
struct UnevenPlan {
  int64_t tiles_m = 32, tiles_n = 32;
  UnevenCost cost = UnevenCost::Causal;
  int64_t unit_ns = 10000;
  UnevenSchedule schedule = UnevenSchedule::Dynamic;
  ir::UnitOrder order = ir::UnitOrder::Rasterized;
  unsigned group = 8;           // grouped rasterization: rows of cluster tiles walked together
  unsigned cluster = 1;         // CTAs per cluster, along N
  unsigned threads = 128;
  unsigned reserve_kib = 120;   // shared memory each CTA holds (unused) to keep one CTA per SM

  int64_t units() const { return tiles_m * tiles_n; }
  // Cost units of a unit in tile row i.
  int64_t cost_of(int64_t i) const { return cost == UnevenCost::Causal ? i + 1 : 1; }
  int64_t nominal_ns(int64_t i) const { return cost_of(i) * unit_ns; }
  // Cluster tiles: the grid padded to whole clusters along N (the pad's CTAs do nothing).
  int64_t cluster_tiles() const { return tiles_m * ((tiles_n + cluster - 1) / cluster); }
  ir::TileSchedule tile_schedule() const;
  std::string text() const;  // "32 x 32 causal, 10000 ns per cost unit, dynamic longest_first, cluster 1"
};

UnevenPlan uneven_plan(const Config& c);

// The kernel. Parameters, in order: start (u64*), end (u64*), sm (u32*), runs (u32*),
// i32 tiles_m, i32 tiles_n, u32 unit_ns. Unit (i, j) is element i * tiles_n + j.
ir::Kernel build_uneven_kernel(const UnevenPlan& p);

// The plan's nominal unit durations (ns), unit i * tiles_n + j at that index, and their bound.
std::vector<double> nominal_durations(const UnevenPlan& p);
MakespanBound nominal_bound(const UnevenPlan& p, int sms);

// What one launch recorded for one unit.
struct UnitRecord {
  uint64_t start = 0, end = 0;  // %globaltimer, ns
  uint32_t sm = 0, runs = 0;
};
// The in-kernel span of a launch: the last end minus the first start (ns), over the units that ran.
double recorded_span_ns(const std::vector<UnitRecord>& records);
// The units' recorded durations (end - start, ns), for makespan_bound.
std::vector<double> recorded_durations(const std::vector<UnitRecord>& records);

// The instance: the record buffers (the benchmark reads them after its launches).
class UnevenInstance : public Instance {
 public:
  virtual const UnevenPlan& plan() const = 0;
  // The last launch's records, unit i * tiles_n + j at that index.
  virtual std::vector<UnitRecord> records() const = 0;
};
std::unique_ptr<UnevenInstance> make_uneven_instance(const UnevenPlan& p);
// The check of the records against the plan (what verify() reports, with `launches` 1):
// each unit ran once per launch since its counts were zeroed, and the last run at least
// its cost.
Check check_uneven_records(const UnevenPlan& p, const std::vector<UnitRecord>& records, uint32_t launches = 1);

class Uneven final : public Sample {
 public:
  std::string name() const override { return "uneven"; }
  std::string summary() const override {
    return "units of uneven cost (causal or uniform, busy-waits on %globaltimer) under the static or dynamic schedule, "
           "recording SM, start and end of each";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
  // Static: as many clusters as fit, at most one per cluster tile. Dynamic: nullopt (the
  // schedule decides its grid: JitKernel::schedule_grid).
  std::optional<ir::Dim3> persistent_grid(const Config& c, int max_active_clusters) const override;
};

}  // namespace tj::samples
