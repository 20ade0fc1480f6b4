// A row-major matrix on the host in a kernel's element type (bf16, f16 or f32), as the
// bytes the device gets: GEMM inputs are made here, outputs read back here.
#pragma once

#include <cstdint>
#include <vector>

#include "dsl/ir/types.h"

namespace tj::samples {

struct HostMatrix {
  ir::Scalar type = ir::Scalar::BF16;  // BF16, F16 or F32
  int64_t rows = 0, cols = 0;
  int64_t pitch = 0;                   // elements from one row's start to the next's (>= cols)
  std::vector<uint8_t> bytes;          // rows * pitch elements, row-major; each row's last pitch - cols are padding

  HostMatrix() = default;
  // Zeros, padding included; pitch 0: cols (dense). Other types, or a pitch below cols,
  // are an internal error.
  HostMatrix(ir::Scalar type, int64_t rows, int64_t cols, int64_t pitch = 0);
  size_t size() const { return size_t(rows) * size_t(pitch); }  // elements stored, padding included
  size_t index(int64_t row, int64_t col) const { return size_t(row) * size_t(pitch) + size_t(col); }
  double at(size_t i) const;  // the stored element i (row i / pitch, column i % pitch)
  double at(int64_t row, int64_t col) const { return at(index(row, col)); }
  void set(size_t i, double v);  // element i = v, rounded to the type (to nearest even)
  // Every element's magnitude (the sign bit cleared).
  HostMatrix absolute() const;
  // Every element as f32 (exact for all three types).
  std::vector<float> to_f32() const;
};

// Values uniform in [-1, 1], rounded to `type`. The same (seed, stream) gives the same
// matrix, whatever the pitch; different streams give independent ones (A, B and C of one
// seed). Padding (pitch > cols) holds all-ones bytes, a NaN in every type, so that a
// kernel that reads past a row's end shows in its results.
HostMatrix random_matrix(ir::Scalar type, int64_t rows, int64_t cols, uint64_t seed, uint64_t stream, int64_t pitch = 0);

}  // namespace tj::samples
