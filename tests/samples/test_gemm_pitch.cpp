// GEMMs of any M, N and K: rows whose length is not a multiple of 16 bytes are stored
// with padding (lda, ldb, ldd), which TMA steps over and never reads or writes. What the
// host allocates, what cuBLAS is told, what the spec refuses, and that such shapes
// compile on the default path. No GPU needed (tests/gpu/test_gemm.cpp, "[pitch]", runs them).
#include <catch2/catch.hpp>

#include <algorithm>

#include "codegen/target.h"
#include "generators/host_matrix.h"
#include "generators/runner.h"
#include "samples/gemm.h"
#include "samples/gemm_reference.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;
using tj::ir::Scalar;

namespace {
std::vector<std::string> problems(const samples::Config& c) { return test::gemm_problems(c); }
}  // namespace

TEST_CASE("random matrices with padded rows: the same values and all-ones bytes in the padding", "[samples][gemm][pitch]") {
  for (Scalar t : {Scalar::BF16, Scalar::F16, Scalar::F32}) {
    INFO(tj::ir::scalar_name(t));
    const samples::HostMatrix dense = samples::random_matrix(t, 37, 29, 7, 0xA);
    const samples::HostMatrix padded = samples::random_matrix(t, 37, 29, 7, 0xA, 32);
    CHECK(padded.pitch == 32);
    CHECK(padded.size() == 37 * 32);
    CHECK(padded.bytes.size() == padded.size() * (t == Scalar::F32 ? 4 : 2));
    const size_t eb = t == Scalar::F32 ? 4 : 2;
    for (int64_t r = 0; r < 37; ++r) {
      for (int64_t c = 0; c < 29; ++c) REQUIRE(padded.at(r, c) == dense.at(r, c));
      for (int64_t c = 29; c < 32; ++c) {
        const uint8_t* b = &padded.bytes[padded.index(r, c) * eb];
        REQUIRE(std::all_of(b, b + eb, [](uint8_t x) { return x == 0xFF; }));
        REQUIRE(std::isnan(padded.at(r, c)));
      }
    }
    CHECK(dense.pitch == 29);
  }
}

TEST_CASE("host matrices: set rounds to the element type", "[samples][pitch]") {
  samples::HostMatrix b(ir::Scalar::BF16, 2, 3), h(ir::Scalar::F16, 2, 3), f(ir::Scalar::F32, 2, 3);
  for (samples::HostMatrix* m : {&b, &h, &f}) m->set(m->index(1, 2), 1.0 + 0x1p-12);
  CHECK(b.at(1, 2) == 1.0);  // bf16 keeps 8 bits: to nearest
  CHECK(h.at(1, 2) == 1.0);  // f16 keeps 11
  CHECK(f.at(1, 2) == 1.0 + 0x1p-12);
  b.set(b.index(0, 0), 3.0 + 0x1p-7);  // halfway between 3 and the next bf16 (3 + 2^-6): to even, 3
  CHECK(b.at(0, 0) == 3.0);
  CHECK(b.at(0, 1) == 0.0);  // the others untouched
}

TEST_CASE("gemm pitches: each row rounded up to 16 bytes unless the spec gives lda / ldb / ldd", "[samples][gemm][pitch]") {
  samples::GemmShape s;
  s.m = 1000, s.n = 1001, s.k = 999;
  CHECK(s.a_pitch() == 1000);  // bf16: multiples of 8
  CHECK(s.b_pitch() == 1000);  // tn: B's rows hold k
  CHECK(s.d_pitch() == 1008);
  s.out = Scalar::F32;
  CHECK(s.d_pitch() == 1004);  // f32: multiples of 4
  s.layout = samples::GemmLayout::NN;
  CHECK(s.b_pitch() == 1008);  // nn: B's rows hold n
  s.k = 4096, s.n = 4096, s.out = Scalar::BF16;
  CHECK(s.a_pitch() == 4096);  // already dense
  CHECK(s.d_pitch() == 4096);
  s.lda = 4160, s.ldb = 4104, s.ldd = 5000;
  CHECK(s.a_pitch() == 4160);
  CHECK(s.b_pitch() == 4104);
  CHECK(s.d_pitch() == 5000);
  // cuBLAS is told the same: its reference reads the same padded buffers.
  const rt::RowMajorGemm g = samples::blas_problem(s, Scalar::F32);
  CHECK(g.lda == 4160);
  CHECK(g.ldb == 4104);
  CHECK(g.ldd == 5000);
  // The spec's lda, ldb and ldd reach the shape.
  const samples::GemmShape from_spec = samples::gemm_shape(test::gemm_config({{"lda", 4160}, {"ldb", 4104}, {"ldd", 4160}}));
  CHECK(from_spec.a_pitch() == 4160);
  CHECK(from_spec.b_pitch() == 4104);
  CHECK(from_spec.d_pitch() == 4160);
}

TEST_CASE("gemm pitches: any m x n x k is accepted and a pitch too short or not a multiple of 16 bytes is refused by name",
          "[samples][gemm][pitch]") {
  for (auto [m, n, k] : {std::tuple{1000, 1001, 999}, {7, 9, 3}, {1, 1, 1}, {4097, 333, 77}}) {
    INFO(m << "x" << n << "x" << k);
    CHECK(problems(test::gemm_config({{"m", m}, {"n", n}, {"k", k}})).empty());
    CHECK(problems(test::gemm_config({{"m", m}, {"n", n}, {"k", k}, {"layout", 1}, {"out", 2}})).empty());
  }
  CHECK(problems(test::gemm_config({{"k", 1000}, {"lda", 999}})) ==
        std::vector<std::string>{"params.lda: lda = 999 is shorter than a row of A (1000 elements): use 1000 or more, or 0",
                                 "params.lda: lda = 999 puts A's rows 1998 bytes apart; TMA needs a multiple of 16 bytes: a multiple "
                                 "of 8, or 0"});
  CHECK(problems(test::gemm_config({{"k", 1000}, {"lda", 1004}})) ==
        std::vector<std::string>{"params.lda: lda = 1004 puts A's rows 2008 bytes apart; TMA needs a multiple of 16 bytes: a "
                                 "multiple of 8, or 0"});
  CHECK(problems(test::gemm_config({{"n", 1000}, {"layout", 1}, {"ldb", 992}})) ==
        std::vector<std::string>{"params.ldb: ldb = 992 is shorter than a row of B (1000 elements): use 1000 or more, or 0"});
  CHECK(problems(test::gemm_config({{"n", 1000}, {"out", 2}, {"ldd", 1002}})) ==
        std::vector<std::string>{"params.ldd: ldd = 1002 puts D's rows 4008 bytes apart; TMA needs a multiple of 16 bytes: a "
                                 "multiple of 4, or 0"});
}

TEST_CASE("gemm pitches: ragged shapes compile on the default path for an H200", "[samples][gemm][pitch]") {
  for (auto [m, n, k] : {std::tuple{1000, 1001, 999}, {257, 333, 77}, {3001, 2999, 3001}}) {
    INFO(m << "x" << n << "x" << k);
    samples::Config c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}, {"bn", 0}}, {2, 1, 1});
    std::optional<samples::Sample::DeviceChoice> d = test::gemm_sample().for_device(c, 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    REQUIRE(problems(d->config).empty());
    const std::string ptx = samples::compile_sample(test::gemm_sample(), d->config, codegen::Target::sm90a(), nullptr).ptx();
    CHECK(ptx.find("cp.async.bulk.tensor.2d") != std::string::npos);
  }
}
