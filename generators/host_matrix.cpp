#include "generators/host_matrix.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "dsl/ir/ir.h"
#include "generators/float16.h"

namespace tj::samples {

namespace {

unsigned element_bytes(ir::Scalar t) {
  if (t == ir::Scalar::BF16 || t == ir::Scalar::F16) return 2;
  if (t == ir::Scalar::F32) return 4;
  ir::internal_error("HostMatrix holds bf16, f16 or f32, not " + std::string(ir::scalar_name(t)));
}

// splitmix64 of (seed, stream, index): a counter-based generator, so chunks can be
// filled in any order, on any number of threads, with the same result.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Two values uniform in [-1, 1): 24 random bits each, exact in float.
void uniform_pair(uint64_t key, uint64_t index, float& first, float& second) {
  const uint64_t r = mix(key ^ mix(index));
  first = float(r >> 40) * 0x1p-23f - 1.0f;
  second = float((r >> 8) & 0xffffff) * 0x1p-23f - 1.0f;
}

void store(HostMatrix& m, size_t i, float v) {
  switch (m.type) {
    case ir::Scalar::BF16: { const uint16_t b = to_bf16_bits(v); std::memcpy(&m.bytes[2 * i], &b, 2); return; }
    case ir::Scalar::F16: { const uint16_t b = to_f16_bits(v); std::memcpy(&m.bytes[2 * i], &b, 2); return; }
    default: std::memcpy(&m.bytes[4 * i], &v, 4); return;
  }
}

}  // namespace

HostMatrix::HostMatrix(ir::Scalar t, int64_t r, int64_t c, int64_t p) : type(t), rows(r), cols(c), pitch(p ? p : c) {
  if (pitch < cols)
    ir::internal_error("HostMatrix: a pitch of " + std::to_string(pitch) + " elements is shorter than a row of " + std::to_string(cols));
  bytes.assign(size() * element_bytes(t), 0);
}

double HostMatrix::at(size_t i) const {
  switch (type) {
    case ir::Scalar::BF16: { uint16_t b; std::memcpy(&b, &bytes[2 * i], 2); return from_bf16_bits(b); }
    case ir::Scalar::F16: { uint16_t b; std::memcpy(&b, &bytes[2 * i], 2); return from_f16_bits(b); }
    default: { float f; std::memcpy(&f, &bytes[4 * i], 4); return f; }
  }
}

void HostMatrix::set(size_t i, double v) { store(*this, i, float(v)); }

HostMatrix HostMatrix::absolute() const {
  HostMatrix out = *this;
  const size_t eb = element_bytes(type);
  for (size_t i = eb - 1; i < out.bytes.size(); i += eb) out.bytes[i] &= 0x7f;  // little-endian: the sign is in the last byte
  return out;
}

std::vector<float> HostMatrix::to_f32() const {
  std::vector<float> out(size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = float(at(i));
  return out;
}

HostMatrix random_matrix(ir::Scalar type, int64_t rows, int64_t cols, uint64_t seed, uint64_t stream, int64_t pitch) {
  HostMatrix m(type, rows, cols, pitch);
  if (m.pitch > cols) std::fill(m.bytes.begin(), m.bytes.end(), uint8_t(0xFF));
  const uint64_t key = mix(seed) ^ mix(~stream);
  // Element e in row-major order over rows x cols, wherever the pitch puts it.
  const size_t elements = size_t(rows) * size_t(cols);
  auto place = [&](size_t e) { return m.pitch == cols ? e : e / size_t(cols) * size_t(m.pitch) + e % size_t(cols); };
  const size_t pairs = (elements + 1) / 2;
  // 8192 x 8192 is 2^26 elements: spread over the cores, it stays well under a second.
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  const size_t chunk = (pairs + threads - 1) / threads;
  auto fill = [&](size_t begin, size_t end) {
    for (size_t p = begin; p < end; ++p) {
      float a, b;
      uniform_pair(key, p, a, b);
      store(m, place(2 * p), a);
      if (2 * p + 1 < elements) store(m, place(2 * p + 1), b);
    }
  };
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads && t * chunk < pairs; ++t)
    workers.emplace_back(fill, t * chunk, std::min(pairs, (t + 1) * chunk));
  fill(0, std::min(pairs, chunk));
  for (std::thread& w : workers) w.join();
  return m;
}

}  // namespace tj::samples
