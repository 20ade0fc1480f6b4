// The wgmma.mma_async instructions a kernel uses, as device functions written
// into its source. One m64nNk16 shape has N / 2 accumulator operands, so the
// wrappers are generated from the shape (a table of N, input type and B's
// major-ness) instead of all 64 variants sitting in the prelude.
#pragma once

#include <string>
#include <vector>

#include "dsl/ir/types.h"

namespace tj::codegen {

// The widest N one wgmma instruction computes; a wider accumulator is several.
inline constexpr unsigned kWgmmaMaxN = 256;

struct WgmmaShape {
  unsigned n = 0;                     // 8..256, a multiple of 8
  ir::Scalar in = ir::Scalar::BF16;   // BF16 or F16 (A and B alike), f32 accumulate
  bool b_mn_major = false;            // B read transposed (N contiguous)
  bool a_in_registers = false;        // A from four registers per thread (ldmatrix), not a descriptor
  bool operator<(const WgmmaShape& o) const {
    if (n != o.n) return n < o.n;
    if (in != o.in) return in < o.in;
    return b_mn_major != o.b_mn_major ? b_mn_major < o.b_mn_major : a_in_registers < o.a_in_registers;
  }
};

// Columns [first, first + n) of an accumulator, computed by one instruction.
struct WgmmaColumns {
  unsigned first = 0, n = 0;
};
// An accumulator `n` columns wide as instructions of at most kWgmmaMaxN
// columns, as even as `align` allows (8, or B's panel width when B is N-major:
// a descriptor starts on a panel). The accumulator's registers keep one layout
// whatever the split: columns 8g..8g+7 of an m64 block are registers 4g..4g+3.
std::vector<WgmmaColumns> wgmma_column_split(unsigned n, unsigned align);

// tj::wgmma_m64n256k16_f32_bf16_kk: "kk" when B is K-major, "kn" when N-major; "_rs"
// after it when A comes from registers. (float* d, u64 desc_a, u64 desc_b, u32 scale_d),
// or (float* d, const u32* a, u64 desc_b, u32 scale_d) for "_rs".
std::string wgmma_wrapper_name(const WgmmaShape& s);
// The device function (inside namespace tj).
std::string wgmma_wrapper(const WgmmaShape& s);

// tj::acc_fence_<regs>(float* d): one empty asm statement that reads and writes
// every accumulator register, so that the compiler keeps their uses after a
// wgmma wait (the MMA writes them asynchronously, behind its back).
std::string acc_fence_name(unsigned regs);
std::string acc_fence(unsigned regs);

}  // namespace tj::codegen
