// Timing two ways of doing the same work against each other, interleaved: repetition r
// runs A `iters` times between two events and B `iters` times between two events, A
// first in even repetitions and B first in odd ones (neither always meets the card as
// the other left it), on one stream, with no host synchronisation until every
// repetition is queued.
#pragma once

#include <cuda.h>

#include <functional>
#include <vector>

namespace tj::bench {

struct Interleaved {
  std::vector<double> a_ms, b_ms;  // per launch, one value per repetition
  // A's speed over B's per repetition (b_ms[r] / a_ms[r]): the two blocks of one
  // repetition run back to back, at about the same clocks and temperature, so the
  // ratio drifts less than the times do when the card throttles.
  std::vector<double> paired_speedups() const;
};

// `run_a(count)` and `run_b(count)` queue `count` back-to-back runs on `stream`. Both
// are run `warmup` times first (outside the events).
Interleaved time_interleaved(CUstream stream, int iters, int reps, int warmup, const std::function<void(int)>& run_a,
                             const std::function<void(int)>& run_b);

// The same for any number of ways: repetition r runs each way `iters` times between its
// own two events, starting with way r % n and going round (each way meets the card after
// each other way as often). Result: per way, ms per run, one value per repetition.
std::vector<std::vector<double>> time_rotated(CUstream stream, int iters, int reps, int warmup,
                                              const std::vector<std::function<void(int)>>& runs);

struct Spread {
  double min = 0, median = 0, max = 0;
};
Spread spread(std::vector<double> values);  // of a non-empty list; median of an even count: the mean of the middle two

}  // namespace tj::bench
