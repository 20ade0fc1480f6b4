// cuBLASLt's fused epilogues through runtime/cublaslt.h on a GPU, against the same GEMM,
// bias and GELU in double on the host. Built into the GPU binary (tests/gpu); without a
// driver it says it was skipped.
#include <catch2/catch.hpp>
#include <cmath>

#include "generators/float16.h"
#include "runtime/buffer.h"
#include "runtime/cublaslt.h"
#include "runtime/device.h"
#include "runtime/driver.h"

using namespace tj::rt;
using tj::samples::from_bf16_bits;
using tj::samples::to_bf16_bits;

namespace {

// Values in [-1, 1) from a fixed sequence, rounded to bf16 so that host and GPU read the same.
std::vector<uint16_t> bf16_values(size_t count, uint32_t seed) {
  std::vector<uint16_t> v(count);
  for (size_t i = 0; i < count; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = to_bf16_bits(float(seed >> 8) / float(1u << 23) - 1.0f);
  }
  return v;
}

// cuBLASLt's GELU, the tanh form.
double gelu(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x))); }

}  // namespace

TEST_CASE("cuBLASLt fuses bias and GELU into a row-major GEMM", "[runtime][gpu][cublaslt]") {
  std::string why;
  if (!driver_available(&why)) {
    WARN("skipped, no GPU: " << why);
    return;
  }
  Context ctx;
  CublasLt lt;
  INFO("cuBLASLt " << CublasLt::version());
  RowMajorGemm g;
  g.m = 256, g.n = 384, g.k = 512, g.layout = GemmLayout::TN, g.in = BlasType::BF16, g.alpha = 0.5f;
  const std::vector<uint16_t> a = bf16_values(size_t(g.m * g.k), 1), b = bf16_values(size_t(g.n * g.k), 2);
  // Multiples of 1/8 in [-1, 1]: exact in bf16 too, so either bias type holds the same values.
  std::vector<float> bias(size_t(g.n));
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = float(int(i * 37 % 17) - 8) / 8.0f;
  DeviceBuffer da(a.size() * 2), db(b.size() * 2);
  da.upload(a);
  db.upload(b);
  // alpha * A * B^T (B is N x K) in double, before the epilogue.
  std::vector<double> product(size_t(g.m * g.n));
  for (int64_t r = 0; r < g.m; ++r)
    for (int64_t c = 0; c < g.n; ++c) {
      double sum = 0;
      for (int64_t p = 0; p < g.k; ++p)
        sum += double(from_bf16_bits(a[size_t(r * g.k + p)])) * from_bf16_bits(b[size_t(c * g.k + p)]);
      product[size_t(r * g.n + c)] = g.alpha * sum;
    }

  for (auto [e, out] : {std::pair{LtEpilogue::GeluBias, BlasType::F32},
                        {LtEpilogue::Bias, BlasType::F32},
                        {LtEpilogue::GeluBias, BlasType::BF16}}) {
    g.out = out;
    INFO(g.str() << ", " << lt_epilogue_name(e));
    // The bias has D's type (lt_bias_type).
    DeviceBuffer dbias(size_t(g.n) * blas_type_bytes(lt_bias_type(g)));
    if (lt_bias_type(g) == BlasType::F32) {
      dbias.upload(bias);
    } else {
      std::vector<uint16_t> bits;
      for (float f : bias) bits.push_back(to_bf16_bits(f));
      dbias.upload(bits);
    }
    DeviceBuffer dd(size_t(g.m * g.n) * blas_type_bytes(out));
    dd.fill_u8(0xff);
    lt.matmul(g, e, da.ptr(), db.ptr(), dd.ptr(), dbias.ptr(), nullptr);
    check(driver().cuCtxSynchronize(), "cuCtxSynchronize");
    std::vector<float> got;
    if (out == BlasType::F32) {
      got = dd.download_as<float>();
    } else {
      for (uint16_t bits : dd.download_as<uint16_t>()) got.push_back(from_bf16_bits(bits));
    }
    size_t bad = 0;
    for (int64_t r = 0; r < g.m; ++r)
      for (int64_t c = 0; c < g.n; ++c) {
        const double x = product[size_t(r * g.n + c)] + bias[size_t(c)];  // the bias is per column of D
        const double want = e == LtEpilogue::GeluBias ? gelu(x) : x;
        const double have = got[size_t(r * g.n + c)];
        if (!(std::fabs(have - want) <= 1e-2 * std::fabs(want) + 1e-2) && bad++ < 5)
          FAIL_CHECK("D[" << r << ", " << c << "]: got " << have << ", want " << want);
      }
    CHECK(bad == 0);
  }

  // A bias epilogue without a bias is refused before cuBLASLt is called.
  CHECK_THROWS_WITH(lt.matmul(g, LtEpilogue::ReluBias, da.ptr(), db.ptr(), da.ptr(), 0, nullptr),
                    "cublasLtMatmul(256x384x512 tn bf16->bf16, relu+bias): epilogue relu+bias needs a bias: a device "
                    "pointer to N = 384 bf16 values, not 0");
}
