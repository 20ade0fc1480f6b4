#include "generators/timeline.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include "codegen/passes/insert_timeline.h"
#include "dsl/ir/ir.h"

namespace tj::samples {

std::vector<TimelineUnit> merge_timeline_records(const std::vector<uint64_t>& words, uint64_t records) {
  records = std::min<uint64_t>(records, words.size() / codegen::kTimelineWords);
  std::map<std::pair<uint64_t, uint32_t>, TimelineUnit> merged;  // (CTA, unit)
  for (uint64_t r = 0; r < records; ++r) {
    const uint64_t* w = &words[r * codegen::kTimelineWords];
    TimelineUnit u;
    u.start = w[0], u.end = std::max(w[0], w[1]);
    u.unit = uint32_t(w[2]), u.sm = uint32_t(w[2] >> 32);
    u.cta = w[3] & 0xffffffffu;
    auto [it, fresh] = merged.emplace(std::make_pair(u.cta, u.unit), u);
    // The warp that finished the unit last, and when it began it (of two that ended
    // together, the longer span).
    const TimelineUnit& v = it->second;
    if (!fresh && (u.end > v.end || (u.end == v.end && u.start < v.start))) it->second = u;
  }
  std::vector<TimelineUnit> out;
  out.reserve(merged.size());
  for (auto& [key, u] : merged) out.push_back(u);
  std::stable_sort(out.begin(), out.end(), [](const TimelineUnit& a, const TimelineUnit& b) { return a.start < b.start; });
  return out;
}

int concurrent_slots(const std::vector<TimelineUnit>& units) {
  std::map<uint32_t, std::vector<std::pair<uint64_t, int>>> events;  // SM -> (time, +1 start / -1 end)
  for (const TimelineUnit& u : units) {
    events[u.sm].push_back({u.start, +1});
    events[u.sm].push_back({u.end, -1});
  }
  int slots = 0;
  for (auto& [sm, e] : events) {
    std::sort(e.begin(), e.end());  // an end before a start at the same time: back to back, not overlapping
    int now = 0, most = 0;
    for (const auto& [t, d] : e) most = std::max(most, now += d);
    slots += std::max(1, most);
  }
  return slots;
}

Timeline record_timeline(const Sample& s, const Config& c, const codegen::Target& target, const Device& device,
                         rt::Cache* cache, uint64_t seed, bool verify) {
  codegen::LowerOptions lower;
  lower.timeline = true;
  JitKernel kernel = tj::load(compile_sample(s, c, target, cache, lower), device);
  std::unique_ptr<Instance> inst = s.instantiate(c, seed);
  BoundArgs args = bind_instance(kernel, *inst);
  const LaunchPlan plan = plan_launch(s, c, kernel, args);
  // The first launch binds the record buffers; the second, with the count cleared, is the one read.
  kernel.launch(plan.grid, args);
  kernel.synchronize();
  rt::DeviceBuffer* count = kernel.workspace(codegen::kTimelineCount);
  rt::DeviceBuffer* records = kernel.workspace(codegen::kTimelineRecords);
  if (!count || !records) ir::internal_error("record_timeline: a launch left the timeline's buffers unbound");
  count->fill_u8(0);
  if (verify) inst->poison();
  kernel.launch(plan.grid, args);
  kernel.synchronize();

  Timeline t;
  t.report.max_active_clusters = plan.max_active_clusters;
  t.report.launch = plan.config;
  t.report.persistent = plan.persistent;
  t.report.scheduled = plan.scheduled;
  if (verify) t.report.check = inst->verify(), t.report.verified = true;
  t.records = count->download_as<uint32_t>().at(0);
  const std::vector<uint64_t> words = records->download_as<uint64_t>();
  t.capacity = words.size() / codegen::kTimelineWords;
  t.units = merge_timeline_records(words, t.records);
  return t;
}

MakespanBound makespan_bound(std::vector<double> unit_ns, int sms) {
  MakespanBound b;
  sms = std::max(1, sms);
  for (double d : unit_ns) b.total_ns += d, b.largest_ns = std::max(b.largest_ns, d);
  b.bound_ns = std::max(b.total_ns / sms, b.largest_ns);
  if (unit_ns.size() > size_t(sms)) {
    std::nth_element(unit_ns.begin(), unit_ns.begin() + sms, unit_ns.end(), std::greater<>());
    const double next = unit_ns[size_t(sms)];  // the (sms + 1)-th longest; the sms longest before it
    b.pair_ns = next + *std::min_element(unit_ns.begin(), unit_ns.begin() + sms);
  }
  return b;
}

}  // namespace tj::samples
