// How far a GEMM's output element may be from an f32 reference: a pure function, so the
// bound can be tested on its own and stated in every report.
#pragma once

#include "dsl/ir/types.h"

namespace tj::samples {

// The bound as reports state it.
inline constexpr const char* kGemmToleranceText = "ulp_out(|ref|) + 2^-20 * |alpha|*(|A||B|) + 2^-8 * |beta*C|";

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

}  // namespace tj::samples
