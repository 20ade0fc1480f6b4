// A launch's timeline as a per-SM Gantt chart in plain SVG (no dependency): one row per SM
// that ran a unit, one bar per unit from its start to its end (ns of the GPU's
// %globaltimer), and two vertical lines: the makespan (first start to last end) and the
// lower bound it is held against (max(total work / SMs, largest unit), the caller's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tj::cli {

struct TimelineBar {
  uint32_t sm = 0;
  uint64_t start = 0, end = 0;  // ns
};

struct TimelineChart {
  std::string title;    // the first line above the chart (XML-escaped here)
  double bound_ns = 0;  // from the first start; 0: no bound line
};

// The SVG text. Rows are the SMs in increasing order; time runs left to right over
// max(makespan, bound). No bars: a chart that says so.
std::string timeline_svg(const std::vector<TimelineBar>& bars, const TimelineChart& chart);

}  // namespace tj::cli
