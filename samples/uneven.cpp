#include "samples/uneven.h"

#include <algorithm>
#include <functional>

#include "dsl/dsl.h"

namespace tj::samples {

using namespace tj::dsl;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// The longest busy unit: a launch stays seconds long at most (tiles_m and tiles_n up to
// 4096 keep the unit index, an i32, far from overflow).
constexpr int64_t kMaxUnitNs = int64_t(4) * 1000 * 1000 * 1000;

}  // namespace

ir::TileSchedule UnevenPlan::tile_schedule() const {
  if (schedule == UnevenSchedule::Dynamic) return dynamic(group, 2, order);
  ir::TileSchedule s = static_persistent(group);
  s.order = order;
  return s;
}

std::string UnevenPlan::text() const {
  return str(tiles_m) + " x " + str(tiles_n) + (cost == UnevenCost::Causal ? " causal" : " uniform") + ", " + str(unit_ns) +
         " ns per cost unit, " + (schedule == UnevenSchedule::Dynamic ? "dynamic " : "static ") +
         std::string(order == ir::UnitOrder::LongestRowsFirst ? "longest_first" : "rasterized") + ", cluster " + str(cluster);
}

std::vector<ParamSpec> Uneven::params() const {
  return {{"tiles_m", 32, 1, 4096, "rows of units (a unit in row i costs i + 1 with cost causal)"},
          {"tiles_n", 32, 1, 4096, "columns of units"},
          {"cost", 0, 0, 1, "what a unit costs: causal (row i: i + 1 cost units) or uniform (1 each)", {"causal", "uniform"}},
          {"unit_ns", 10000, 1, 1000 * 1000 * 1000, "nanoseconds of one cost unit (thread 0 busy-waits on %globaltimer)"},
          {"schedule", 1, 0, 1, "how units reach CTAs: static (a persistent grid, unit id + grid stride) or dynamic "
                                "(each cluster claims its next unit while it works)", {"static", "dynamic"}},
          {"order", 0, 0, 1, "the units' order: rasterized, or longest_first (the costliest rows first)",
           {"rasterized", "longest_first"}},
          {"group", 8, 1, 64, "grouped rasterization: rows of cluster tiles walked together"},
          {"reserve_kib", 120, 0, 226,
           "shared memory each CTA holds (unused): above half an SM's 228 KiB keeps one CTA, one unit, per SM (at most "
           "226, so that the schedule's own bytes still fit the 227 KiB a CTA may hold)"}};
}

UnevenPlan uneven_plan(const Config& c) {
  UnevenPlan p;
  p.tiles_m = c.param("tiles_m"), p.tiles_n = c.param("tiles_n");
  p.cost = c.param("cost") == 1 ? UnevenCost::Uniform : UnevenCost::Causal;
  p.unit_ns = c.param("unit_ns");
  p.schedule = c.param("schedule") == 0 ? UnevenSchedule::Static : UnevenSchedule::Dynamic;
  p.order = c.param("order") == 1 ? ir::UnitOrder::LongestRowsFirst : ir::UnitOrder::Rasterized;
  p.group = unsigned(c.param("group"));
  p.cluster = c.cluster.x;
  p.threads = c.threads;
  p.reserve_kib = unsigned(c.param("reserve_kib"));
  return p;
}

std::vector<ConfigProblem> Uneven::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  if (c.cluster.y != 1 || c.cluster.z != 1 || c.cluster.x > 8)
    out.push_back({"cluster", "uneven takes clusters along N only, of 1 to 8 CTAs: got " + c.cluster.str()});
  if (c.threads % 32 != 0 || c.threads == 0)
    out.push_back({"threads", "uneven needs whole warps: threads a multiple of 32, got " + str(c.threads)});
  const UnevenPlan p = uneven_plan(c);
  const int64_t largest = p.cost_of(p.tiles_m - 1) * p.unit_ns;
  if (largest > kMaxUnitNs)
    out.push_back({"params.unit_ns", "the largest unit would busy-wait " + str(largest) + " ns (" + str(p.cost_of(p.tiles_m - 1)) +
                                         " cost units of " + str(p.unit_ns) + " ns); at most " + str(kMaxUnitNs) +
                                         ": lower unit_ns"});
  return out;
}

ir::Kernel build_uneven_kernel(const UnevenPlan& p) {
  KernelBuilder k("uneven");
  k.threads(p.threads);
  if (p.cluster > 1) k.cluster(p.cluster);
  auto start = k.param<uint64_t*>("start");
  auto end = k.param<uint64_t*>("end");
  auto sm = k.param<uint32_t*>("sm");
  auto runs = k.param<uint32_t*>("runs");
  auto tiles_m = k.param<int32_t>("tiles_m");
  auto tiles_n = k.param<int32_t>("tiles_n");
  auto unit_ns = k.param<uint32_t>("unit_ns");
  // Never touched: its size is what keeps a second CTA off the SM.
  if (p.reserve_kib > 0) k.dynamic_shared<uint8_t>("reserve", uint64_t(p.reserve_kib) * 1024);
  for_each_tile(p.tile_schedule(), tiles_m, tiles_n, [&](i32 m, i32 n) {
    if_(thread_idx_x() == 0 && m < tiles_m && n < tiles_n, [&] {
      const u32 cost = p.cost == UnevenCost::Causal ? cast<uint32_t>(m + 1) : u32(1u);
      u64 busy = var(cast<uint64_t>(cost) * cast<uint64_t>(unit_ns), "busy_ns");
      u64 t0 = var(global_timer(), "t0");
      Var<uint64_t> now = var(t0, "now");
      while_(now - t0 < busy, [&] { now = global_timer(); });
      i32 u = var(m * tiles_n + n, "unit");
      start[u] = t0;
      end[u] = now;
      sm[u] = sm_id();
      atomic_add(runs[u], u32(1u));
    });
  });
  return k.build();
}

ir::Kernel Uneven::build(const Config& c) const { return build_uneven_kernel(uneven_plan(c)); }

std::unique_ptr<Instance> Uneven::instantiate(const Config& c, uint64_t) const { return make_uneven_instance(uneven_plan(c)); }

std::optional<ir::Dim3> Uneven::persistent_grid(const Config& c, int max_active_clusters) const {
  const UnevenPlan p = uneven_plan(c);
  if (p.schedule == UnevenSchedule::Dynamic) return std::nullopt;
  const int64_t n = std::max<int64_t>(1, std::min<int64_t>(p.cluster_tiles(), max_active_clusters));
  return ir::Dim3{unsigned(n), 1, 1};
}

std::vector<double> nominal_durations(const UnevenPlan& p) {
  std::vector<double> ns;
  ns.reserve(size_t(p.units()));
  for (int64_t i = 0; i < p.tiles_m; ++i)
    for (int64_t j = 0; j < p.tiles_n; ++j) ns.push_back(double(p.nominal_ns(i)));
  return ns;
}

MakespanBound nominal_bound(const UnevenPlan& p, int sms) { return makespan_bound(nominal_durations(p), sms); }

double recorded_span_ns(const std::vector<UnitRecord>& records) {
  uint64_t first = UINT64_MAX, last = 0;
  for (const UnitRecord& r : records)
    if (r.runs > 0) first = std::min(first, r.start), last = std::max(last, r.end);
  return last > first ? double(last - first) : 0;
}

std::vector<double> recorded_durations(const std::vector<UnitRecord>& records) {
  std::vector<double> out;
  out.reserve(records.size());
  for (const UnitRecord& r : records) out.push_back(r.end >= r.start ? double(r.end - r.start) : 0);
  return out;
}

}  // namespace tj::samples
