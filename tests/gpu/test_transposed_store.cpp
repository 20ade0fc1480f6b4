// store_accumulator_transposed on the GPU: accumulator columns stored as tile rows (through
// stmatrix.trans for bf16, one value at a time for f32 and odd column groups), with a
// per-row bias and C read at each element, against a host reference of the transposed product.
#include <catch2/catch.hpp>

#include <random>

#include <tilejit/tilejit.h>

#include "tests/codegen/transposed_kernels.h"
#include "tests/gpu/bf16_host.h"

using tj::test::from_bf16;
using tj::test::to_bf16;

TEST_CASE("fragments: store_accumulator_transposed against a host reference [gpu]", "[gpu][fragments]") {
  struct Case {
    unsigned acc_m, n, first, count;
    bool f32, reads_c;
  };
  const Case c = GENERATE(Case{64, 64, 0, 64, false, false},     // one stmatrix.trans block
                          Case{128, 128, 32, 64, false, true},   // two 64-row blocks, columns 32..95, C read
                          Case{64, 256, 0, 256, false, false},   // the widest accumulator
                          Case{64, 64, 8, 24, false, false},     // odd groups: one value per store
                          Case{128, 64, 0, 64, true, true},      // f32, C read
                          Case{64, 192, 64, 128, true, false});  // f32 from column 64
  CAPTURE(c.acc_m, c.n, c.first, c.count, c.f32, c.reads_c);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<uint16_t> a(size_t(c.acc_m) * 64), b(size_t(c.n) * 64);
  for (uint16_t& x : a) x = to_bf16(u(rng));
  for (uint16_t& x : b) x = to_bf16(u(rng));
  std::vector<float> bias(c.acc_m), cin(size_t(c.count) * c.acc_m);
  for (float& x : bias) x = u(rng);
  for (float& x : cin) x = c.f32 ? u(rng) : from_bf16(to_bf16(u(rng)));
  // want[col - first][row] = sum_k a[row][k] b[col][k] + bias[row] (+ 0.5 C there).
  std::vector<float> want(cin.size());
  for (unsigned col = c.first; col < c.first + c.count; ++col)
    for (unsigned row = 0; row < c.acc_m; ++row) {
      double s = bias[row];
      for (unsigned k = 0; k < 64; ++k) s += double(from_bf16(a[row * 64 + k])) * from_bf16(b[size_t(col) * 64 + k]);
      const size_t i = size_t(col - c.first) * c.acc_m + row;
      if (c.reads_c) s += 0.5 * cin[i];
      want[i] = float(s);
    }

  tj::test::TransposedStore t;
  t.acc_m = c.acc_m, t.n = c.n, t.first = c.first, t.count = c.count, t.reads_c = c.reads_c;
  t.out = c.f32 ? tj::ir::Scalar::F32 : tj::ir::Scalar::BF16;
  tj::JitKernel f = tj::jit(t.build());
  auto bf16_tensor = [](std::vector<uint64_t> shape, const std::vector<uint16_t>& h) {
    tj::Tensor x(std::move(shape), tj::DType::BF16);
    x.upload(h);
    return x;
  };
  tj::Tensor ta = bf16_tensor({c.acc_m, 64}, a), tb = bf16_tensor({c.n, 64}, b);
  tj::Tensor tbias = tj::Tensor::from_host<float>({c.acc_m}, bias);
  const std::vector<uint64_t> dshape{c.count, c.acc_m};
  tj::Tensor out(dshape, c.f32 ? tj::DType::F32 : tj::DType::BF16);
  out.fill_bytes(0xFF);
  std::vector<uint16_t> cin16(cin.size());
  for (size_t i = 0; i < cin.size(); ++i) cin16[i] = to_bf16(cin[i]);
  tj::Tensor tc = c.f32 ? tj::Tensor::from_host<float>(dshape, cin) : bf16_tensor(dshape, cin16);
  if (c.reads_c) f.launch(1, ta, tb, tc, out, tbias);
  else f.launch(1, ta, tb, out, tbias);
  f.synchronize();
  std::vector<float> got;
  if (c.f32) {
    got = out.download<float>();
  } else {
    for (uint16_t x : out.download<uint16_t>()) got.push_back(from_bf16(x));
  }
  // f32 sums of 64 products of bf16 in another order than the reference; bf16 out rounds
  // to 8 bits. A wrong row, column or register is off by the size of the values (~1).
  const tj::Tolerance tol = c.f32 ? tj::Tolerance{1e-4, 1e-5} : tj::Tolerance{1e-2, 8e-3};
  tj::Check check = tj::compare(got, want, tol, "transposed store");
  INFO(check.detail);
  CHECK(check.ok);
}
