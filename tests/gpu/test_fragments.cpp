// Accumulators as values on the GPU: one block of attention per CTA (row max, an
// element map with a causal mask, row sum, P converted in registers into the P x V MMA,
// an epilogue function dividing by the row sum and adding a bias), against a host
// reference that rounds P to bf16 as the kernel does.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include <tilejit/tilejit.h>

#include "tests/codegen/fragment_kernels.h"
#include "tests/gpu/bf16_host.h"

namespace {

using tj::test::from_bf16;
using tj::test::to_bf16;

// out for `blocks` blocks of 64 rows: the kernel's arithmetic in double, P rounded to bf16.
std::vector<float> reference(const std::vector<uint16_t>& q, const std::vector<uint16_t>& k, const std::vector<uint16_t>& v,
                             const std::vector<float>& bias, unsigned blocks, bool causal, double (*f)(double)) {
  std::vector<float> out(size_t(blocks) * 64 * 64);
  for (unsigned b = 0; b < blocks; ++b)
    for (int r = 0; r < 64; ++r) {
      const size_t row = size_t(b) * 64 + r;
      double s[64], m = -INFINITY, l = 0;
      for (int c = 0; c < 64; ++c) {
        double acc = 0;
        for (int d = 0; d < 64; ++d) acc += double(from_bf16(q[row * 64 + d])) * from_bf16(k[(size_t(b) * 64 + c) * 64 + d]);
        s[c] = acc;
        m = std::max(m, acc);
      }
      float p[64];
      for (int c = 0; c < 64; ++c) {
        p[c] = causal && c > r ? 0.0f : float(f(s[c] - m));
        l += p[c];
      }
      for (int d = 0; d < 64; ++d) {
        double o = 0;
        for (int c = 0; c < 64; ++c) o += double(from_bf16(to_bf16(p[c]))) * from_bf16(v[(size_t(b) * 64 + c) * 64 + d]);
        out[row * 64 + d] = float(o / l + bias[d]);
      }
    }
  return out;
}

// l (the row sums of p) for every row, as the reference computes them.
std::vector<double> row_sums(const std::vector<uint16_t>& q, const std::vector<uint16_t>& k, unsigned blocks, bool causal,
                             double (*f)(double)) {
  std::vector<double> out(size_t(blocks) * 64);
  for (unsigned b = 0; b < blocks; ++b)
    for (int r = 0; r < 64; ++r) {
      const size_t row = size_t(b) * 64 + r;
      double s[64], m = -INFINITY;
      for (int c = 0; c < 64; ++c) {
        double acc = 0;
        for (int d = 0; d < 64; ++d) acc += double(from_bf16(q[row * 64 + d])) * from_bf16(k[(size_t(b) * 64 + c) * 64 + d]);
        m = std::max(m, s[c] = acc);
      }
      for (int c = 0; c < 64; ++c) out[row] += causal && c > r ? 0.0 : f(s[c] - m);
    }
  return out;
}

double linear(double x) { return 1.0 + x / 64; }  // x >= -30 or so: p stays well above 0
double softmax(double x) { return std::exp2(x * 0.18); }  // 0.18 ~ log2(e) / sqrt(64)

}  // namespace

TEST_CASE("fragments: a block of attention per CTA against a host reference [gpu]", "[gpu][fragments]") {
  const bool causal = GENERATE(true, false);
  const bool exp = GENERATE(false, true);  // f = 2^(x * 0.18) (approx::exp2), or 1 + x / 64
  CAPTURE(causal, exp);
  const unsigned blocks = 5;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<uint16_t> q(blocks * 64 * 64), k(q.size()), v(q.size());
  for (auto* t : {&q, &k, &v})
    for (uint16_t& x : *t) x = to_bf16(u(rng));
  std::vector<float> bias(64);
  for (float& b : bias) b = u(rng);

  tj::test::FragmentAttention a;
  a.causal = causal;
  a.store_l = true;
  tj::JitKernel f = tj::jit(a.build([&](const tj::dsl::f32& x) {
    return exp ? tj::dsl::approx::exp2(x * 0.18f) : tj::dsl::f32(1.0f) + x / 64.0f;
  }));
  auto upload = [&](const std::vector<uint16_t>& h) {
    tj::Tensor t({uint64_t(blocks) * 64, 64}, tj::DType::BF16);
    t.upload(h);
    return t;
  };
  tj::Tensor tq = upload(q), tk = upload(k), tv = upload(v);
  tj::Tensor tb = tj::Tensor::from_host<float>({64}, bias);
  tj::Tensor out = tj::Tensor::empty<float>({uint64_t(blocks) * 64, 64});
  out.fill_bytes(0xFF);
  tj::Tensor l_out = tj::Tensor::empty<float>({uint64_t(blocks) * 64});
  l_out.fill_bytes(0xFF);
  f.launch(blocks, tq, tk, tv, out, tb, l_out);
  f.synchronize();
  // store_rows: l of rows 0..47 of each block; rows 48..63 untouched (NaN).
  const std::vector<float> l_got = l_out.download<float>();
  const std::vector<double> l_want = row_sums(q, k, blocks, causal, exp ? softmax : linear);
  unsigned l_bad = 0;
  for (size_t r = 0; r < l_got.size(); ++r)
    if (r % 64 < 48 ? !(std::abs(l_got[r] - l_want[r]) <= 1e-3 * std::abs(l_want[r]) + 1e-4) : !std::isnan(l_got[r])) ++l_bad;
  CHECK(l_bad == 0);
  // S sums in f32 in another order than the reference, so a p near a bf16 rounding
  // boundary may round the other way: each such term moves out by up to 2^-8 p v / l
  // (ex2.approx adds 2 ulp). A wrong row, column or register shows as errors of order 0.1.
  const tj::Tolerance tol{1e-3, 1e-3};
  tj::Check check = tj::compare(out.download<float>(), reference(q, k, v, bias, blocks, causal, exp ? softmax : linear), tol,
                                "attention block");
  INFO(check.detail);
  CHECK(check.ok);
}
