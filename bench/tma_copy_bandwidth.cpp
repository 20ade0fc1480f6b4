// tma_copy against a device-to-device copy of the same bytes, interleaved in
// one run. Both count bytes read plus bytes written. Several pipeline shapes
// are measured; the table ends with the best one's ratio to the reference.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/module.h"
#include "samples/runner.h"

namespace {

using namespace tj;

struct Shape {
  int64_t box_cols, box_rows, stages;
  unsigned ctas_per_sm;
  int64_t warp_specialized = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median milliseconds of `iters` cuMemcpyDtoD of `bytes`, timed with events.
double time_memcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes, int iters) {
  const rt::Driver& d = rt::driver();
  CUevent a, b;
  rt::check(d.cuEventCreate(&a, 0), "cuEventCreate");
  rt::check(d.cuEventCreate(&b, 0), "cuEventCreate");
  std::vector<double> ms;
  for (int i = 0; i < iters + 2; ++i) {
    rt::check(d.cuEventRecord(a, nullptr), "cuEventRecord");
    rt::check(d.cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
    rt::check(d.cuEventRecord(b, nullptr), "cuEventRecord");
    rt::check(d.cuEventSynchronize(b), "cuEventSynchronize");
    float t = 0;
    rt::check(d.cuEventElapsedTime(&t, a, b), "cuEventElapsedTime");
    if (i >= 2) ms.push_back(t);
  }
  d.cuEventDestroy(a);
  d.cuEventDestroy(b);
  return median(ms);
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
    const samples::Sample* s = samples::find_sample("tma_copy");
    const int64_t rows = 16384, cols = 16384;  // 1 GiB of f32
    const int reps = 5, iters = 10;
    const unsigned sms = static_cast<unsigned>(ctx.info().sm_count);
    std::printf("device %s (%d SMs); %lld x %lld f32 = %.2f GiB copied per launch\n", ctx.info().name.c_str(), sms,
                (long long)rows, (long long)cols, rows * cols * 4.0 / (1 << 30));

    std::vector<Shape> shapes = {{64, 64, 4, 1},    {64, 64, 6, 1},   {128, 32, 4, 2},    {256, 32, 3, 1},
                                 {256, 16, 4, 2},   {64, 64, 4, 1, 1}, {256, 32, 3, 1, 1}, {128, 32, 4, 2, 1}};
    struct Run {
      Shape shape;
      samples::Config cfg;
      samples::Compiled compiled;
      std::unique_ptr<rt::Module> module;
      std::unique_ptr<samples::Instance> inst;
      rt::ArgPack args;
      rt::LaunchConfig lc;
      std::vector<double> ms;
      samples::Check check;
    };
    std::vector<Run> runs(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      Run& r = runs[i];
      r.shape = shapes[i];
      r.cfg = samples::default_config(*s);
      r.cfg.cluster = {1, 1, 1};
      r.cfg.grid_clusters = {sms * shapes[i].ctas_per_sm, 1, 1};
      r.cfg.threads = shapes[i].warp_specialized ? 64 : 32;
      r.cfg.params = {{"cols", cols}, {"rows", rows}, {"box_cols", shapes[i].box_cols}, {"box_rows", shapes[i].box_rows},
                      {"stages", shapes[i].stages}, {"warp_specialized", shapes[i].warp_specialized}};
      r.compiled = samples::compile_sample(*s, r.cfg, *target, nullptr);
      r.module = std::make_unique<rt::Module>(rt::Module::load(ctx, r.compiled.result.cubin, "tma_copy", r.compiled.lowered.kernel.params.size()));
      r.lc = samples::launch_config(r.cfg, r.compiled);
      rt::prepare(*r.module, r.lc);
      r.inst = s->instantiate(r.cfg, 100 + i);
      r.args = r.inst->args();
      r.inst->poison();
      rt::launch(*r.module, r.lc, r.args);
      rt::synchronize(*r.module);
      r.check = r.inst->verify();
    }
    const size_t bytes = size_t(rows) * cols * 4;
    rt::DeviceBuffer a(bytes), b(bytes);
    a.fill_u8(1);
    std::vector<double> ref;
    for (int rep = 0; rep < reps; ++rep) {
      ref.push_back(time_memcpy(b.ptr(), a.ptr(), bytes, iters));
      for (Run& r : runs) r.ms.push_back(rt::time_launches(*r.module, r.lc, r.args, iters).median_ms);
    }
    const double ref_tbps = 2.0 * bytes / (median(ref) * 1e-3) / 1e12;
    std::printf("\n%-36s %-8s %-10s %-10s %s\n", "tma_copy shape", "CTAs", "ms", "TB/s", "vs memcpy");
    double best = 0;
    bool ok = true;
    for (Run& r : runs) {
      const double ms = median(r.ms), tbps = 2.0 * bytes / (ms * 1e-3) / 1e12;
      best = std::max(best, tbps);
      ok &= r.check.ok;
      char name[64];
      std::snprintf(name, sizeof name, "box %lldx%lld, %lld stages%s", (long long)r.shape.box_cols, (long long)r.shape.box_rows,
                    (long long)r.shape.stages, r.shape.warp_specialized ? ", pipeline" : "");
      std::printf("%-36s %-8u %-10.3f %-10.2f %.1f%%%s\n", name, r.cfg.num_ctas(), ms, tbps, 100 * tbps / ref_tbps,
                  r.check.ok ? "" : "  CHECK FAILED");
    }
    std::printf("%-36s %-8s %-10.3f %-10.2f 100%%\n", "cuMemcpyDtoD (reference)", "-", median(ref), ref_tbps);
    std::printf("\nbest tma_copy / memcpy: %.1f%%; all copies checked: %s\n", 100 * best / ref_tbps, ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 5;
  }
}
