#include "cli/run_timeline.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>

#include "cli/exit_codes.h"
#include "cli/output.h"
#include "cli/timeline_csv.h"
#include "cli/timeline_svg.h"
#include "codegen/lower.h"
#include "generators/runner.h"
#include "generators/timeline.h"
#include "runtime/error.h"

namespace tj::cli {

namespace {
std::pair<std::string, std::string> split_path(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string dir = p.parent_path().string();
  return {dir.empty() ? "." : dir, p.filename().string()};
}

std::string us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", ns * 1e-3);
  return buf;
}
}  // namespace

void check_timeline_path(const std::string& path) {
  const auto [dir, name] = split_path(path);
  if (name.empty() || name == "." || name == "..")
    throw rt::RuntimeError(rt::ErrorKind::Usage, "--timeline: '" + path + "' names no file");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw rt::RuntimeError(rt::ErrorKind::Io, "--timeline: the folder '" + dir + "' does not exist");
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw rt::RuntimeError(rt::ErrorKind::Io, "--timeline: '" + path + "' exists and is not a regular file");
}

void compile_timeline(const Spec& spec, const samples::Config& config, const codegen::Target& target) {
  codegen::LowerOptions lower;
  lower.timeline = true;
  samples::compile_sample(*spec.sample, config, target, nullptr, lower);
}

int run_timeline(const Spec& spec, const samples::Config& config, const codegen::Target& target, const Device& device,
                 rt::Cache& cache, const std::string& path, unsigned long long seed, bool verify) {
  const rt::DeviceInfo& dev = device.info();
  samples::Timeline t = samples::record_timeline(*spec.sample, config, target, device, &cache, seed, verify);
  std::vector<double> durations;
  std::vector<TimelineBar> bars;
  uint64_t first = UINT64_MAX, last = 0;
  for (const samples::TimelineUnit& u : t.units) {
    durations.push_back(double(u.end - u.start));
    bars.push_back({u.sm, u.start, u.end});
    first = std::min(first, u.start), last = std::max(last, u.end);
  }
  // Units that share an SM at once (small CTAs, several resident) divide the total by more
  // than the SM count; at least the SMs the device has.
  const int slots = std::max(samples::concurrent_slots(t.units), dev.sm_count);
  const samples::MakespanBound bound = samples::makespan_bound(durations, slots);
  const double makespan = t.units.empty() ? 0 : double(last - first);
  char ratio[64] = "";
  if (bound.bound_ns > 0) std::snprintf(ratio, sizeof ratio, " (%.3fx the bound)", makespan / bound.bound_ns);

  TimelineChart chart;
  chart.title = spec.sample->name() + " (" + std::filesystem::path(spec.file).filename().string() + ") on " + dev.name + ", " +
                std::to_string(dev.sm_count) + " SMs: makespan " + us(makespan) + ", bound " + us(bound.bound_ns) + ratio;
  chart.bound_ns = bound.bound_ns;
  const auto [dir, name] = split_path(path);
  const bool csv = is_csv_path(path);
  const std::string written = write_output(dir, name, csv ? timeline_csv(t.units) : timeline_svg(bars, chart));

  std::set<uint32_t> sms;
  for (const TimelineBar& b : bars) sms.insert(b.sm);
  std::cout << "timeline  " << t.units.size() << " units (one per CTA and unit, from " << t.records << " warp records) on "
            << sms.size() << " SMs: makespan " << us(makespan) << ", bound " << us(bound.bound_ns) << ratio
            << (csv ? "; units written to " : "; chart written to ") << written << "\n";
  if (t.records > t.capacity)
    std::cout << "timeline  " << (t.records - t.capacity) << " warp records past the room for " << t.capacity
              << " were lost: the chart is missing units\n";
  if (t.report.verified) {
    std::cout << "timeline  the recorded launch's output " << (t.report.check.ok ? "PASSED: " : "FAILED: ") << t.report.check.detail
              << "\n";
    if (!t.report.check.ok) return kMismatch;
  }
  return kOk;
}

}  // namespace tj::cli
