// ---- f32 math -------------------------------------------------------------------
// Accurate forms, the DSL's default: CUDA's math library as NVRTC compiles it without
// fast-math options (sqrtf is sqrt.rn.f32, __frcp_rn is rcp.rn.f32, rsqrtf is
// rsqrt.approx.f32 without .ftz (2 ulp), the others are CUDA's few-ulp sequences).
TJ_DEVICE float exp2(float x) { return ::exp2f(x); }
TJ_DEVICE float exp(float x) { return ::expf(x); }
TJ_DEVICE float log2(float x) { return ::log2f(x); }
TJ_DEVICE float log(float x) { return ::logf(x); }
TJ_DEVICE float tanh(float x) { return ::tanhf(x); }
TJ_DEVICE float sin(float x) { return ::sinf(x); }
TJ_DEVICE float cos(float x) { return ::cosf(x); }
TJ_DEVICE float sqrt(float x) { return ::sqrtf(x); }
TJ_DEVICE float rsqrt(float x) { return ::rsqrtf(x); }
TJ_DEVICE float rcp(float x) { return ::__frcp_rn(x); }
TJ_DEVICE float fma(float a, float b, float c) { return ::fmaf(a, b, c); }
TJ_DEVICE float abs(float x) { return ::fabsf(x); }
// Negated as unsigned: the most negative integer stays itself (no signed overflow).
TJ_DEVICE i32 abs(i32 x) { return x < 0 ? (i32)(0u - (u32)x) : x; }
TJ_DEVICE i64 abs(i64 x) { return x < 0 ? (i64)(0ull - (u64)x) : x; }

// Fast forms (dsl approx::): one PTX .approx instruction, subnormals flushed to zero
// where PTX offers .ftz (tanh.approx has none).
#define TJ_APPROX(name, insn)                                \
  TJ_DEVICE float name(float x) {                            \
    float y;                                                 \
    asm(insn " %0, %1;" : "=f"(y) : "f"(x));                 \
    return y;                                                \
  }
TJ_APPROX(exp2_approx, "ex2.approx.ftz.f32")
TJ_APPROX(log2_approx, "lg2.approx.ftz.f32")
TJ_APPROX(tanh_approx, "tanh.approx.f32")
TJ_APPROX(sin_approx, "sin.approx.ftz.f32")
TJ_APPROX(cos_approx, "cos.approx.ftz.f32")
TJ_APPROX(sqrt_approx, "sqrt.approx.ftz.f32")
TJ_APPROX(rsqrt_approx, "rsqrt.approx.ftz.f32")
TJ_APPROX(rcp_approx, "rcp.approx.ftz.f32")
#undef TJ_APPROX
// e^x = 2^(x log2 e); ln x = log2(x) ln 2.
TJ_DEVICE float exp_approx(float x) { return exp2_approx(x * 1.44269504088896341f); }
TJ_DEVICE float log_approx(float x) { return log2_approx(x) * 0.693147180559945309f; }

// ---- packed conversions and pointers -----------------------------------------------
// Two f32 rounded to nearest into one packed pair, lo in lane x (the low half). PTX's
// cvt.rn.bf16x2.f32 d, a, b puts a in the upper half, so hi goes first.
template <class To>
TJ_DEVICE To cvt_pack(float lo, float hi);
template <>
TJ_DEVICE bf16x2 cvt_pack<bf16x2>(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return bitcast<bf16x2>(r);
}
template <>
TJ_DEVICE f16x2 cvt_pack<f16x2>(float lo, float hi) {
  u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return bitcast<f16x2>(r);
}
// A global pointer seen as elements of To (packed ones: vector loads and stores).
template <class To, class From>
TJ_DEVICE To* reinterpret(From* p) { return reinterpret_cast<To*>(p); }
