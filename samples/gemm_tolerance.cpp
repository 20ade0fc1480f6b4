#include "samples/gemm_tolerance.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dsl/ir/ir.h"

namespace tj::samples {

namespace {

struct Format {
  int fraction_bits;
  int min_exponent;  // of the smallest normal number
};

Format format_of(ir::Scalar t) {
  switch (t) {
    case ir::Scalar::BF16: return {7, -126};
    case ir::Scalar::F16: return {10, -14};
    case ir::Scalar::F32: return {23, -126};
    default: ir::internal_error("ulp: no floating-point format for " + std::string(ir::scalar_name(t)));
  }
}

}  // namespace

double ulp(ir::Scalar type, double x) {
  const Format f = format_of(type);
  int e = 0;
  std::frexp(std::fabs(x), &e);  // |x| = m * 2^e with m in [0.5, 1): 2^(e-1) <= |x|
  const int exponent = x == 0 ? f.min_exponent : std::max(e - 1, f.min_exponent);
  return std::ldexp(1.0, exponent - f.fraction_bits);
}

double gemm_tolerance(ir::Scalar out, double ref, double abs_product, double beta_c) {
  if (!std::isfinite(ref) || !std::isfinite(abs_product) || !std::isfinite(beta_c))
    return std::numeric_limits<double>::quiet_NaN();
  return ulp(out, ref) + 0x1p-20 * abs_product + 0x1p-8 * std::fabs(beta_c);
}

double gemm_act_slope(GemmAct a) { return a == GemmAct::None || a == GemmAct::Relu ? 1.0 : 1.13; }

double gemm_act_error(GemmAct a, double x) {
  // tanh.approx.f32: absolute error about 2^-10.99 (PTX ISA), scaled by x / 2 in gelu;
  // silu's ex2.approx and rcp.approx: a few ulp of f32, relative.
  if (a == GemmAct::Gelu) return std::abs(x) * 0.5 * std::ldexp(1.0, -10);
  if (a == GemmAct::Silu) return std::abs(x) * std::ldexp(1.0, -20);
  return 0;
}

double gemm_epilogue_tolerance(ir::Scalar out, const GemmEpilogue& e, double want, double x, double scale, double bias,
                               double abs_product, double residual) {
  const double slope = gemm_act_slope(e.act);
  double tol = ulp(out, want) + slope * (std::fabs(scale) * 0x1p-20 * abs_product + 0x1p-21 * (std::fabs(x) + std::fabs(bias))) +
               gemm_act_error(e.act, x);
  if (e.residual) tol += 0x1p-23 * (std::fabs(want - residual) + std::fabs(residual));
  return tol;
}

}  // namespace tj::samples
