#include "cli/timeline_svg.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace tj::cli {
namespace {

constexpr double kLeft = 70, kTop = 40, kWidth = 1000, kRow = 8, kBottom = 40;

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string ms(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ns * 1e-6);
  return buf;
}

// A vertical line across the rows with its label above.
std::string mark(double x, double height, const char* color, const std::string& label) {
  return "<line class=\"" + std::string(color) + "\" x1=\"" + num(x) + "\" y1=\"" + num(kTop - 4) + "\" x2=\"" + num(x) +
         "\" y2=\"" + num(kTop + height + 4) + "\" stroke=\"" + color + "\" stroke-dasharray=\"4 2\"/>\n<text x=\"" + num(x) +
         "\" y=\"" + num(kTop + height + 18) + "\" fill=\"" + color + "\" text-anchor=\"end\">" + escaped(label) + "</text>\n";
}

}  // namespace

std::string timeline_svg(const std::vector<TimelineBar>& bars, const TimelineChart& chart) {
  std::map<uint32_t, size_t> rows;  // SM -> row
  uint64_t first = UINT64_MAX, last = 0;
  for (const TimelineBar& b : bars) {
    rows.emplace(b.sm, 0);
    first = std::min(first, b.start), last = std::max(last, b.end);
  }
  size_t r = 0;
  for (auto& [sm, row] : rows) row = r++;
  const double makespan = bars.empty() ? 0 : double(last - first);
  const double span = std::max({makespan, chart.bound_ns, 1.0});
  const double height = std::max<double>(1, double(rows.size())) * kRow;
  auto x = [&](double ns) { return kLeft + kWidth * ns / span; };

  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kLeft + kWidth + 20) + "\" height=\"" +
                    num(kTop + height + kBottom) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  out += "<text x=\"" + num(kLeft) + "\" y=\"16\">" + escaped(chart.title) + "</text>\n";
  if (bars.empty()) return out + "<text x=\"" + num(kLeft) + "\" y=\"" + num(kTop + 8) + "\">no units ran</text>\n</svg>\n";
  out += "<text x=\"" + num(kLeft) + "\" y=\"30\">" + std::to_string(bars.size()) + " units on " + std::to_string(rows.size()) +
         " SMs (a row each, SM ids " + std::to_string(rows.begin()->first) + " to " + std::to_string(rows.rbegin()->first) +
         "); time from the first start</text>\n";
  for (const auto& [sm, row] : rows)
    if (row % 16 == 0)
      out += "<text x=\"" + num(kLeft - 4) + "\" y=\"" + num(kTop + (double(row) + 1) * kRow) + "\" text-anchor=\"end\">SM " +
             std::to_string(sm) + "</text>\n";
  for (size_t i = 0; i < bars.size(); ++i) {
    const TimelineBar& b = bars[i];
    const double x0 = x(double(b.start - first)), x1 = x(double(std::max(b.end, b.start) - first));
    static const char* kFill[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1"};
    out += "<rect class=\"unit\" x=\"" + num(x0) + "\" y=\"" + num(kTop + double(rows.at(b.sm)) * kRow + 1) + "\" width=\"" +
           num(std::max(0.5, x1 - x0)) + "\" height=\"" + num(kRow - 2) + "\" fill=\"" + kFill[i % 4] + "\"/>\n";
  }
  out += mark(x(makespan), height, "red", "makespan " + ms(makespan));
  if (chart.bound_ns > 0) out += mark(x(chart.bound_ns), height, "green", "bound " + ms(chart.bound_ns));
  return out + "</svg>\n";
}

}  // namespace tj::cli
