// f32 math on DSL values: exp2, exp, log2, log, tanh, sin, cos, sqrt, rsqrt, rcp,
// fma, abs. The plain names are the ACCURATE forms (CUDA's math library: a few
// ulp at most; sqrt and rcp correctly rounded; rsqrt is CUDA's rsqrtf, which is
// rsqrt.approx.f32 without .ftz, 2 ulp). approx:: holds the fast forms, one PTX
// .approx instruction each. They take DSL values, so with `using namespace
// tj::dsl` exp2(x) on an f32 builds the DSL op while exp2(1.0f) on a host float
// stays the C library's (overload resolution prefers the exact host match).
#pragma once

#include <source_location>

#include "dsl/values.h"

namespace tj::dsl {

#define TJ_DSL_MATH(name, doc) \
  f32 name(const f32& x, std::source_location loc = std::source_location::current());
TJ_DSL_MATH(exp2, "2^x (exp2f)")
TJ_DSL_MATH(exp, "e^x (expf)")
TJ_DSL_MATH(log2, "log2 x (log2f)")
TJ_DSL_MATH(log, "ln x (logf)")
TJ_DSL_MATH(tanh, "tanh x (tanhf)")
TJ_DSL_MATH(sin, "sin x (sinf)")
TJ_DSL_MATH(cos, "cos x (cosf)")
TJ_DSL_MATH(sqrt, "sqrt x, correctly rounded (sqrt.rn.f32)")
TJ_DSL_MATH(rsqrt, "1 / sqrt x (rsqrtf: rsqrt.approx.f32, 2 ulp)")
TJ_DSL_MATH(rcp, "1 / x, correctly rounded (__frcp_rn: rcp.rn.f32)")

// Fast forms: ex2.approx.ftz.f32, lg2.approx.ftz.f32, tanh.approx.f32,
// sin.approx.ftz.f32, cos.approx.ftz.f32, sqrt.approx.ftz.f32,
// rsqrt.approx.ftz.f32, rcp.approx.ftz.f32; exp(x) = ex2.approx(x * log2 e) and
// log(x) = lg2.approx(x) * ln 2. Subnormal inputs and results flush to zero.
namespace approx {
TJ_DSL_MATH(exp2, "ex2.approx.ftz.f32")
TJ_DSL_MATH(exp, "ex2.approx.ftz.f32 of x * log2(e)")
TJ_DSL_MATH(log2, "lg2.approx.ftz.f32")
TJ_DSL_MATH(log, "lg2.approx.ftz.f32 * ln(2)")
TJ_DSL_MATH(tanh, "tanh.approx.f32")
TJ_DSL_MATH(sin, "sin.approx.ftz.f32")
TJ_DSL_MATH(cos, "cos.approx.ftz.f32")
TJ_DSL_MATH(sqrt, "sqrt.approx.ftz.f32")
TJ_DSL_MATH(rsqrt, "rsqrt.approx.ftz.f32")
TJ_DSL_MATH(rcp, "rcp.approx.ftz.f32")
}  // namespace approx
#undef TJ_DSL_MATH

// a * b + c with one rounding (fma.rn.f32).
f32 fma(const f32& a, const f32& b, const f32& c, std::source_location loc = std::source_location::current());
// |x| of an f32, i32 or i64 (the most negative integer stays itself).
f32 abs(const f32& x, std::source_location loc = std::source_location::current());
i32 abs(const i32& x, std::source_location loc = std::source_location::current());
i64 abs(const i64& x, std::source_location loc = std::source_location::current());

}  // namespace tj::dsl
