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
  std::vector<uint8_t> bytes;          // rows * cols elements, row-major

  HostMatrix() = default;
  HostMatrix(ir::Scalar type, int64_t rows, int64_t cols);  // zeros; other types are an internal error
  size_t size() const { return size_t(rows) * size_t(cols); }
  double at(size_t i) const;
  double at(int64_t row, int64_t col) const { return at(size_t(row) * size_t(cols) + size_t(col)); }
  // Every element's magnitude (the sign bit cleared).
  HostMatrix absolute() const;
  // Every element as f32 (exact for all three types).
  std::vector<float> to_f32() const;
};

// Values uniform in [-1, 1], rounded to `type`. The same (seed, stream) gives the same
// matrix; different streams give independent ones (A, B and C of one seed).
HostMatrix random_matrix(ir::Scalar type, int64_t rows, int64_t cols, uint64_t seed, uint64_t stream);

}  // namespace tj::samples
