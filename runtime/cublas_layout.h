// How a row-major GEMM maps onto cuBLAS, which is column-major. Pure arithmetic on
// shapes: no library, no GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tj::rt {

enum class BlasType : uint8_t { BF16, F16, F32 };
const char* blas_type_name(BlasType t);  // "bf16", "f16", "f32"
unsigned blas_type_bytes(BlasType t);

// How B is stored: N x K row-major ("tn": K contiguous, like A) or K x N row-major ("nn").
enum class GemmLayout : uint8_t { TN, NN };
const char* gemm_layout_name(GemmLayout l);  // "tn", "nn"

// D (M x N, row-major) = alpha * A (M x K, row-major) * B + beta * D, with fp32 compute.
// D is both cuBLAS's C and its output: beta scales what D held before.
struct RowMajorGemm {
  int64_t m = 0, n = 0, k = 0;
  GemmLayout layout = GemmLayout::TN;
  BlasType in = BlasType::BF16;   // A and B
  BlasType out = BlasType::BF16;  // D
  float alpha = 1, beta = 0;
  // Elements between consecutive rows of A, B and D (D's also C's); 0: dense (k for A,
  // k or n for B, n for D).
  int64_t lda = 0, ldb = 0, ldd = 0;
  std::string str() const;  // "4096x4096x4096 tn bf16->bf16"
};

// The cublasGemmEx call that computes a RowMajorGemm. A row-major r x c matrix is, read
// column-major with leading dimension c, its c x r transpose. So cuBLAS computes
// D^T (N x M) = op(B)^T (N x K) * A^T (K x M): B is its first operand and A its second.
//   tn: B's buffer read column-major is B^T (K x N); op = transpose gives the N x K needed.
//   nn: B's buffer (K x N row-major) read column-major is B^T (N x K) already; op = none.
//   A's buffer read column-major is A^T (K x M): op = none.
struct ColumnMajorGemm {
  bool transpose_first = false;   // cublasGemmEx's transa: the op on B
  bool transpose_second = false;  // its transb: the op on A
  int64_t m = 0, n = 0, k = 0;    // cuBLAS's m, n, k: N, M, K
  int64_t ld_first = 0;           // lda: B's leading dimension (K for tn, N for nn)
  int64_t ld_second = 0;          // ldb: A's (K)
  int64_t ld_out = 0;             // ldc: D's (N)
};
ColumnMajorGemm column_major(const RowMajorGemm& g);

// What cublasGemmEx (and tilejit's cublasLtMatmul) cannot take, as sentences (empty when
// it can): a dimension below 1 or above 2^31 - 1, inputs other than bf16/f16, an output
// type cuBLAS does not pair with the inputs (bf16 in: bf16 or f32 out; f16 in: f16 or f32 out).
std::vector<std::string> gemm_problems(const RowMajorGemm& g);

}  // namespace tj::rt
