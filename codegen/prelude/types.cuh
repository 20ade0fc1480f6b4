// ---- bf16 -------------------------------------------------------------------
struct bf16 {
  unsigned short bits;
};
TJ_DEVICE float to_f32(bf16 v) {
  float f;
  asm("mov.b32 %0, %1;" : "=f"(f) : "r"((u32)v.bits << 16));
  return f;
}
TJ_DEVICE bf16 to_bf16(float f) {
  bf16 v;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(v.bits) : "f"(f));
  return v;
}
// Integers round once, to the nearest bf16 (through a float they would round twice).
TJ_DEVICE bf16 to_bf16_s64(long long i) {
  bf16 v;
  asm("cvt.rn.bf16.s64 %0, %1;" : "=h"(v.bits) : "l"(i));
  return v;
}
TJ_DEVICE bf16 to_bf16_u64(unsigned long long i) {
  bf16 v;
  asm("cvt.rn.bf16.u64 %0, %1;" : "=h"(v.bits) : "l"(i));
  return v;
}

// ---- f16 --------------------------------------------------------------------
struct f16 {
  unsigned short bits;
};
TJ_DEVICE float to_f32(f16 v) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.bits));
  return f;
}
TJ_DEVICE f16 to_f16(float f) {
  f16 v;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(v.bits) : "f"(f));
  return v;
}
TJ_DEVICE f16 to_f16_s64(long long i) {
  f16 v;
  asm("cvt.rn.f16.s64 %0, %1;" : "=h"(v.bits) : "l"(i));
  return v;
}
TJ_DEVICE f16 to_f16_u64(unsigned long long i) {
  f16 v;
  asm("cvt.rn.f16.u64 %0, %1;" : "=h"(v.bits) : "l"(i));
  return v;
}

template <class T>
TJ_DEVICE T min_(T a, T b) { return b < a ? b : a; }
template <class T>
TJ_DEVICE T max_(T a, T b) { return a < b ? b : a; }

// ---- packed types: lane x in the low half, at the lowest address --------------
struct __align__(4) bf16x2 {
  bf16 x, y;
};
struct __align__(4) f16x2 {
  f16 x, y;
};
struct __align__(8) f32x2 {
  float x, y;
};
struct __align__(16) f32x4 {
  float x, y, z, w;
};

// The bits of `v` as a `To` of the same size.
template <class To, class From>
TJ_DEVICE To bitcast(From v) {
  static_assert(sizeof(To) == sizeof(From), "bitcast between types of one size");
  To t;
  memcpy(&t, &v, sizeof(To));
  return t;
}
