// How far a GEMM's output element may be from an f32 reference: a pure function, so the
// bound can be tested on its own and stated in every report.
#pragma once

#include "dsl/ir/types.h"
#include "samples/gemm.h"

namespace tj::samples {

// The bound as reports state it.
inline constexpr const char* kGemmToleranceText = "ulp_out(|ref|) + 2^-20 * |alpha|*(|A||B|) + 2^-8 * |beta*C|";
inline constexpr const char* kGemmEpilogueToleranceText =
    "ulp_out(|want|) + slope * (|scale| * 2^-20 * |alpha|*(|A||B|) + 2^-21 * (|x| + |bias|)) + act_error(x)";

// The unit in the last place of `type` (BF16, F16 or F32) at magnitude |x|: 2^(e - p) for
// 2^e <= |x| < 2^(e+1), p the type's fraction bits (bf16 7, f16 10, f32 23); below the
// smallest normal number, the subnormal spacing.
double ulp(ir::Scalar type, double x);

// The bound for one element whose f32 reference is `ref`:
//   ulp_out(|ref|)              rounding to the output type (half an ulp), plus the slack
//                               of a value next to a power of two rounding into the binade above;
//   + 2^-20 * abs_product       abs_product = |alpha| * sum_k |A_ik||B_kj|: the kernel and
//                               cuBLAS both accumulate in f32, in different orders, and each
//                               sum's rounding error is a multiple of 2^-24 of this sum;
//   + 2^-8 * |beta_c|           beta_c = beta * C_ij: an epilogue may form beta * C in the
//                               output type (e.g. packed bf16 FMA) before adding it, one
//                               rounding of at most half a bf16 ulp, 2^-8 relative; f16 and
//                               f32 round more finely, so 2^-8 covers every output type.
// NaN (so that nothing compares within it) when an argument is not finite.
double gemm_tolerance(ir::Scalar out, double ref, double abs_product, double beta_c);

// The largest |slope| of the activation (how much it can grow an error in x) and its own
// error at x, relative to |x| and absolute (the .approx forms of tanh and exp).
double gemm_act_slope(GemmAct a);
double gemm_act_error(GemmAct a, double x);

// The bound for one element with a fused epilogue (GemmEpilogue): `want` is the epilogue
// applied in double to the f32 reference `ref` (column scale `scale`, bias `bias`,
// residual element `residual`); x = ref * scale + bias is the activation's input.
//   ulp_out(|want|)                          rounding to the output type, as above;
//   + slope * |scale| * 2^-20 * abs_product  the product's accumulation error, scaled by the
//                                            column scale and grown by the activation's slope;
//   + slope * 2^-21 * (|x| + |bias|)         the f32 roundings of x * scale + bias;
//   + act_error(x)                           the activation's .approx error;
//   + 2^-23 * (|want - residual| + |residual|)  with a residual: the f32 rounding of
//                                            act + R (R is exact: it is in D's type), and a
//                                            bound that stays honest when they cancel.
double gemm_epilogue_tolerance(ir::Scalar out, const GemmEpilogue& e, double want, double x, double scale, double bias,
                               double abs_product, double residual);

}  // namespace tj::samples
