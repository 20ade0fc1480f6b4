// Timing work queued on a stream, each item between its own pair of events. Kernels and
// the references they are compared with (a device-to-device copy) are timed by this one
// pattern, so that their figures mean the same thing.
#pragma once

#include <functional>
#include <string_view>

#include <cuda.h>

namespace tj::rt {

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int iters = 0;
};

// Queues `enqueue` warmup times, then iters times each between its own pair of events on
// `stream`, back to back with one synchronization at the end; returns the per-item
// statistics. `what` names the work in errors (a kernel name).
Timing time_enqueued(std::string_view what, CUstream stream, int iters, int warmup, const std::function<void()>& enqueue);

}  // namespace tj::rt
