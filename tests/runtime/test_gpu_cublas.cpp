// cuBLAS through runtime/cublas.h on a GPU, against a row-major GEMM on the host, and
// launch_repeated. Built into the GPU binary (tests/gpu); without a driver each case
// says it was skipped.
#include <catch2/catch.hpp>

#include "generators/float16.h"
#include "runtime/buffer.h"
#include "runtime/compiler.h"
#include "runtime/cublas.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/launch.h"
#include "runtime/module.h"

using namespace tj::rt;

namespace {

#define TJ_REQUIRE_GPU()                                \
  do {                                                  \
    std::string why;                                    \
    if (!driver_available(&why)) {                      \
      WARN("skipped, no GPU: " << why);                 \
      return;                                           \
    }                                                   \
  } while (0)

// Multiples of 1/4 from -1 to 1: every product and every sum below is exact in f32.
float quarter(size_t i, int salt) { return float(int((i * 7 + size_t(salt) * 5) % 9) - 4) * 0.25f; }

std::vector<uint16_t> encode(const std::vector<float>& v, BlasType t) {
  std::vector<uint16_t> out;
  for (float f : v) out.push_back(t == BlasType::BF16 ? tj::samples::to_bf16_bits(f) : tj::samples::to_f16_bits(f));
  return out;
}

DeviceBuffer upload_halves(const std::vector<float>& v, BlasType t) {
  std::vector<uint16_t> bits = encode(v, t);
  DeviceBuffer d(bits.size() * 2);
  d.upload(bits);
  return d;
}

}  // namespace

TEST_CASE("cuBLAS computes the row-major GEMM for both layouts and input types", "[runtime][gpu][cublas]") {
  TJ_REQUIRE_GPU();
  Context ctx;
  Cublas blas;
  INFO("cuBLAS " << Cublas::version());
  for (BlasType in : {BlasType::BF16, BlasType::F16})
    for (GemmLayout layout : {GemmLayout::TN, GemmLayout::NN})
      for (auto [m, n, k] : {std::tuple{64, 48, 32}, {33, 17, 40}, {1, 130, 7}}) {
        RowMajorGemm g;
        g.m = m, g.n = n, g.k = k, g.layout = layout, g.in = in, g.out = BlasType::F32;
        g.alpha = 2, g.beta = 1;
        INFO(g.str());
        std::vector<float> a(size_t(m * k)), b(size_t(n * k)), d0(size_t(m * n));
        for (size_t i = 0; i < a.size(); ++i) a[i] = quarter(i, 1);
        for (size_t i = 0; i < b.size(); ++i) b[i] = quarter(i, 2);
        for (size_t i = 0; i < d0.size(); ++i) d0[i] = quarter(i, 3);
        DeviceBuffer da = upload_halves(a, in), db = upload_halves(b, in), dd(d0.size() * 4);
        dd.upload(d0);
        blas.gemm(g, da.ptr(), db.ptr(), dd.ptr(), nullptr);
        check(driver().cuCtxSynchronize(), "cuCtxSynchronize");
        std::vector<float> got = dd.download_as<float>();
        for (int r = 0; r < m; ++r)
          for (int c = 0; c < n; ++c) {
            float sum = 0;
            for (int p = 0; p < k; ++p) sum += a[size_t(r * k + p)] * (layout == GemmLayout::TN ? b[size_t(c * k + p)] : b[size_t(p * n + c)]);
            REQUIRE(got[size_t(r * n + c)] == 2 * sum + d0[size_t(r * n + c)]);
          }
      }
}

TEST_CASE("cuBLAS writes bf16 output rounded once from the f32 sum", "[runtime][gpu][cublas]") {
  TJ_REQUIRE_GPU();
  Context ctx;
  Cublas blas;
  RowMajorGemm g;
  g.m = 40, g.n = 24, g.k = 56, g.layout = GemmLayout::NN;
  std::vector<float> a(size_t(g.m * g.k)), b(size_t(g.n * g.k));
  for (size_t i = 0; i < a.size(); ++i) a[i] = quarter(i, 4) * 1.25f;  // sums need more than bf16's 8 bits
  for (size_t i = 0; i < b.size(); ++i) b[i] = quarter(i, 5);
  DeviceBuffer da = upload_halves(a, BlasType::BF16), db = upload_halves(b, BlasType::BF16), dd(size_t(g.m * g.n) * 2);
  blas.gemm(g, da.ptr(), db.ptr(), dd.ptr(), nullptr);
  check(driver().cuCtxSynchronize(), "cuCtxSynchronize");
  std::vector<uint16_t> got = dd.download_as<uint16_t>();
  for (int64_t r = 0; r < g.m; ++r)
    for (int64_t c = 0; c < g.n; ++c) {
      float sum = 0;
      for (int64_t p = 0; p < g.k; ++p) sum += tj::samples::from_bf16_bits(tj::samples::to_bf16_bits(a[size_t(r * g.k + p)])) * b[size_t(p * g.n + c)];
      REQUIRE(got[size_t(r * g.n + c)] == tj::samples::to_bf16_bits(sum));
    }
}

TEST_CASE("cuBLAS errors name the call and the status", "[runtime][gpu][cublas]") {
  TJ_REQUIRE_GPU();
  Context ctx;
  Cublas blas;
  RowMajorGemm g;
  g.m = g.n = g.k = 0;
  CHECK_THROWS_WITH(blas.gemm(g, 0, 0, 0, nullptr),
                    Catch::StartsWith("cublasGemmEx(0x0x0 tn bf16->bf16): M = 0 is outside cuBLAS's range"));
}

TEST_CASE("launch_repeated launches the given number of times", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Context ctx;
  CompileRequest request;
  request.kernel_name = "count_launches";
  request.source = R"(extern "C" __global__ void count_launches(unsigned* n) { if (threadIdx.x == 0) atomicAdd(n, 1u); })";
  request.arch = ctx.arch();
  Module module = Module::load(ctx, compile(request, nullptr).cubin, "count_launches", 1);
  DeviceBuffer counter(4);
  counter.fill_u8(0);
  LaunchConfig config;
  config.grid_clusters = {3, 1, 1};
  config.cluster = {1, 1, 1};
  config.block = {32, 1, 1};
  ArgPack args;
  args.push(counter.ptr());
  launch_repeated(module, config, args, 17);
  synchronize(module);
  CHECK(counter.download_as<uint32_t>() == std::vector<uint32_t>{3 * 17});
}
