// The softmax sample against a device-to-device copy of the same bytes, interleaved in
// one run. For each shape, every candidate launch shape (128 to 1024 threads, the
// sample's warps_per_row for each, and one warp per row) is verified once against
// softmax in double, then timed interleaved with cuMemcpyDtoDAsync of rows x cols
// elements on the same stream (bench/interleaved_timing.h: repetition r runs `kIters`
// launches of one and `kIters` of the other between event pairs, alternating which goes
// first). GB/s counts bytes read plus bytes written (x once, y once: what the copy moves
// too), at the min / median / max repetition; "of memcpy" is the ratio of the medians,
// "per rep" the same ratio within each repetition (min / median / max).
// Exit: 0 all verified, 1 a verification failed, 3 no GPU, 5 a launch or device error.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/interleaved_timing.h"
#include "generators/runner.h"
#include "runtime/buffer.h"
#include "runtime/cache.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "samples/builtin.h"
#include "samples/softmax.h"

namespace {

using namespace tj;

constexpr int kReps = 10, kIters = 20, kWarmup = 3;

struct Shape {
  int64_t rows, cols;
  const char* dtype;
};

// The configs tried for a shape: each thread count with the sample's own warps_per_row,
// and 128 threads with one warp per row, those check_config accepts, without repeats.
std::vector<samples::Config> candidates(const samples::Sample& s, const Shape& shape) {
  std::vector<samples::Config> out;
  std::vector<std::pair<unsigned, unsigned>> seen;  // (threads, warps_per_row) of the plans
  auto consider = [&](unsigned threads, int64_t warps_per_row) {
    samples::Config c = samples::default_config(s);
    c.cluster = {1, 1, 1};
    c.threads = threads;
    c.params["rows"] = shape.rows, c.params["cols"] = shape.cols;
    c.params["dtype"] = std::string(shape.dtype) == "bf16" ? 1 : 0;
    c.params["warps_per_row"] = warps_per_row;
    if (!s.check_config(c).empty()) return;
    const samples::SoftmaxPlan p = samples::softmax_plan(c);
    for (const auto& [t, w] : seen)
      if (t == p.threads && w == p.warps_per_row) return;
    seen.emplace_back(p.threads, p.warps_per_row);
    out.push_back(c);
  };
  for (unsigned threads : {128u, 256u, 512u, 1024u}) consider(threads, 0);
  consider(128, 1);
  return out;
}

struct Line {
  std::string shape, launch;
  bench::Spread ours, copy, paired;  // GB/s, GB/s, ours / copy per rep
  bool ok = false;
};

bench::Spread gbps(const std::vector<double>& ms, double bytes) {
  const bench::Spread t = bench::spread(ms);  // the fastest time is the highest rate
  return {bytes / (t.max * 1e6), bytes / (t.median * 1e6), bytes / (t.min * 1e6)};
}

Line measure(const samples::Sample& s, const samples::Config& c, const Device& device, const codegen::Target& target,
             rt::Cache& cache, rt::DeviceBuffer& copy_src, rt::DeviceBuffer& copy_dst, uint64_t seed) {
  const samples::SoftmaxPlan p = samples::softmax_plan(c);
  Line line;
  line.shape = std::to_string(p.rows) + "x" + std::to_string(p.cols) + " " + (p.dtype == ir::Scalar::BF16 ? "bf16" : "f32");
  line.launch = std::to_string(p.threads) + " threads, " + std::to_string(p.warps_per_row) + " warps/row, " +
                std::to_string(p.rows_per_cta()) + " rows/CTA, " + std::to_string(p.values_per_thread()) + " values/thread";
  JitKernel kernel = tj::load(samples::compile_sample(s, c, target, &cache), device);
  std::unique_ptr<samples::Instance> inst = s.instantiate(c, seed);
  BoundArgs args = samples::bind_instance(kernel, *inst);
  const samples::LaunchPlan plan = samples::plan_launch(s, c, kernel, args);
  inst->poison();
  kernel.launch(plan.grid, args);
  kernel.synchronize();
  const samples::Check check = inst->verify();
  line.ok = check.ok;
  std::printf("\n%s, %s, %u CTAs\n  verify  %s: %s\n", line.shape.c_str(), line.launch.c_str(), plan.config.grid_clusters.count(),
              check.ok ? "PASSED" : "FAILED", check.detail.c_str());

  const size_t bytes = size_t(p.rows) * size_t(p.cols) * p.elem_bytes();
  const rt::Driver& d = rt::driver();
  CUstream stream = plan.config.stream;
  auto ours = [&](int n) { kernel.launch_repeated(plan.grid, args, n, stream); };
  auto copy = [&](int n) {
    for (int i = 0; i < n; ++i) rt::check(d.cuMemcpyDtoDAsync(copy_dst.ptr(), copy_src.ptr(), bytes, stream), "cuMemcpyDtoDAsync");
  };
  const bench::Interleaved t = bench::time_interleaved(stream, kIters, kReps, kWarmup, ours, copy);
  line.ours = gbps(t.a_ms, p.bytes());
  line.copy = gbps(t.b_ms, p.bytes());
  line.paired = bench::spread(t.paired_speedups());
  std::printf("  ours    GB/s min %.0f  median %.0f  max %.0f\n  memcpy  GB/s min %.0f  median %.0f  max %.0f\n"
              "  ours / memcpy %.3f (medians); per rep %.3f / %.3f / %.3f\n",
              line.ours.min, line.ours.median, line.ours.max, line.copy.min, line.copy.median, line.copy.max,
              line.ours.median / line.copy.median, line.paired.min, line.paired.median, line.paired.max);
  return line;
}

}  // namespace

int main() {
  std::string why;
  if (!rt::driver_available(&why)) {
    std::printf("tilejit_bench_softmax needs a GPU: %s\n", why.c_str());
    return 3;
  }
  try {
    const Device device = Device::get();
    const std::optional<codegen::Target> target = codegen::Target::parse(device.arch());
    if (!target) return 3;
    const samples::Sample* s = samples::find_sample("softmax");
    if (!s) return 3;
    rt::Cache cache = rt::Cache::from_env();
    std::printf("device %s (%d SMs); softmax vs cuMemcpyDtoDAsync of the same bytes; %d reps of %d launches each, "
                "interleaved on one stream; GB/s = (bytes read + bytes written) / time\n",
                device.info().name.c_str(), device.info().sm_count, kReps, kIters);
    const std::vector<Shape> shapes = {{8192, 4096, "f32"}, {16384, 1024, "f32"}, {4096, 16384, "f32"}, {8192, 4096, "bf16"}};
    std::vector<Line> lines;
    uint64_t seed = 1;
    for (const Shape& shape : shapes) {
      const size_t bytes = size_t(shape.rows) * size_t(shape.cols) * (std::string(shape.dtype) == "bf16" ? 2 : 4);
      rt::DeviceBuffer src(bytes), dst(bytes);
      src.fill_u8(1);
      for (const samples::Config& c : candidates(*s, shape)) lines.push_back(measure(*s, c, device, *target, cache, src, dst, seed++));
    }

    std::printf("\n| shape | launch | ours GB/s (min / median / max) | memcpy GB/s (median) | of memcpy | per rep (min / median / max) | verified |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    bool ok = true;
    for (const Line& l : lines) {
      ok &= l.ok;
      std::printf("| %s | %s | %.0f / %.0f / %.0f | %.0f | %.3f | %.3f / %.3f / %.3f | %s |\n", l.shape.c_str(), l.launch.c_str(),
                  l.ours.min, l.ours.median, l.ours.max, l.copy.median, l.ours.median / l.copy.median, l.paired.min,
                  l.paired.median, l.paired.max, l.ok ? "yes" : "FAILED");
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 5;
  }
}
