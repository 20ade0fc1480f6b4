#include "codegen/mma/tcgen05_desc.h"

#include "dsl/ir/ir.h"

namespace tj::codegen::mma {
namespace {

std::string str(unsigned v) { return std::to_string(v); }

bool in_steps(unsigned n, unsigned lo, unsigned step) { return n >= lo && n <= 256 && n % step == 0; }

}  // namespace

std::string tcgen05_shape_problem(const Tcgen05Shape& s) {
  using ir::Scalar;
  if (s.a != s.b || (s.a != Scalar::BF16 && s.a != Scalar::F16))
    return "tcgen05.mma kind::f16 multiplies bf16 by bf16 or f16 by f16, got " + std::string(ir::scalar_name(s.a)) + " by " +
           std::string(ir::scalar_name(s.b));
  if (s.d != Scalar::F32 && s.d != Scalar::F16)
    return "tcgen05.mma kind::f16 accumulates in f32 or f16, got " + std::string(ir::scalar_name(s.d));
  const std::string shape = "M " + str(s.m) + ", N " + str(s.n);
  if (s.cta_group == 1) {
    if (s.m == 64 && in_steps(s.n, 8, 8)) return "";
    if (s.m == 128 && in_steps(s.n, 16, 16)) return "";
    return "tcgen05.mma.cta_group::1 has no " + shape + " shape: M 64 takes N 8..256 in steps of 8, M 128 N 16..256 in steps of 16";
  }
  if (s.cta_group == 2) {
    if (s.m == 128 && in_steps(s.n, 32, 32)) return "";
    if (s.m == 256 && in_steps(s.n, 16, 16)) return "";
    return "tcgen05.mma.cta_group::2 has no " + shape +
           " shape: M 128 (64 rows per CTA) takes N 32..256 in steps of 32, M 256 (128 per CTA) N 16..256 in steps of 16";
  }
  return "tcgen05.mma runs on cta_group 1 or 2, got " + str(s.cta_group);
}

uint32_t tcgen05_instr_desc(const Tcgen05Shape& s) {
  if (std::string p = tcgen05_shape_problem(s); !p.empty()) ir::internal_error("tcgen05_instr_desc: " + p);
  auto type = [](ir::Scalar t) { return t == ir::Scalar::BF16 ? 1u : 0u; };
  uint32_t d = 0;
  d |= (s.d == ir::Scalar::F32 ? 1u : 0u) << 4;
  d |= type(s.a) << 7;
  d |= type(s.b) << 10;
  d |= (s.a_major == ir::Major::MN ? 1u : 0u) << 15;
  d |= (s.b_major == ir::Major::MN ? 1u : 0u) << 16;
  d |= (s.n >> 3) << 17;
  d |= (s.m >> 4) << 24;
  return d;
}

uint64_t sm100_smem_desc_bits(ir::Swizzle swizzle, uint32_t leading_bytes, uint32_t stride_bytes) {
  if (leading_bytes % 16 != 0 || stride_bytes % 16 != 0 || leading_bytes >= (1u << 18) || stride_bytes >= (1u << 18))
    ir::internal_error("sm100_smem_desc_bits: byte offsets must be multiples of 16 below 2^18");
  uint64_t mode = 0;
  switch (swizzle) {
    case ir::Swizzle::None: mode = 0; break;
    case ir::Swizzle::B128: mode = 2; break;
    case ir::Swizzle::B64: mode = 4; break;
    case ir::Swizzle::B32: mode = 6; break;
  }
  uint64_t d = 0;
  d |= uint64_t(leading_bytes >> 4) << 16;
  d |= uint64_t(stride_bytes >> 4) << 32;
  d |= uint64_t(1) << 46;
  d |= mode << 61;
  return d;
}

unsigned tmem_columns(unsigned n) {
  if (n > 512) ir::internal_error("tmem_columns: " + str(n) + " columns; tensor memory has 512");
  unsigned c = 32;
  while (c < n) c *= 2;
  return c;
}

}  // namespace tj::codegen::mma
