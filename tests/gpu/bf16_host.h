// bf16 on the host for the GPU tests' inputs and references: a float rounded to the
// nearest even bf16 (its 16 bits), and those bits back to the float they stand for.
#pragma once

#include <cstdint>
#include <cstring>

namespace tj::test {

inline uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
inline float from_bf16(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace tj::test
