// The reference a GEMM's output is checked against: cuBLAS on the same device inputs,
// and, to check cuBLAS's arguments in turn, a few elements in double on the host.
#pragma once

#include <vector>

#include "generators/host_matrix.h"
#include "runtime/buffer.h"
#include "runtime/cublas.h"
#include "samples/gemm.h"

namespace tj::samples {

// The problem as cuBLAS takes it, with D of type `out`.
rt::RowMajorGemm blas_problem(const GemmShape& s, ir::Scalar out);

// The host and device copies of a GEMM's inputs. C is null when beta is 0.
struct GemmInputs {
  const HostMatrix* a = nullptr;  // M x K
  const HostMatrix* b = nullptr;  // N x K (tn) or K x N (nn)
  const HostMatrix* c = nullptr;  // M x N, in the output type
  CUdeviceptr a_device = 0, b_device = 0;
};

// Per element of D, row-major with D's pitch (s.d_pitch()): the reference value and the
// scale of its rounding error.
struct GemmReference {
  std::vector<float> value;        // alpha * A * B + beta * C
  std::vector<float> abs_product;  // |alpha| * |A| * |B|
};

// Both by cuBLAS into f32 (|A| and |B| are uploaded for the second), synchronized.
GemmReference cublas_reference(rt::Cublas& blas, const GemmShape& s, const GemmInputs& in);

// One element of the same, in double from the host matrices.
struct HostElement {
  double value = 0, abs_product = 0;
};
HostElement host_element(const GemmShape& s, const GemmInputs& in, int64_t row, int64_t col);

}  // namespace tj::samples
