// Counting mismatches between results and a host reference, keeping the
// first few for the report.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <sstream>
#include <string>

#include "samples/sample.h"

namespace tj::samples {

class MismatchLog {
 public:
  template <class T>
  void compare(const T& got, const T& want, const std::string& where) {
    ++checked_;
    if (got == want) return;
    note(where, std::to_string(got), std::to_string(want));
  }
  // |got - want| <= tol, and never NaN.
  void compare_close(double got, double want, double tol, const std::string& where) {
    compare_close(got, want, tol, [&] { return where; });
  }
  // The same, calling where() for the element's name only when it differs (for
  // millions of elements, most of which match).
  template <std::invocable Where>
  void compare_close(double got, double want, double tol, Where&& where) {
    ++checked_;
    if (std::isfinite(got) && std::fabs(got - want) <= tol) return;
    std::ostringstream g, w;
    g.precision(9), w.precision(9);
    g << got;
    w << want << " (tolerance " << tol << ")";
    note(where(), g.str(), w.str());
  }
  Check result(const std::string& what) const {
    Check c;
    c.ok = bad_ == 0;
    c.detail = c.ok ? what + ": all " + std::to_string(checked_) + " match"
                    : what + ": " + std::to_string(bad_) + " of " + std::to_string(checked_) + " differ; " + first_;
    return c;
  }

 private:
  void note(const std::string& where, const std::string& got, const std::string& want) {
    if (++bad_ <= 5) first_ += (bad_ > 1 ? "; " : "") + where + ": got " + got + ", want " + want;
  }
  uint64_t checked_ = 0, bad_ = 0;
  std::string first_;
};

}  // namespace tj::samples
