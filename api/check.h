// Comparing results with a host reference: counts mismatches and keeps the first few
// for the report. The samples check their kernels with these too.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tj {

// The outcome of a comparison; `detail` says what was compared and, on failure, the
// first mismatches ("elem 17: got 3, want 4").
struct Check {
  bool ok = false;
  std::string detail;
  explicit operator bool() const { return ok; }
};

// An element passes when |got - want| <= abs + rel * |want| (and got is not NaN);
// the default is exact.
struct Tolerance {
  double abs = 0;
  double rel = 0;
};

class MismatchLog {
 public:
  // got == want exactly.
  template <class T>
  void compare(const T& got, const T& want, const std::string& where) {
    ++checked_;
    if (got == want) return;
    note(where, std::to_string(got), std::to_string(want));
  }
  // Integers of any two types, equal in value; where() names the element, called only
  // when it differs.
  template <std::integral T, std::integral U, std::invocable Where>
  void compare_equal(T got, U want, Where&& where) {
    ++checked_;
    if (std::cmp_equal(got, want)) return;
    note(where(), std::to_string(got), std::to_string(want));
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
  uint64_t checked() const { return checked_; }
  uint64_t mismatched() const { return bad_; }
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

// Element-wise comparison of a result with its reference. Integers with the default
// (exact) tolerance are compared as integers; everything else as doubles.
template <class T, class U>
Check compare(const std::vector<T>& got, const std::vector<U>& want, Tolerance tol = {}, const std::string& what = "values") {
  if (got.size() != want.size())
    return {false, what + ": sizes differ: got " + std::to_string(got.size()) + " values, want " + std::to_string(want.size())};
  MismatchLog log;
  for (size_t i = 0; i < got.size(); ++i) {
    auto where = [&] { return "elem " + std::to_string(i); };
    if constexpr (std::is_integral_v<T> && std::is_integral_v<U>) {
      if (tol.abs == 0 && tol.rel == 0) {
        log.compare_equal(got[i], want[i], where);
        continue;
      }
    }
    const double w = static_cast<double>(want[i]);
    log.compare_close(static_cast<double>(got[i]), w, tol.abs + tol.rel * std::fabs(w), where);
  }
  return log.result(what);
}

}  // namespace tj
