// Progress of a long CLI job of N steps, on stderr: one line per finished step; on a
// terminal also a bar under those lines, redrawn in place, with the time so far and an
// estimate of the time left.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace tj::cli {

// "[ 7/24] bm=128 bn=256 cluster 2x1 group 8 ... 745.0 TFLOP/s"
std::string step_line(size_t index, size_t total, const std::string& label, const std::string& outcome);

// "[#######.............]  7/24  31 s, ~75 s left  now: bm=128 ..." for `done` steps
// finished after `elapsed_s`; the estimate assumes the rest take as long on average, and
// never exceeds `limit_s` - elapsed when a limit is given (> 0).
std::string bar_line(size_t done, size_t total, double elapsed_s, double limit_s, const std::string& current);

class Progress {
 public:
  // `redraw`: stderr is a terminal, so the bar can be drawn over itself.
  Progress(std::ostream& out, bool redraw, size_t total, double limit_s = 0);
  ~Progress() { close(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Step `index` (0-based) starts: the bar names it.
  void begin(size_t index, const std::string& label);
  // Step `index` finished with `outcome`: its line, then the bar again.
  void end(size_t index, const std::string& label, const std::string& outcome);
  // Removes the bar (idempotent).
  void close();

 private:
  double elapsed() const;
  void clear_bar();

  std::ostream& out_;
  bool redraw_;
  size_t total_, done_ = 0;
  double limit_s_;
  bool bar_shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace tj::cli
