// The GEMM sample's host side without a GPU: 16-bit float conversions, the error bound,
// the input matrices, the host reference element, and the checks on the kernel the host
// feeds.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>

#include "generators/compare.h"
#include "generators/float16.h"
#include "generators/host_matrix.h"
#include "runtime/error.h"
#include "samples/gemm_host.h"
#include "samples/gemm_reference.h"
#include "samples/gemm_tolerance.h"
#include "tests/samples/gemm_interface_kernel.h"

using namespace tj::samples;
using tj::ir::Scalar;

namespace {

// The bf16 nearest to f by exhaustive comparison in double, ties to the even pattern.
uint16_t nearest_bf16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint16_t down = uint16_t(u >> 16), up = uint16_t(down + 1);
  const double d_down = std::fabs(double(from_bf16_bits(down)) - f), d_up = std::fabs(double(from_bf16_bits(up)) - f);
  if (d_down != d_up) return d_down < d_up ? down : up;
  return (down & 1) ? up : down;
}

GemmShape shape(int64_t m, int64_t n, int64_t k, GemmLayout layout = GemmLayout::TN) {
  GemmShape s;
  s.m = m, s.n = n, s.k = k, s.layout = layout;
  return s;
}

}  // namespace

TEST_CASE("bf16 rounds to nearest even", "[samples][gemm]") {
  CHECK(to_bf16_bits(1.0f) == 0x3f80);
  CHECK(to_bf16_bits(1.0f + 0x1p-8f) == 0x3f80);        // a tie: to even (down)
  CHECK(to_bf16_bits(1.0f + 3 * 0x1p-8f) == 0x3f82);    // a tie: to even (up)
  CHECK(to_bf16_bits(-2.5f) == 0xc020);
  CHECK(to_bf16_bits(3.3895313892515355e38f) == 0x7f7f);  // the largest bf16
  CHECK(to_bf16_bits(INFINITY) == 0x7f80);
  CHECK(std::isnan(from_bf16_bits(to_bf16_bits(NAN))));
  for (uint64_t u = 0; u < 0x7f7f0000ull; u += 65521) {  // every sign, exponent and many mantissas
    const float f = std::bit_cast<float>(uint32_t(u));
    INFO(std::hex << u);
    REQUIRE(to_bf16_bits(f) == nearest_bf16(f));
    REQUIRE(to_bf16_bits(-f) == (nearest_bf16(f) | 0x8000));
  }
}

TEST_CASE("f16 rounds to nearest even, with subnormals and overflow", "[samples][gemm]") {
  CHECK(to_f16_bits(1.0f) == 0x3c00);
  CHECK(to_f16_bits(65504.0f) == 0x7bff);
  CHECK(to_f16_bits(65519.0f) == 0x7bff);
  CHECK(to_f16_bits(65520.0f) == 0x7c00);  // halfway to 65536 rounds to even: inf
  CHECK(to_f16_bits(0x1p-24f) == 0x0001);  // the smallest subnormal
  CHECK(to_f16_bits(0x1p-25f) == 0x0000);  // half of it: a tie, to even
  CHECK(to_f16_bits(0x1.8p-25f) == 0x0001);
  CHECK(to_f16_bits(0x1.ff8p-15f) == 0x03ff);  // the largest subnormal
  CHECK(to_f16_bits(0x1.ffcp-15f) == 0x0400);  // halfway above it: to even, the smallest normal
  CHECK(to_f16_bits(-0.0f) == 0x8000);
  CHECK(std::isnan(from_f16_bits(to_f16_bits(NAN))));
  CHECK(from_f16_bits(0x7c00) == INFINITY);
  CHECK(from_f16_bits(0x0001) == 0x1p-24f);
  CHECK(from_f16_bits(0xbc00) == -1.0f);
  // Every f16 decodes to a float that encodes back to it.
  for (uint32_t b = 0; b < 0x10000; ++b)
    if ((b & 0x7c00) != 0x7c00 || (b & 0x3ff) == 0) REQUIRE(to_f16_bits(from_f16_bits(uint16_t(b))) == b);
#ifdef __FLT16_MAX__
  // And the compiler's own conversion agrees on a spread of floats.
  for (uint64_t u = 0; u <= 0xffffffffull; u += 40009) {
    const float f = std::bit_cast<float>(uint32_t(u));
    if (std::isnan(f)) continue;
    const _Float16 h = static_cast<_Float16>(f);
    uint16_t want;
    std::memcpy(&want, &h, 2);
    INFO(std::hex << u);
    REQUIRE(to_f16_bits(f) == want);
  }
#endif
}

TEST_CASE("ulp of each output type", "[samples][gemm]") {
  CHECK(ulp(Scalar::BF16, 1.0) == 0x1p-7);
  CHECK(ulp(Scalar::BF16, 1.99) == 0x1p-7);
  CHECK(ulp(Scalar::BF16, 2.0) == 0x1p-6);
  CHECK(ulp(Scalar::BF16, -40.0) == 0x1p-2);
  CHECK(ulp(Scalar::BF16, 0.0) == 0x1p-133);
  CHECK(ulp(Scalar::F16, 1.0) == 0x1p-10);
  CHECK(ulp(Scalar::F16, 1000.0) == 0x1p-1);
  CHECK(ulp(Scalar::F16, 0x1p-20) == 0x1p-24);  // subnormal spacing
  CHECK(ulp(Scalar::F16, 0.0) == 0x1p-24);
  CHECK(ulp(Scalar::F32, 1.0) == 0x1p-23);
  CHECK(ulp(Scalar::F32, 0.75) == 0x1p-24);
  CHECK(ulp(Scalar::F32, 0.0) == 0x1p-149);
}

TEST_CASE("the GEMM bound adds output rounding, accumulation and the C term", "[samples][gemm]") {
  CHECK(gemm_tolerance(Scalar::BF16, 3.0, 0, 0) == 0x1p-6);
  CHECK(gemm_tolerance(Scalar::BF16, 3.0, 1024, 0) == 0x1p-6 + 0x1p-10);
  CHECK(gemm_tolerance(Scalar::F32, -3.0, 1024, 0.5) == 0x1p-22 + 0x1p-10 + 0x1p-9);
  CHECK(gemm_tolerance(Scalar::F16, 3.0, 0, -2.0) == 0x1p-9 + 0x1p-7);
  CHECK(std::isnan(gemm_tolerance(Scalar::BF16, INFINITY, 1, 0)));
  CHECK(std::isnan(gemm_tolerance(Scalar::BF16, 1, NAN, 0)));
  // The bound as a check uses it: inside passes, just outside, NaN or a non-finite reference fails.
  MismatchLog log;
  const double tol = gemm_tolerance(Scalar::BF16, 3.0, 1024, 0);
  log.compare_close(3.0 + tol, 3.0, tol, "inside");
  log.compare_close(3.0 - tol, 3.0, tol, "inside below");
  CHECK(log.result("bound").ok);
  log.compare_close(3.0 + 1.01 * tol, 3.0, tol, [] { return std::string("D[1, 2]"); });
  log.compare_close(NAN, 3.0, tol, [] { return std::string("D[1, 3]"); });
  log.compare_close(1.0, INFINITY, gemm_tolerance(Scalar::BF16, INFINITY, 1, 0), [] { return std::string("D[1, 4]"); });
  const Check c = log.result("bound");
  CHECK_FALSE(c.ok);
  CHECK_THAT(c.detail, Catch::StartsWith("bound: 3 of 5 differ; D[1, 2]: got 3.01676758, want 3 (tolerance 0.0166015625); "
                                         "D[1, 3]: got nan, want 3 (tolerance 0.0166015625); D[1, 4]: got 1, want inf (tolerance nan)"));
}

TEST_CASE("the fused epilogue's bound: slope, .approx error, and the residual's rounding", "[samples][gemm]") {
  GemmEpilogue e;
  e.bias = true;
  // x = ref * scale + bias = 2 * 1.5 + 1 = 4: the output's ulp at want, the product's error
  // through the scale, the f32 roundings of x.
  CHECK(gemm_epilogue_tolerance(Scalar::BF16, e, 4.0, 4.0, 1.5, 1.0, 1024, 0) == 0x1p-5 + 1.5 * 0x1p-10 + 0x1p-21 * 5);
  e.act = GemmAct::Gelu;  // grown by the slope, plus tanh.approx's error at x
  CHECK(gemm_epilogue_tolerance(Scalar::F32, e, 4.0, 4.0, 1.0, 1.0, 0, 0) == 0x1p-21 + 1.13 * 0x1p-21 * 5 + 4 * 0x1p-11);
  // The residual: want = act + R. act and R of 1024 cancelling to 1 keep the rounding of
  // their f32 sum in the bound (the output's ulp at 1 alone would not).
  e = GemmEpilogue{};
  e.residual = true;
  CHECK(gemm_epilogue_tolerance(Scalar::F32, e, 1.0, 1024.0, 1.0, 0.0, 0, -1023.0) ==
        0x1p-23 + 0x1p-21 * 1024 + 0x1p-23 * (1024 + 1023));
  e.residual = false;
  CHECK(gemm_epilogue_tolerance(Scalar::F32, e, 1.0, 1.0, 1.0, 0.0, 0, -1023.0) == 0x1p-23 + 0x1p-21);
  CHECK(gemm_epilogue_apply(e, 1.0, 1.0, 0.0, -1023.0) == 1.0);  // without residual, R is not added
  e.residual = true, e.act = GemmAct::Relu;
  CHECK(gemm_epilogue_apply(e, -2.0, 1.0, 0.0, 0.5) == 0.5);  // relu first, then + R
}

TEST_CASE("random matrices: uniform in [-1, 1], in the type, one per seed and stream", "[samples][gemm]") {
  for (Scalar t : {Scalar::BF16, Scalar::F16, Scalar::F32}) {
    INFO(tj::ir::scalar_name(t));
    const HostMatrix m = random_matrix(t, 37, 29, 7, 0xA);  // an odd count: the last pair is half used
    CHECK(m.size() == 37 * 29);
    CHECK(m.bytes.size() == m.size() * (t == Scalar::F32 ? 4 : 2));
    CHECK(random_matrix(t, 37, 29, 7, 0xA).bytes == m.bytes);
    CHECK(random_matrix(t, 37, 29, 7, 0xB).bytes != m.bytes);
    CHECK(random_matrix(t, 37, 29, 8, 0xA).bytes != m.bytes);
    double lo = 1, hi = -1, sum = 0;
    for (size_t i = 0; i < m.size(); ++i) {
      const double v = m.at(i);
      lo = std::min(lo, v), hi = std::max(hi, v), sum += v;
      if (t == Scalar::BF16) REQUIRE(double(from_bf16_bits(to_bf16_bits(float(v)))) == v);
      if (t == Scalar::F16) REQUIRE(double(from_f16_bits(to_f16_bits(float(v)))) == v);
    }
    CHECK(lo >= -1.0);
    CHECK(hi <= 1.0);
    CHECK(lo < -0.95);
    CHECK(hi > 0.95);
    CHECK(std::fabs(sum / double(m.size())) < 0.1);
    const HostMatrix a = m.absolute();
    const std::vector<float> f = m.to_f32();
    for (size_t i = 0; i < m.size(); ++i) {
      REQUIRE(a.at(i) == std::fabs(m.at(i)));
      REQUIRE(double(f[i]) == m.at(i));
    }
    CHECK(m.at(3, 4) == m.at(size_t(3 * 29 + 4)));
  }
}

TEST_CASE("the host reference element reads B by layout and adds beta*C", "[samples][gemm]") {
  GemmShape s = shape(5, 6, 7);
  const HostMatrix a = random_matrix(Scalar::BF16, 5, 7, 1, 0xA);
  const HostMatrix b_tn = random_matrix(Scalar::BF16, 6, 7, 1, 0xB);
  HostMatrix b_nn(Scalar::BF16, 7, 6);  // the same B stored K x N
  for (int64_t j = 0; j < 6; ++j)
    for (int64_t p = 0; p < 7; ++p) std::memcpy(&b_nn.bytes[size_t(p * 6 + j) * 2], &b_tn.bytes[size_t(j * 7 + p) * 2], 2);
  const HostMatrix c = random_matrix(Scalar::F32, 5, 6, 1, 0xC);
  GemmInputs in;
  in.a = &a, in.b = &b_tn;
  s.alpha = -2;
  for (int64_t r = 0; r < 5; ++r)
    for (int64_t col = 0; col < 6; ++col) {
      double sum = 0, abs_sum = 0;
      for (int64_t p = 0; p < 7; ++p) sum += a.at(r, p) * b_tn.at(col, p), abs_sum += std::fabs(a.at(r, p) * b_tn.at(col, p));
      const HostElement e = host_element(s, in, r, col);
      REQUIRE(e.value == -2 * sum);
      REQUIRE(e.abs_product == 2 * abs_sum);
      GemmShape nn = s;
      nn.layout = GemmLayout::NN;
      GemmInputs in_nn = in;
      in_nn.b = &b_nn;
      REQUIRE(host_element(nn, in_nn, r, col).value == e.value);
      GemmShape with_c = s;
      with_c.beta = 0.5;
      GemmInputs in_c = in;
      in_c.c = &c;
      REQUIRE(host_element(with_c, in_c, r, col).value == -2 * sum + 0.5 * c.at(r, col));
    }
}

TEST_CASE("the cuBLAS problem follows the GEMM shape", "[samples][gemm]") {
  GemmShape s = shape(128, 256, 64, GemmLayout::NN);
  s.in = Scalar::F16, s.out = Scalar::F16, s.alpha = 1.5, s.beta = -1;
  const tj::rt::RowMajorGemm g = blas_problem(s, Scalar::F32);
  CHECK(g.str() == "128x256x64 nn f16->f32");
  CHECK(g.alpha == 1.5f);
  CHECK(g.beta == -1.0f);
  CHECK(blas_problem(s, s.out).str() == "128x256x64 nn f16->f16");
}

TEST_CASE("the kernel the host feeds is checked against samples/gemm.h", "[samples][gemm]") {
  using test::gemm_interface_kernel;
  for (GemmLayout l : {GemmLayout::TN, GemmLayout::NN})
    for (auto [in, out] : {std::pair{Scalar::BF16, Scalar::BF16}, {Scalar::BF16, Scalar::F32}, {Scalar::F16, Scalar::F16}}) {
      GemmShape s = shape(4096, 4096, 4096, l);
      s.in = in, s.out = out;
      CHECK(gemm_kernel_problems(s, gemm_interface_kernel(in, out, l)).empty());
    }
  const GemmShape s = shape(4096, 4096, 4096);
  tj::ir::Kernel k = gemm_interface_kernel(Scalar::BF16, Scalar::BF16, GemmLayout::TN);
  std::swap(k.params[4], k.params[5]);
  CHECK(gemm_kernel_problems(s, k) ==
        std::vector<std::string>{"kernel 'gemm' parameter 4 is 'n' (i32); the host passes 'm' (i32) there",
                                 "kernel 'gemm' parameter 5 is 'm' (i32); the host passes 'n' (i32) there"});
  k = gemm_interface_kernel(Scalar::BF16, Scalar::BF16, GemmLayout::TN);
  k.params.resize(8);
  k.tensor_maps.pop_back();
  k.tensor_maps[1].dtype = Scalar::F16;
  k.tensor_maps[2].rank = 3;
  k.tensor_maps[2].box.push_back(1);
  CHECK(gemm_kernel_problems(s, k) ==
        std::vector<std::string>{"kernel 'gemm' has 8 parameters; the GEMM's are 11: A, B, D, C, m, n, k, alpha, beta, workspace, counters (the host passes all but the workspaces workspace and counters)",
                                 "kernel 'gemm' tensor map 'B' holds f16; the problem's inputs are bf16",
                                 "kernel 'gemm' tensor map 'D' is 3-D; the host encodes 2-D maps (innermost first)",
                                 "kernel 'gemm' declares no tensor map 'C'"});
  // Split-K's parameters: global pointers, and workspaces (the runtime binds them).
  k = gemm_interface_kernel(Scalar::BF16, Scalar::BF16, GemmLayout::TN);
  k.params[10].type = tj::ir::Type::of(Scalar::U32);
  CHECK(gemm_kernel_problems(s, k) ==
        std::vector<std::string>{"kernel 'gemm' parameter 10 is 'counters' (u32); the host passes 'counters' (global u32*) there"});
  k = gemm_interface_kernel(Scalar::BF16, Scalar::BF16, GemmLayout::TN);
  k.params[9].workspace.reset();
  CHECK(gemm_kernel_problems(s, k) ==
        std::vector<std::string>{"kernel 'gemm' parameter 9 'workspace' is not a workspace; the runtime must bind it (split-K's)"});
  k = gemm_interface_kernel(Scalar::BF16, Scalar::BF16, GemmLayout::TN);
  k.params.pop_back();
  k.tensor_maps.pop_back();
  GemmShape bad = shape(0, 4096, int64_t(1) << 31);
  bad.in = Scalar::F32, bad.out = Scalar::I32;
  CHECK(gemm_kernel_problems(bad, gemm_interface_kernel(Scalar::F32, Scalar::I32, GemmLayout::TN)) ==
        std::vector<std::string>{"m = 0: the kernel takes it as an i32 from 1 to 2^31 - 1",
                                 "k = 2147483648: the kernel takes it as an i32 from 1 to 2^31 - 1",
                                 "the inputs are f32; the GEMM takes bf16 or f16",
                                 "the output is i32; the GEMM writes bf16, f16 or f32"});
  // make_gemm_instance refuses before it allocates anything (no GPU needed to see it).
  try {
    make_gemm_instance(s, k, 1);
    FAIL("a mismatched kernel was accepted");
  } catch (const tj::rt::RuntimeError& e) {
    CHECK(e.kind() == tj::rt::ErrorKind::Usage);
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("gemm host: kernel 'gemm' has 10 parameters;"));
  }
}
