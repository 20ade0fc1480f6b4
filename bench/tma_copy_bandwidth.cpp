// tma_copy against a device-to-device copy of the same bytes, interleaved in one run.
// Every configuration and the reference are timed alike: `kIters` items queued back to
// back on one stream, each between its own pair of events (rt::time_enqueued), after
// `kWarmup` untimed ones; the reference is cuMemcpyDtoDAsync on the same stream. One
// repetition measures every configuration once, starting one later each time; over
// `kReps` repetitions the table gives the min / median / max of the repetitions' medians.
// TB/s counts bytes read plus bytes written, at the median.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "generators/runner.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/module.h"
#include "runtime/timing.h"
#include "samples/builtin.h"

namespace {

using namespace tj;

constexpr int kReps = 7, kIters = 10, kWarmup = 2;

struct Shape {
  int64_t box_cols, box_rows, stages;
  unsigned ctas_per_sm;
  int64_t warp_specialized = 0;
};

// One line of the table: something timed, with each repetition's median.
struct Measured {
  std::string name, ctas;
  std::function<rt::Timing()> time;
  std::vector<double> rep_medians;
  bool ok = true;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A compiled, loaded and once-checked tma_copy of one shape.
struct Copy {
  samples::Config cfg;
  samples::Compiled compiled;
  std::unique_ptr<rt::Module> module;
  std::unique_ptr<samples::Instance> inst;
  rt::ArgPack args;
  rt::LaunchConfig lc;
  samples::Check check;
};

std::unique_ptr<Copy> make_copy(const rt::Context& ctx, const codegen::Target& target, const Shape& s, int64_t rows,
                                int64_t cols, unsigned sms, uint64_t seed) {
  const samples::Sample* sample = samples::find_sample("tma_copy");
  auto c = std::make_unique<Copy>();
  c->cfg = samples::default_config(*sample);
  c->cfg.cluster = {1, 1, 1};
  c->cfg.grid_clusters = {sms * s.ctas_per_sm, 1, 1};
  c->cfg.threads = s.warp_specialized ? 64 : 32;
  c->cfg.params = {{"cols", cols},       {"rows", rows},     {"box_cols", s.box_cols},
                   {"box_rows", s.box_rows}, {"stages", s.stages}, {"warp_specialized", s.warp_specialized}};
  c->compiled = samples::compile_sample(*sample, c->cfg, target, nullptr);
  c->module = std::make_unique<rt::Module>(
      rt::Module::load(ctx, c->compiled.result.cubin, "tma_copy", c->compiled.lowered.kernel.params.size()));
  c->lc = samples::launch_config(c->cfg, c->compiled);
  rt::prepare(*c->module, c->lc);
  c->inst = sample->instantiate(c->cfg, seed);
  c->args = c->inst->args();
  c->inst->poison();
  rt::launch(*c->module, c->lc, c->args);
  rt::synchronize(*c->module);
  c->check = c->inst->verify();
  return c;
}

}  // namespace

int main() {
  std::string why;
  if (!rt::driver_available(&why)) {
    std::printf("tma_copy_bandwidth needs a GPU: %s\n", why.c_str());
    return 3;
  }
  try {
    rt::Context ctx;
    auto target = codegen::Target::parse(ctx.arch());
    if (!target) return 3;
    const int64_t rows = 16384, cols = 16384;  // 1 GiB of f32
    const size_t bytes = size_t(rows) * cols * 4;
    const unsigned sms = static_cast<unsigned>(ctx.info().sm_count);
    std::printf("device %s (%d SMs); %lld x %lld f32 = %.2f GiB copied per launch\n", ctx.info().name.c_str(), sms,
                (long long)rows, (long long)cols, bytes / double(1 << 30));
    std::printf("each line: %d repetitions, interleaved; each repetition times %d items queued back to back on one\n"
                "stream, one event pair per item, after %d untimed; min / median / max of the repetitions' medians\n",
                kReps, kIters, kWarmup);

    const std::vector<Shape> shapes = {{64, 64, 4, 1},    {64, 64, 6, 1},    {128, 32, 4, 2},   {256, 32, 3, 1},
                                       {256, 16, 4, 2},   {64, 64, 4, 1, 1}, {256, 32, 3, 1, 1}, {128, 32, 4, 2, 1}};
    std::vector<std::unique_ptr<Copy>> copies;
    std::vector<Measured> lines;
    for (size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      Copy& c = *copies.emplace_back(make_copy(ctx, *target, s, rows, cols, sms, 100 + i));
      char name[96];
      std::snprintf(name, sizeof name, "tma_copy box %lldx%lld, %lld stages, %s", (long long)s.box_cols,
                    (long long)s.box_rows, (long long)s.stages, s.warp_specialized ? "producer+consumer" : "one thread");
      lines.push_back({name, std::to_string(c.cfg.num_ctas()),
                       [&c] { return rt::time_launches(*c.module, c.lc, c.args, kIters, kWarmup); }, {}, c.check.ok});
    }
    rt::DeviceBuffer a(bytes), b(bytes);
    a.fill_u8(1);
    const rt::Driver& d = rt::driver();
    lines.push_back({"cuMemcpyDtoDAsync (reference)", "-", [&] {
                       return rt::time_enqueued("cuMemcpyDtoDAsync", nullptr, kIters, kWarmup, [&] {
                         rt::check(d.cuMemcpyDtoDAsync(b.ptr(), a.ptr(), bytes, nullptr), "cuMemcpyDtoDAsync");
                       });
                     }, {}, true});

    for (int rep = 0; rep < kReps; ++rep)
      for (size_t j = 0; j < lines.size(); ++j) {
        Measured& m = lines[(j + size_t(rep)) % lines.size()];
        m.rep_medians.push_back(m.time().median_ms);
      }

    auto tbps = [&](double ms) { return 2.0 * bytes / (ms * 1e-3) / 1e12; };
    const double ref = median(lines.back().rep_medians);
    std::printf("\n%-52s %-5s %-8s %-8s %-8s %-6s %s\n", "what", "CTAs", "min ms", "med ms", "max ms", "TB/s", "vs memcpy");
    bool ok = true;
    for (const Measured& m : lines) {
      const double med = median(m.rep_medians);
      ok &= m.ok;
      std::printf("%-52s %-5s %-8.3f %-8.3f %-8.3f %-6.2f %.1f%%%s\n", m.name.c_str(), m.ctas.c_str(),
                  *std::min_element(m.rep_medians.begin(), m.rep_medians.end()), med,
                  *std::max_element(m.rep_medians.begin(), m.rep_medians.end()), tbps(med), 100 * ref / med,
                  m.ok ? "" : "  CHECK FAILED");
    }
    std::printf("\nall copies checked: %s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 5;
  }
}
