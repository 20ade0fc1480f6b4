#include "cli/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tj::cli {

namespace {

constexpr size_t kBarWidth = 20;

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
  return buf;
}

}  // namespace

std::string step_line(size_t index, size_t total, const std::string& label, const std::string& outcome) {
  const int width = int(std::to_string(total).size());
  char head[48];
  std::snprintf(head, sizeof head, "[%*zu/%zu] ", width, index + 1, total);
  return head + label + " ... " + outcome;
}

std::string bar_line(size_t done, size_t total, double elapsed_s, double limit_s, const std::string& current) {
  const size_t filled = total ? std::min(kBarWidth, done * kBarWidth / total) : kBarWidth;
  std::string out = "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + "] ";
  out += std::to_string(done) + "/" + std::to_string(total) + "  " + seconds(elapsed_s);
  if (done > 0 && done < total) {
    double left = elapsed_s / double(done) * double(total - done);
    if (limit_s > 0) left = std::max(0.0, std::min(left, limit_s - elapsed_s));
    out += ", ~" + seconds(left) + " left";
  }
  if (!current.empty()) out += "  now: " + current;
  return out;
}

Progress::Progress(std::ostream& out, bool redraw, size_t total, double limit_s)
    : out_(out), redraw_(redraw), total_(total), limit_s_(limit_s) {}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::clear_bar() {
  if (bar_shown_) out_ << "\r\033[2K";  // to the line's start, then erase it
  bar_shown_ = false;
}

void Progress::begin(size_t index, const std::string& label) {
  if (!redraw_) return;
  clear_bar();
  out_ << bar_line(done_, total_, elapsed(), limit_s_, label) << std::flush;
  bar_shown_ = true;
}

void Progress::end(size_t index, const std::string& label, const std::string& outcome) {
  ++done_;
  clear_bar();
  out_ << step_line(index, total_, label, outcome) << "\n";
  if (redraw_ && done_ < total_) {
    out_ << bar_line(done_, total_, elapsed(), limit_s_, "") << std::flush;
    bar_shown_ = true;
  }
  out_.flush();
}

void Progress::close() { clear_bar(); out_.flush(); }

}  // namespace tj::cli
