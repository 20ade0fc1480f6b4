#include "runtime/timing.h"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/driver.h"

namespace tj::rt {
namespace {

// Destroys the events of a timing run, whatever happens to it.
struct Events {
  std::vector<CUevent> events;
  ~Events() {
    for (CUevent e : events) driver().cuEventDestroy(e);
  }
  CUevent make(std::string_view what) {
    CUevent e = nullptr;
    check(driver().cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate", what);
    events.push_back(e);
    return e;
  }
};

}  // namespace

Timing time_enqueued(std::string_view what, CUstream stream, int iters, int warmup, const std::function<void()>& enqueue) {
  if (iters < 1 || warmup < 0)
    throw RuntimeError(ErrorKind::Usage, "timing '" + std::string(what) + "' needs iters >= 1 and warmup >= 0, not " +
                                             std::to_string(iters) + " and " + std::to_string(warmup));
  for (int i = 0; i < warmup; ++i) enqueue();

  const Driver& d = driver();
  Events events;
  std::vector<std::pair<CUevent, CUevent>> pairs;
  for (int i = 0; i < iters; ++i) pairs.emplace_back(events.make(what), events.make(what));
  for (auto [start, stop] : pairs) {
    check(d.cuEventRecord(start, stream), "cuEventRecord", what);
    enqueue();
    check(d.cuEventRecord(stop, stream), "cuEventRecord", what);
  }
  check(d.cuEventSynchronize(pairs.back().second), "cuEventSynchronize", what);

  std::vector<double> ms;
  for (auto [start, stop] : pairs) {
    float elapsed = 0;
    check(d.cuEventElapsedTime(&elapsed, start, stop), "cuEventElapsedTime", what);
    ms.push_back(elapsed);
  }
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return {median, ms.front(), ms.back(), iters};
}

}  // namespace tj::rt
