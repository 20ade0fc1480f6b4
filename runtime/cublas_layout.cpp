#include "runtime/cublas_layout.h"

#include <limits>
#include <tuple>

namespace tj::rt {

const char* blas_type_name(BlasType t) {
  switch (t) {
    case BlasType::BF16: return "bf16";
    case BlasType::F16: return "f16";
    case BlasType::F32: return "f32";
  }
  return "?";
}

unsigned blas_type_bytes(BlasType t) { return t == BlasType::F32 ? 4 : 2; }

const char* gemm_layout_name(GemmLayout l) { return l == GemmLayout::TN ? "tn" : "nn"; }

std::string RowMajorGemm::str() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + gemm_layout_name(layout) + " " +
         blas_type_name(in) + "->" + blas_type_name(out);
}

ColumnMajorGemm column_major(const RowMajorGemm& g) {
  ColumnMajorGemm c;
  c.transpose_first = g.layout == GemmLayout::TN;
  c.transpose_second = false;
  c.m = g.n;
  c.n = g.m;
  c.k = g.k;
  c.ld_first = g.ldb ? g.ldb : g.layout == GemmLayout::TN ? g.k : g.n;
  c.ld_second = g.lda ? g.lda : g.k;
  c.ld_out = g.ldd ? g.ldd : g.n;
  return c;
}

std::vector<std::string> gemm_problems(const RowMajorGemm& g) {
  std::vector<std::string> out;
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  for (auto [name, v] : {std::pair{"M", g.m}, std::pair{"N", g.n}, std::pair{"K", g.k}})
    if (v < 1 || v > kMax)
      out.push_back(std::string(name) + " = " + std::to_string(v) + " is outside cuBLAS's range 1..2^31-1");
  const int64_t b_row = g.layout == GemmLayout::TN ? g.k : g.n;
  for (auto [name, ld, row] : {std::tuple{"lda", g.lda, g.k}, std::tuple{"ldb", g.ldb, b_row}, std::tuple{"ldd", g.ldd, g.n}})
    if (ld != 0 && ld < row)
      out.push_back(std::string(name) + " = " + std::to_string(ld) + " is shorter than a row of " + std::to_string(row) + " elements");
  if (g.in == BlasType::F32) out.push_back("inputs must be bf16 or f16, not f32");
  const BlasType half = g.in;
  if (g.in != BlasType::F32 && g.out != BlasType::F32 && g.out != half)
    out.push_back(std::string(blas_type_name(g.in)) + " inputs pair with " + blas_type_name(half) +
                  " or f32 output in cuBLAS, not " + blas_type_name(g.out));
  return out;
}

}  // namespace tj::rt
