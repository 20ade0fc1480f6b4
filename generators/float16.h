// Host conversions for the 16-bit floating-point types (bf16 and IEEE binary16), rounding
// to nearest even, as the GPU's cvt.rn does. Kernels' inputs are made with these and
// their outputs read back with them.
#pragma once

#include <cstdint>

namespace tj::samples {

uint16_t to_bf16_bits(float f);
float from_bf16_bits(uint16_t bits);
uint16_t to_f16_bits(float f);  // overflow gives inf, tiny values f16 subnormals
float from_f16_bits(uint16_t bits);

}  // namespace tj::samples
