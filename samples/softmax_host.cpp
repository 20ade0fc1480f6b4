// The softmax sample's host side: inputs, device buffers, and the check of every output
// element against softmax computed in double (samples/softmax.h states the bound).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "generators/compare.h"
#include "generators/float16.h"
#include "generators/host_matrix.h"
#include "runtime/buffer.h"
#include "samples/softmax.h"

namespace tj::samples {

namespace {

// Bytes past y's end that the kernel must leave as poisoned (a ragged row or a row past
// the last one written out of bounds shows here).
constexpr size_t kGuardBytes = 256;

// x = 8 u + 16 o: u uniform in [-1, 1] per element, o per row, rounded to the type; rows
// then differ in where their maximum sits (|m| up to 24, which the bound's |m| term covers)
// and e^(x - m) spans e^-32 .. 1.
HostMatrix make_inputs(const SoftmaxPlan& p, uint64_t seed) {
  const HostMatrix u = random_matrix(ir::Scalar::F32, p.rows, p.cols, seed, 0x5f);
  const HostMatrix o = random_matrix(ir::Scalar::F32, p.rows, 1, seed, 0x60);
  HostMatrix x(p.dtype, p.rows, p.cols);
  for (int64_t r = 0; r < p.rows; ++r) {
    const float offset = 16.0f * float(o.at(size_t(r)));
    for (int64_t c = 0; c < p.cols; ++c) {
      const size_t i = size_t(r) * size_t(p.cols) + size_t(c);
      const float v = 8.0f * float(u.at(i)) + offset;
      if (p.dtype == ir::Scalar::BF16) {
        const uint16_t b = to_bf16_bits(v);
        std::memcpy(&x.bytes[2 * i], &b, 2);
      } else {
        std::memcpy(&x.bytes[4 * i], &v, 4);
      }
    }
  }
  return x;
}

class SoftmaxHost final : public Instance {
 public:
  SoftmaxHost(const SoftmaxPlan& p, uint64_t seed)
      : p_(p), x_(make_inputs(p, seed)), x_dev_(x_.bytes.size()), y_dev_(x_.bytes.size() + kGuardBytes) {
    x_dev_.upload(x_.bytes);
  }

  rt::ArgPack args() override {
    rt::ArgPack a;
    a.push(x_dev_.ptr()).push(y_dev_.ptr()).push(int32_t(p_.rows));
    return a;
  }
  void poison() override { y_dev_.fill_u8(0xFF); }  // NaN in f32 and bf16
  Check verify() override;
  double bytes_per_launch() const override { return p_.bytes(); }

 private:
  SoftmaxPlan p_;
  HostMatrix x_;
  rt::DeviceBuffer x_dev_, y_dev_;
};

Check SoftmaxHost::verify() {
  std::vector<uint8_t> got_bytes = y_dev_.download_as<uint8_t>();
  HostMatrix y(p_.dtype, p_.rows, p_.cols);
  std::memcpy(y.bytes.data(), got_bytes.data(), y.bytes.size());
  const bool guard_ok = std::all_of(got_bytes.begin() + long(y.bytes.size()), got_bytes.end(), [](uint8_t b) { return b == 0xFF; });

  MismatchLog log;
  const size_t cols = size_t(p_.cols);
  std::vector<double> row(cols);
  for (int64_t r = 0; r < p_.rows; ++r) {
    double m = -INFINITY, lo = INFINITY, sum = 0;
    for (size_t c = 0; c < cols; ++c) {
      row[c] = x_.at(size_t(r) * cols + c);
      m = std::max(m, row[c]), lo = std::min(lo, row[c]);
    }
    for (size_t c = 0; c < cols; ++c) sum += std::exp(row[c] - m);
    for (size_t c = 0; c < cols; ++c) {
      const double want = std::exp(row[c] - m) / sum;
      const double tol = softmax_relative_bound(p_, row[c], m, m - lo) * want + kSoftmaxAbsoluteFloor;
      log.compare_close(y.at(int64_t(r), int64_t(c)), want, tol,
                        [&] { return "y[" + std::to_string(r) + ", " + std::to_string(c) + "]"; });
    }
  }
  const std::string type = p_.dtype == ir::Scalar::BF16 ? "bf16" : "f32";
  Check c = log.result("softmax of " + std::to_string(p_.rows) + " x " + std::to_string(p_.cols) + " " + type +
                       " vs softmax in double, within (d(|x - m|) + d(max - min) + gamma(h) + 2^-23" +
                       (p_.dtype == ir::Scalar::BF16 ? " + 2^-8" : "") +
                       ") y + 2^-126, d(t) = 2^-22 + 2^-24 (2 t + |m|) (ex2.approx, f32 sums; samples/softmax.h)");
  if (!guard_ok) {
    c.ok = false;
    c.detail += "; the " + std::to_string(kGuardBytes) + " bytes past y's end were written";
  }
  return c;
}

}  // namespace

std::unique_ptr<Instance> make_softmax_instance(const SoftmaxPlan& p, uint64_t seed) {
  return std::make_unique<SoftmaxHost>(p, seed);
}

}  // namespace tj::samples
