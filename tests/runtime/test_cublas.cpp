// cuBLAS without a GPU: the row-major to column-major mapping of cublasGemmEx, checked
// by computing what cuBLAS would with those arguments against a row-major GEMM in
// double; the shapes it refuses; and opening the library (never linked).
#include <catch2/catch.hpp>

#include <algorithm>

#include "runtime/cublas.h"
#include "runtime/cublas_layout.h"
#include "runtime/error.h"
#include "tests/runtime/test_support.h"

using namespace tj::rt;

namespace {

// What cublasGemmEx computes with `c`'s arguments, column-major and with alpha 1, beta 0:
// out[i + j*ldc] = sum_p op(first)[i, p] * op(second)[p, j], where op(X)[i, p] is
// X[p + i*ld] when transposed and X[i + p*ld] when not.
std::vector<double> column_major_product(const ColumnMajorGemm& c, const std::vector<double>& first,
                                         const std::vector<double>& second) {
  std::vector<double> out(size_t(c.ld_out * c.n), 0.0);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const double x = c.transpose_first ? first[size_t(p + i * c.ld_first)] : first[size_t(i + p * c.ld_first)];
        const double y = c.transpose_second ? second[size_t(j + p * c.ld_second)] : second[size_t(p + j * c.ld_second)];
        sum += x * y;
      }
      out[size_t(i + j * c.ld_out)] = sum;
    }
  return out;
}

// D = A * B, all row-major, B as N x K (tn) or K x N (nn).
std::vector<double> row_major_product(const RowMajorGemm& g, const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d(size_t(g.m * g.n), 0.0);
  for (int64_t r = 0; r < g.m; ++r)
    for (int64_t col = 0; col < g.n; ++col)
      for (int64_t p = 0; p < g.k; ++p)
        d[size_t(r * g.n + col)] +=
            a[size_t(r * g.k + p)] * (g.layout == GemmLayout::TN ? b[size_t(col * g.k + p)] : b[size_t(p * g.n + col)]);
  return d;
}

// Small distinct integers, so that every product and sum is exact in double.
std::vector<double> numbers(size_t count, int salt) {
  std::vector<double> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = double(int((i * 7 + size_t(salt) * 13) % 11) - 5);
  return v;
}

}  // namespace

TEST_CASE("column_major() makes cublasGemmEx compute the row-major GEMM", "[runtime][cublas]") {
  for (GemmLayout layout : {GemmLayout::TN, GemmLayout::NN})
    for (auto [m, n, k] : {std::tuple{3, 5, 4}, {1, 7, 2}, {6, 1, 3}, {4, 4, 1}, {2, 3, 9}}) {
      RowMajorGemm g;
      g.m = m, g.n = n, g.k = k, g.layout = layout;
      INFO(g.str());
      const std::vector<double> a = numbers(size_t(m * k), 1), b = numbers(size_t(n * k), 2);
      const ColumnMajorGemm c = column_major(g);
      // B is cuBLAS's first operand and A its second; the column-major result is D row-major.
      CHECK(column_major_product(c, b, a) == row_major_product(g, a, b));
      CHECK(c.m == n);
      CHECK(c.n == m);
      CHECK(c.k == k);
      CHECK(c.ld_out == n);
    }
}

TEST_CASE("column_major() passes padded rows' pitches as cuBLAS's leading dimensions", "[runtime][cublas]") {
  RowMajorGemm g;
  g.m = 3, g.n = 5, g.k = 4;
  g.lda = 8, g.ldb = 16, g.ldd = 24;
  ColumnMajorGemm c = column_major(g);
  CHECK(c.ld_first == 16);  // B's
  CHECK(c.ld_second == 8);  // A's
  CHECK(c.ld_out == 24);
  CHECK(gemm_problems(g).empty());
  g.lda = 3, g.ldd = 4;  // rows of 4 (k) and 5 (n) elements
  CHECK(gemm_problems(g) == std::vector<std::string>{"lda = 3 is shorter than a row of 4 elements",
                                                    "ldd = 4 is shorter than a row of 5 elements"});
  g.lda = 0, g.ldd = 0, g.layout = GemmLayout::NN, g.ldb = 4;  // nn: B's rows hold n = 5
  CHECK(gemm_problems(g) == std::vector<std::string>{"ldb = 4 is shorter than a row of 5 elements"});
}

TEST_CASE("the mapping check tells the layouts apart", "[runtime][cublas]") {
  // The other layout's transposition gives a different answer on a non-square B: the
  // check above would catch a mapping that ignored the layout.
  RowMajorGemm g;
  g.m = 3, g.n = 5, g.k = 4, g.layout = GemmLayout::TN;
  const std::vector<double> a = numbers(12, 1), b = numbers(20, 2);
  ColumnMajorGemm wrong = column_major(g);
  wrong.transpose_first = false;
  wrong.ld_first = g.n;
  CHECK(column_major_product(wrong, b, a) != row_major_product(g, a, b));
  CHECK(column_major(g).transpose_first);
  CHECK(column_major(g).ld_first == 4);
  g.layout = GemmLayout::NN;
  CHECK_FALSE(column_major(g).transpose_first);
  CHECK(column_major(g).ld_first == 5);
  CHECK_FALSE(column_major(g).transpose_second);
  CHECK(column_major(g).ld_second == 4);
}

TEST_CASE("shapes and types cublasGemmEx cannot take are named", "[runtime][cublas]") {
  RowMajorGemm g;
  g.m = 4096, g.n = 4096, g.k = 4096;
  CHECK(gemm_problems(g).empty());
  CHECK(g.str() == "4096x4096x4096 tn bf16->bf16");
  g.out = BlasType::F32;
  CHECK(gemm_problems(g).empty());
  g.in = BlasType::F16;
  g.out = BlasType::F16;
  g.layout = GemmLayout::NN;
  CHECK(gemm_problems(g).empty());
  CHECK(g.str() == "4096x4096x4096 nn f16->f16");
  g.out = BlasType::BF16;
  CHECK(gemm_problems(g) == std::vector<std::string>{"f16 inputs pair with f16 or f32 output in cuBLAS, not bf16"});
  g = RowMajorGemm{};
  g.m = 0, g.n = 1, g.k = int64_t(1) << 31;
  CHECK(gemm_problems(g) == std::vector<std::string>{"M = 0 is outside cuBLAS's range 1..2^31-1",
                                                      "K = 2147483648 is outside cuBLAS's range 1..2^31-1"});
  g = RowMajorGemm{};
  g.m = g.n = g.k = 8;
  g.in = BlasType::F32;
  CHECK(gemm_problems(g) == std::vector<std::string>{"inputs must be bf16 or f16, not f32"});
}

TEST_CASE("cuBLAS is opened by name, TILEJIT_CUBLAS first", "[runtime][cublas]") {
  {
    test::ScopedEnv unset("TILEJIT_CUBLAS", std::nullopt);
    CHECK(cublas_library_names() == std::vector<std::string>{"libcublas.so.13", "libcublas.so.12",
                                                              "/usr/local/cuda/lib64/libcublas.so.13",
                                                              "/usr/local/cuda/lib64/libcublas.so.12"});
  }
  test::ScopedEnv forced("TILEJIT_CUBLAS", "/nonexistent/libcublas.so.99");
  CHECK(cublas_library_names() == std::vector<std::string>{"/nonexistent/libcublas.so.99"});
}

TEST_CASE("a missing cuBLAS is a NoDriver error that says what was tried", "[runtime][cublas]") {
  test::ScopedEnv forced("TILEJIT_CUBLAS", "/nonexistent/libcublas.so.99");
  try {
    find_cublas(cublas_library_names());
    FAIL("find_cublas found a library that does not exist");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::NoDriver);
    const std::string what = e.what();
    CHECK_THAT(what, Catch::StartsWith("cuBLAS is not available (dlopen(/nonexistent/libcublas.so.99) failed: "));
    CHECK_THAT(what, Catch::Contains("No such file or directory"));
    CHECK_THAT(what, Catch::EndsWith("set TILEJIT_CUBLAS to the library's path"));
  }
  // A library that opens but is not cuBLAS: every missing entry point is named.
  CHECK_THROWS_WITH(find_cublas({"libm.so.6"}),
                    Catch::Contains("libm.so.6 lacks cublasCreate_v2, cublasDestroy_v2, cublasSetStream_v2, cublasSetMathMode, "
                                    "cublasGemmEx, cublasGetStatusName, cublasGetStatusString, cublasGetProperty"));
}

TEST_CASE("the toolkit's cuBLAS opens with every entry point tilejit calls", "[runtime][cublas]") {
  test::ScopedEnv unset("TILEJIT_CUBLAS", std::nullopt);
  std::string found;
  try {
    found = find_cublas(cublas_library_names());
  } catch (const RuntimeError& e) {
    return test::report_skipped(std::string("no cuBLAS on this machine: ") + e.what());
  }
  const std::vector<std::string> names = cublas_library_names();
  CHECK(std::find(names.begin(), names.end(), found) != names.end());
}
