#include "bench/interleaved_timing.h"

#include <algorithm>

#include "runtime/driver.h"

namespace tj::bench {

namespace {

// Destroys the events of a run, whatever happens to it.
struct Events {
  std::vector<CUevent> events;
  ~Events() {
    for (CUevent e : events) rt::driver().cuEventDestroy(e);
  }
  CUevent make() {
    CUevent e = nullptr;
    rt::check(rt::driver().cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
    events.push_back(e);
    return e;
  }
};

double elapsed_ms(CUevent start, CUevent stop) {
  float ms = 0;
  rt::check(rt::driver().cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  return ms;
}

}  // namespace

Interleaved time_interleaved(CUstream stream, int iters, int reps, int warmup, const std::function<void(int)>& run_a,
                             const std::function<void(int)>& run_b) {
  const rt::Driver& d = rt::driver();
  Events events;
  struct Rep {
    CUevent a0, a1, b0, b1;
  };
  std::vector<Rep> marks;
  for (int r = 0; r < reps; ++r) marks.push_back({events.make(), events.make(), events.make(), events.make()});

  run_a(warmup);
  run_b(warmup);
  auto timed = [&](CUevent start, CUevent stop, const std::function<void(int)>& run) {
    rt::check(d.cuEventRecord(start, stream), "cuEventRecord");
    run(iters);
    rt::check(d.cuEventRecord(stop, stream), "cuEventRecord");
  };
  for (size_t r = 0; r < marks.size(); ++r) {
    const Rep& m = marks[r];
    if (r % 2 == 0) {
      timed(m.a0, m.a1, run_a);
      timed(m.b0, m.b1, run_b);
    } else {
      timed(m.b0, m.b1, run_b);
      timed(m.a0, m.a1, run_a);
    }
  }
  rt::check(d.cuStreamSynchronize(stream), "cuStreamSynchronize");

  Interleaved out;
  for (const Rep& m : marks) {
    out.a_ms.push_back(elapsed_ms(m.a0, m.a1) / iters);
    out.b_ms.push_back(elapsed_ms(m.b0, m.b1) / iters);
  }
  return out;
}

std::vector<std::vector<double>> time_rotated(CUstream stream, int iters, int reps, int warmup,
                                              const std::vector<std::function<void(int)>>& runs) {
  const rt::Driver& d = rt::driver();
  const size_t n = runs.size();
  Events events;
  std::vector<std::vector<std::pair<CUevent, CUevent>>> marks(static_cast<size_t>(reps));
  for (auto& rep : marks)
    for (size_t w = 0; w < n; ++w) rep.emplace_back(events.make(), events.make());
  for (const auto& run : runs) run(warmup);
  for (size_t r = 0; r < marks.size(); ++r)
    for (size_t k = 0; k < n; ++k) {
      const size_t w = (r + k) % n;
      rt::check(d.cuEventRecord(marks[r][w].first, stream), "cuEventRecord");
      runs[w](iters);
      rt::check(d.cuEventRecord(marks[r][w].second, stream), "cuEventRecord");
    }
  rt::check(d.cuStreamSynchronize(stream), "cuStreamSynchronize");
  std::vector<std::vector<double>> out(n);
  for (const auto& rep : marks)
    for (size_t w = 0; w < n; ++w) out[w].push_back(elapsed_ms(rep[w].first, rep[w].second) / iters);
  return out;
}

std::vector<double> Interleaved::paired_speedups() const {
  std::vector<double> out;
  for (size_t r = 0; r < a_ms.size() && r < b_ms.size(); ++r) out.push_back(b_ms[r] / a_ms[r]);
  return out;
}

Spread spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return {v.front(), n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.back()};
}

}  // namespace tj::bench
