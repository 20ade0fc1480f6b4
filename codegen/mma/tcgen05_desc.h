// The two descriptors of a Blackwell tcgen05.mma (sm_100a), from what the tile layer
// knows at build time: the 32-bit instruction descriptor (operand and accumulator types,
// majors, M and N) and the constant bits of the 64-bit shared-memory matrix descriptor
// (version, swizzle, leading and stride byte offsets; the device adds the tile's address:
// sm100_smem_desc in codegen/prelude/sm100_tcgen05.cuh). The bit positions follow the
// PTX ISA's descriptor tables. Nothing here has run on a Blackwell GPU: the encodings are
// checked against those tables by tests/codegen/test_tcgen05.cpp, not on hardware.
#pragma once

#include <cstdint>
#include <string>

#include "dsl/ir/kernel.h"

namespace tj::codegen::mma {

// One tcgen05.mma.kind::f16: D (f32 or f16) (+)= A (M x K) x B (K x N), A and B bf16 or
// f16 (the same), K 16 per instruction; cta_group 2 spans a CTA pair (M counts both CTAs'
// rows).
struct Tcgen05Shape {
  ir::Scalar a = ir::Scalar::BF16, b = ir::Scalar::BF16, d = ir::Scalar::F32;
  unsigned m = 128, n = 256;
  ir::Major a_major = ir::Major::K, b_major = ir::Major::K;
  unsigned cta_group = 1;
};

// What the instruction cannot do with `s`, with the shapes it can; "" when it can.
// kind::f16, dense: cta_group 1 takes M 64 (N 8..256 by 8) or 128 (N 16..256 by 16);
// cta_group 2 takes M 128 (N 32..256 by 32) or 256 (N 16..256 by 16).
std::string tcgen05_shape_problem(const Tcgen05Shape& s);

// The instruction descriptor: D type bits 4-5 (f16 0, f32 1), A type 7-9 and B type 10-12
// (f16 0, bf16 1), A major bit 15 and B major bit 16 (1: MN-major), N >> 3 in bits 17-22,
// M >> 4 in bits 24-28; dense, no negation, no saturation. internal_error when
// tcgen05_shape_problem has something to say.
uint32_t tcgen05_instr_desc(const Tcgen05Shape& s);

// The shared-memory descriptor's constant bits: the leading and stride byte offsets
// (>> 4, bits 16-29 and 32-45), the version 1 (bits 46-47), base offset 0, and the swizzle
// in bits 61-63 (none 0, 128-byte 2, 64-byte 4, 32-byte 6). Offsets are multiples of 16
// below 2^18.
uint64_t sm100_smem_desc_bits(ir::Swizzle swizzle, uint32_t leading_bytes, uint32_t stride_bytes);

// Tensor-memory columns an accumulator of `n` f32 columns takes in one allocation: the
// power of two at least max(n, 32); internal_error above 512.
unsigned tmem_columns(unsigned n);

}  // namespace tj::codegen::mma
