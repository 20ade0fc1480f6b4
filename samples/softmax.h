// softmax: y = softmax(x) over each row of a rows x cols matrix (f32, or bf16 in and out
// computed in f32), numerically stable: the row's maximum m first, then
//   y_i = 2^(x_i log2(e) - m log2(e)) / sum_j 2^(x_j log2(e) - m log2(e)),
// the exponent one fma and one ex2.approx per element.
//
// A row is spread over `warps_per_row` warps (W): thread t of the row's 32 W threads holds
// vectors t, t + 32 W, t + 64 W, ... of the row (16-byte loads when cols allows), all in
// registers, so x is read once and y written once. The maximum and the sum are reduced in
// each thread, then across the warp with shuffles (shfl.sync.bfly), then, only when W > 1,
// across the row's warps through shared memory (one CTA barrier each). A CTA of `threads`
// threads holds threads / (32 W) rows; the grid is one CTA per such block of rows. Vectors
// past the row's end (cols not a multiple of 32 W vectors) are masked: their loads read the
// row's last vector and count as -inf, their stores are skipped. Rows past the last one
// (rows not a multiple of the CTA's rows) read the last row and store nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "dsl/ir/kernel.h"
#include "dsl/ir/types.h"
#include "generators/sample.h"

namespace tj::samples {

// What the automatic warps_per_row aims for: the fewest warps that leave each thread at
// most this many vectors (8 x 16 bytes: 32 f32 or 64 bf16 values).
inline constexpr unsigned kSoftmaxTargetVectors = 8;

// The problem and how the kernel covers it, derived from a config.
struct SoftmaxPlan {
  int64_t rows = 1, cols = 1;
  ir::Scalar dtype = ir::Scalar::F32;  // F32 or BF16
  unsigned threads = 128;
  unsigned warps_per_row = 1;  // W
  unsigned vec = 4;            // elements per vector access (f32: 4, 2, 1; bf16: 8, 4, 2, 1)

  unsigned elem_bytes() const { return dtype == ir::Scalar::BF16 ? 2 : 4; }
  unsigned row_threads() const { return 32 * warps_per_row; }
  unsigned rows_per_cta() const { return std::max(1u, threads / row_threads()); }
  int64_t vectors() const { return cols / vec; }  // per row; vec divides cols
  // Vectors each thread holds (the last may be past the row's end for some threads).
  unsigned vectors_per_thread() const { return unsigned((vectors() + row_threads() - 1) / row_threads()); }
  unsigned values_per_thread() const { return vectors_per_thread() * vec; }
  // The values a thread may hold without spilling: at most 128, and 32 of its registers
  // (65536 / threads) left for addresses and temporaries (1024 threads: 32 values; 512: 96).
  unsigned max_values_per_thread() const { return std::min(128u, 65536u / std::max(threads, 256u) - 32); }
  bool ragged() const { return vectors() % row_threads() != 0; }
  int64_t ctas() const { return (rows + rows_per_cta() - 1) / rows_per_cta(); }
  double bytes() const { return 2.0 * double(rows) * double(cols) * elem_bytes(); }  // x read + y written
};

// The plan of a config; warps_per_row 0 is decided here (kSoftmaxTargetVectors). The
// config must pass check_config except for the per-thread limit, which the plan reports.
SoftmaxPlan softmax_plan(const Config& c);

// The kernel. Parameters, in order: x (f32* or bf16*), y (the same type), i32 rows.
ir::Kernel build_softmax_kernel(const SoftmaxPlan& p);

// The relative bound of one output element, |y - y_exact| <= bound * y_exact + 2^-126, for
// element x of a row whose maximum is m and whose max - min is `spread` (values as stored):
//   d(|x - m|) + d(spread)     the element's exponential and, through the sum, the largest
//                              error among the sum's terms, where d(t) = 2^-22 + 2^-24 (2 t + |m|)
//                              (1 + 2^-20): ex2.approx is within 2 ulp (2^-22 relative) of 2^a,
//                              and a = fma(x, L, -(m L)) (L = log2 e rounded to f32, m L
//                              rounded, the fma rounded) is within 2^-24 L (2 |x - m| + |m|) of
//                              (x - m) log2 e to first order; 2^a turns that into ln 2 times as
//                              much relative error, and ln 2 log2 e = 1
//   + gamma(h)                 the f32 sum of positive terms, h = ceil(log2(values per thread))
//                              + 5 butterfly steps in the warp + log2 W across the row's warps
//   + 2^-23                    rcp.rn of the sum, and the product e * (1 / sum)
//   + 2^-8 for bf16 output     rounding to bf16 (8 significant bits)
// The absolute 2^-126: ex2.approx.ftz flushes results below 2^-126 to zero (and y <= 1).
double softmax_relative_bound(const SoftmaxPlan& p, double x, double m, double spread);
inline constexpr double kSoftmaxAbsoluteFloor = 0x1p-126;

class Softmax final : public Sample {
 public:
  std::string name() const override { return "softmax"; }
  std::string summary() const override {
    return "row softmax (f32 or bf16): each row in registers, max and sum by warp shuffles, across warps through shared memory";
  }
  std::vector<ParamSpec> params() const override;
  ir::Dim3 default_cluster() const override { return {1, 1, 1}; }  // runs without clusters
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
  // One CTA per block of rows_per_cta rows: the grid follows the problem.
  std::optional<ir::Dim3> problem_grid(const Config& c) const override;
};

// Device buffers, inputs and the check against softmax in double (samples/softmax_host.cpp).
std::unique_ptr<Instance> make_softmax_instance(const SoftmaxPlan& p, uint64_t seed);

}  // namespace tj::samples
