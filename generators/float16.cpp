#include "generators/float16.h"

#include <bit>

namespace tj::samples {

uint16_t to_bf16_bits(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN stays a (quiet) NaN
  u += 0x7fffu + ((u >> 16) & 1);  // ties to even; a carry into the exponent is the right answer
  return uint16_t(u >> 16);
}

float from_bf16_bits(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

uint16_t to_f16_bits(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00;   // NaN
  if (a >= 0x477ff000u) return sign | 0x7c00;  // 65520 and up round to inf (65504 is the largest)
  if (a <= 0x33000000u) return sign;           // up to 2^-25, half the smallest subnormal: zero (a tie goes even)
  const uint32_t exponent = a >> 23;           // biased by 127
  uint32_t mantissa = a & 0x7fffffu;
  uint32_t shift = 13, h;
  if (a < 0x38800000u) {  // below 2^-14: a subnormal, round(significand * 2^(exponent - 126))
    mantissa |= 0x800000u;
    shift = 126 - exponent;  // 14..24
    h = mantissa >> shift;
  } else {
    h = ((exponent - 112) << 10) | (mantissa >> 13);
  }
  const uint32_t rest = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1))) ++h;  // a carry into the exponent is right here too
  return uint16_t(sign | h);
}

float from_f16_bits(uint16_t bits) {
  const uint32_t sign = uint32_t(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float v = float(mantissa) * 0x1p-24f;
    return sign ? -v : v;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

}  // namespace tj::samples
