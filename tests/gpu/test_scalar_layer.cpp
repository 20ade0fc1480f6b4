// The scalar layer on the GPU against host references:
// - f32 math over a range of inputs per op. Accurate forms within 3 ulp of the
//   double-precision result rounded to f32 (CUDA's math API states at most 2 ulp for
//   exp2f/expf/tanhf/sinf/cosf/rsqrtf and 1 for log2f/logf; sqrtf, __frcp_rn and fmaf
//   are correctly rounded: 0 ulp). Fast forms within the PTX ISA's stated bounds plus
//   the f32 rounding of the result: ex2.approx 2 ulp; lg2.approx absolute 2^-22;
//   sin/cos.approx absolute 2^-20.9 on [-pi, pi]; tanh.approx relative 2^-10.987;
//   rcp.approx 1 ulp; rsqrt.approx relative 2^-22.9; sqrt.approx relative 2^-23.
//   approx::exp adds the roundings of x * log2(e) and of log2(e) in f32 (relative about
//   |x| * 1.5 * 2^-24 of the result; the test allows |x| * 2^-22, and 2^-21), approx::log
//   multiplies lg2's error by ln 2.
// - shuffles and warp reductions: exact (inputs are small integers held in f32).
// - packed loads/stores and cvt_pack: exact.
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "dsl/dsl.h"
#include "runtime/buffer.h"
#include "tests/gpu/gpu_fixture.h"
#include "tests/codegen/turn_kernels.h"

namespace {

using namespace tj;

constexpr unsigned kN = 4096;  // inputs per op

struct MathOp {
  const char* name;
  dsl::f32 (*dsl)(const dsl::f32&);
  double (*ref)(double);
  float lo, hi;  // the input range
  // Whether `got` is close enough to `ref` (the double-precision result) for input x.
  bool (*ok)(float got, double ref, float x);
};

double ulp_of(double ref) {
  const float r = std::fabs(static_cast<float>(ref));
  return std::nextafter(r, INFINITY) - r;
}
bool within_ulps(float got, double ref, double ulps) {
  return std::fabs(double(got) - double(static_cast<float>(ref))) <= ulps * ulp_of(ref);
}
bool within_rel(float got, double ref, double rel) {
  return std::fabs(double(got) - ref) <= rel * std::fabs(ref) + ulp_of(ref);
}
bool within_abs(float got, double ref, double abs_err) { return std::fabs(double(got) - ref) <= abs_err + ulp_of(ref); }

#define TJ_OP(name, dsl_expr, ref_expr, lo, hi, ok_expr)                                        \
  MathOp{name, [](const dsl::f32& x) -> dsl::f32 { return dsl_expr; }, [](double x) { return ref_expr; }, lo, hi, \
         [](float got, double ref, float x) -> bool { (void)x; return ok_expr; }}
const std::vector<MathOp> kOps = {
    TJ_OP("exp2", dsl::exp2(x), std::exp2(x), -60.0f, 60.0f, within_ulps(got, ref, 3)),
    TJ_OP("exp", dsl::exp(x), std::exp(x), -40.0f, 40.0f, within_ulps(got, ref, 3)),
    TJ_OP("log2", dsl::log2(x), std::log2(x), 1e-6f, 1e6f, within_ulps(got, ref, 3)),
    TJ_OP("log", dsl::log(x), std::log(x), 1e-6f, 1e6f, within_ulps(got, ref, 3)),
    TJ_OP("tanh", dsl::tanh(x), std::tanh(x), -8.0f, 8.0f, within_ulps(got, ref, 3)),
    TJ_OP("sin", dsl::sin(x), std::sin(x), -100.0f, 100.0f, within_ulps(got, ref, 3)),
    TJ_OP("cos", dsl::cos(x), std::cos(x), -100.0f, 100.0f, within_ulps(got, ref, 3)),
    TJ_OP("sqrt", dsl::sqrt(x), std::sqrt(x), 0.0f, 1e6f, within_ulps(got, ref, 0)),
    TJ_OP("rsqrt", dsl::rsqrt(x), 1.0 / std::sqrt(x), 1e-6f, 1e6f, within_ulps(got, ref, 3)),
    TJ_OP("rcp", dsl::rcp(x), 1.0 / x, 1e-3f, 1e3f, within_ulps(got, ref, 0)),
    TJ_OP("fma", dsl::fma(x, x, dsl::f32(-1.0f)), double(std::fma(float(x), float(x), -1.0f)), -4.0f, 4.0f,
          within_ulps(got, ref, 0)),
    TJ_OP("abs", dsl::abs(x), std::fabs(x), -10.0f, 10.0f, within_ulps(got, ref, 0)),
    TJ_OP("approx::exp2", dsl::approx::exp2(x), std::exp2(x), -60.0f, 60.0f, within_ulps(got, ref, 2)),
    TJ_OP("approx::exp", dsl::approx::exp(x), std::exp(x), -40.0f, 40.0f,
          within_rel(got, ref, std::ldexp(1.0, -21) + std::fabs(x) * std::ldexp(1.0, -22))),
    TJ_OP("approx::log2", dsl::approx::log2(x), std::log2(x), 1e-6f, 1e6f, within_abs(got, ref, std::ldexp(1.0, -22))),
    TJ_OP("approx::log", dsl::approx::log(x), std::log(x), 1e-6f, 1e6f,
          within_abs(got, ref, std::ldexp(1.0, -22) * 0.6931471805599453 + std::fabs(ref) * std::ldexp(1.0, -24))),
    TJ_OP("approx::tanh", dsl::approx::tanh(x), std::tanh(x), -8.0f, 8.0f, within_rel(got, ref, std::exp2(-10.987))),
    TJ_OP("approx::sin", dsl::approx::sin(x), std::sin(x), -3.14159f, 3.14159f, within_abs(got, ref, std::exp2(-20.9))),
    TJ_OP("approx::cos", dsl::approx::cos(x), std::cos(x), -3.14159f, 3.14159f, within_abs(got, ref, std::exp2(-20.9))),
    TJ_OP("approx::sqrt", dsl::approx::sqrt(x), std::sqrt(x), 1e-6f, 1e6f, within_rel(got, ref, std::ldexp(1.0, -23))),
    TJ_OP("approx::rsqrt", dsl::approx::rsqrt(x), 1.0 / std::sqrt(x), 1e-6f, 1e6f, within_rel(got, ref, std::exp2(-22.9))),
    TJ_OP("approx::rcp", dsl::approx::rcp(x), 1.0 / x, 1e-3f, 1e3f, within_ulps(got, ref, 1)),
};
#undef TJ_OP

// out[c * kN + i] = op_c(in[c * kN + i]).
ir::Kernel math_kernel() {
  using namespace tj::dsl;
  KernelBuilder k("scalar_math");
  k.threads(128);
  auto in = k.param<float*>("in");
  auto out = k.param<float*>("out");
  i32 i = block_idx_x() * 128 + thread_idx_x();
  for (size_t c = 0; c < kOps.size(); ++c) out[i + int(c * kN)] = kOps[c].dsl(in[i + int(c * kN)]);
  return k.build();
}

rt::Module load(const ir::Kernel& kern, const char* name) {
  codegen::Lowered l = codegen::lower(kern, gpu_test::target());
  rt::CompileResult c = rt::compile(samples::compile_request(l, gpu_test::target()), nullptr);
  return rt::Module::load(gpu_test::context(), c.cubin, name);
}

void run(const rt::Module& m, unsigned blocks, unsigned threads, rt::ArgPack& args) {
  rt::LaunchConfig lc;
  lc.grid_clusters = {blocks, 1, 1};
  lc.cluster = {1, 1, 1};
  lc.block = {threads, 1, 1};
  rt::launch(m, lc, args);
  rt::synchronize(m);
}

// Warp ops over 4 warps of small integers (held in f32 and i32, so every sum is exact).
constexpr unsigned kWarpOuts = 12;
ir::Kernel warp_kernel() {
  using namespace tj::dsl;
  KernelBuilder k("scalar_warp");
  k.threads(128);
  auto fin = k.param<float*>("fin");
  auto iin = k.param<int32_t*>("iin");
  auto fout = k.param<float*>("fout");
  auto iout = k.param<int32_t*>("iout");
  i32 t = thread_idx_x();
  auto x = var(fin[t], "x");
  auto n = var(iin[t], "n");
  auto at = [&](int slot) { return t + slot * 128; };
  fout[at(0)] = shfl_xor(x, 1);
  fout[at(1)] = shfl_up(x, 1);
  fout[at(2)] = shfl_down(x, 3);
  fout[at(3)] = shfl_idx(x, 5);
  fout[at(4)] = shfl_xor(x, 2, 0xffffffffu, 8);  // within groups of 8 lanes
  fout[at(5)] = warp_sum(x);
  fout[at(6)] = warp_max(x);
  fout[at(7)] = warp_min(x);
  iout[at(0)] = warp_sum(n);
  iout[at(1)] = warp_max(n);
  iout[at(2)] = warp_min(n);
  iout[at(3)] = bitcast<int32_t>(shfl_down(bitcast<uint32_t>(n), 1));
  // Only the low half of each warp runs these: the masks name exactly those lanes.
  if_(lane_id() < 16, [&] {
    fout[at(8)] = warp_sum(x, 0xffffu);
    iout[at(4)] = warp_max(n, 0xffffu);
  });
  return k.build();
}

}  // namespace

TEST_CASE("scalar layer math matches host references within the stated tolerances [gpu]", "[gpu][scalar]") {
  gpu_test::context().make_current();  // the buffers below come before any module load
  std::vector<float> in(kOps.size() * kN);
  std::mt19937 rng(7);
  for (size_t c = 0; c < kOps.size(); ++c) {
    const MathOp& op = kOps[c];
    // Half evenly spaced, half log-uniform (positive ranges) or uniform at random.
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (unsigned i = 0; i < kN; ++i) {
      double f = i < kN / 2 ? double(i) / (kN / 2 - 1) : u(rng);
      in[c * kN + i] = op.lo > 0 ? float(op.lo * std::pow(double(op.hi) / op.lo, f)) : float(op.lo + (op.hi - op.lo) * f);
    }
  }
  rt::DeviceBuffer din(in.size() * 4), dout(in.size() * 4);
  din.upload(in);
  dout.fill_u8(0xFF);
  rt::Module m = load(math_kernel(), "scalar_math");
  rt::ArgPack args;
  args.push(din.ptr()).push(dout.ptr());
  run(m, kN / 128, 128, args);
  std::vector<float> got = dout.download_as<float>();
  for (size_t c = 0; c < kOps.size(); ++c) {
    const MathOp& op = kOps[c];
    unsigned bad = 0;
    float worst_x = 0, worst_got = 0;
    for (unsigned i = 0; i < kN; ++i) {
      const float x = in[c * kN + i], g = got[c * kN + i];
      if (!op.ok(g, op.ref(x), x)) {
        if (!bad) worst_x = x, worst_got = g;
        ++bad;
      }
    }
    INFO(op.name << ": first failure at x = " << worst_x << ": got " << worst_got << ", want " << op.ref(worst_x));
    CHECK(bad == 0);
  }
}

TEST_CASE("warp shuffles and reductions are exact [gpu]", "[gpu][scalar]") {
  gpu_test::context().make_current();
  std::vector<float> fin(128);
  std::vector<int32_t> iin(128);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d(-1000, 1000);
  for (unsigned t = 0; t < 128; ++t) fin[t] = float(d(rng)), iin[t] = d(rng);
  rt::DeviceBuffer dfin(128 * 4), diin(128 * 4), dfout(kWarpOuts * 128 * 4), diout(kWarpOuts * 128 * 4);
  dfin.upload(fin);
  diin.upload(iin);
  dfout.fill_u8(0);
  diout.fill_u8(0);
  rt::Module m = load(warp_kernel(), "scalar_warp");
  rt::ArgPack args;
  args.push(dfin.ptr()).push(diin.ptr()).push(dfout.ptr()).push(diout.ptr());
  run(m, 1, 128, args);
  std::vector<float> fo = dfout.download_as<float>();
  std::vector<int32_t> io = diout.download_as<int32_t>();
  unsigned bad = 0;
  for (unsigned t = 0; t < 128; ++t) {
    const unsigned w = t / 32 * 32, l = t % 32;
    auto f = [&](unsigned lane) { return fin[w + lane]; };
    auto n = [&](unsigned lane) { return iin[w + lane]; };
    float fsum = 0, fmax = -INFINITY, fmin = INFINITY, fsum16 = 0;
    int32_t isum = 0, imax = INT32_MIN, imin = INT32_MAX, imax16 = INT32_MIN;
    for (unsigned j = 0; j < 32; ++j) {
      fsum += f(j), fmax = std::max(fmax, f(j)), fmin = std::min(fmin, f(j));
      isum += n(j), imax = std::max(imax, n(j)), imin = std::min(imin, n(j));
      if (j < 16) fsum16 += f(j), imax16 = std::max(imax16, n(j));
    }
    bad += fo[t] != f(l ^ 1);
    bad += fo[t + 128] != f(l >= 1 ? l - 1 : l);
    bad += fo[t + 256] != f(l + 3 < 32 ? l + 3 : l);
    bad += fo[t + 384] != f(5);
    bad += fo[t + 512] != f(l ^ 2);
    bad += fo[t + 640] != fsum;
    bad += fo[t + 768] != fmax;
    bad += fo[t + 896] != fmin;
    bad += io[t] != isum;
    bad += io[t + 128] != imax;
    bad += io[t + 256] != imin;
    bad += io[t + 384] != n(l + 1 < 32 ? l + 1 : l);
    if (l < 16) {
      bad += fo[t + 1024] != fsum16;
      bad += io[t + 512] != imax16;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("packed loads, stores and cvt_pack move the right bits [gpu]", "[gpu][scalar]") {
  using namespace tj::dsl;
  KernelBuilder k("scalar_packed");
  k.threads(128).min_blocks_per_sm(4);
  auto in = k.param<float*>("in");
  auto out = k.param<float*>("out");
  auto bits = k.param<uint32_t*>("bits");
  i32 t = thread_idx_x();
  auto v = var(in.as<f32x4_t>()[t], "v");
  out.as<f32x4_t>()[t] = pack(lane(v, 3), lane(v, 2), lane(v, 1), lane(v, 0));
  bits.as<bf16x2_t>()[t] = cvt_pack<bf16x2_t>(lane(v, 0), lane(v, 1));
  auto back = cvt_unpack(bits.as<bf16x2_t>()[t]);
  out.as<f32x2_t>()[t + 256] = pack(back[0], back[1]);
  rt::Module m = load(k.build(), "scalar_packed");
  std::vector<float> in_h(512);
  for (unsigned i = 0; i < 512; ++i) in_h[i] = 1.0f + float(i) / 3.0f;
  rt::DeviceBuffer din(512 * 4), dout(1024 * 4), dbits(128 * 4);
  din.upload(in_h);
  rt::ArgPack args;
  args.push(din.ptr()).push(dout.ptr()).push(dbits.ptr());
  run(m, 1, 128, args);
  std::vector<float> out_h = dout.download_as<float>();
  std::vector<uint32_t> bits_h = dbits.download_as<uint32_t>();
  // bf16 of x, rounded to nearest even, as its 16 bits.
  auto bf16_bits = [](float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  };
  auto from_bits = [](uint32_t b16) {
    uint32_t u = b16 << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  unsigned bad = 0;
  for (unsigned t = 0; t < 128; ++t) {
    for (unsigned j = 0; j < 4; ++j) bad += out_h[t * 4 + j] != in_h[t * 4 + 3 - j];
    const uint32_t lo = bf16_bits(in_h[t * 4]), hi = bf16_bits(in_h[t * 4 + 1]);
    bad += bits_h[t] != (lo | hi << 16);  // lo in lane x, the low half
    bad += out_h[512 + t * 2] != from_bits(lo);
    bad += out_h[512 + t * 2 + 1] != from_bits(hi);
  }
  CHECK(bad == 0);
}

TEST_CASE("turns: warpgroups take their turns in order [gpu]", "[gpu][turns]") {
  gpu_test::context().make_current();
  for (unsigned warpgroups : {2u, 3u, 4u}) {
    const int32_t rounds = 200;
    const size_t slots = size_t(warpgroups) * size_t(rounds);
    rt::DeviceBuffer counter(4), log(slots * 4);
    counter.fill_u8(0);
    log.fill_u8(0xff);
    rt::Module m = load(test::turn_log_kernel(warpgroups, rounds), "turn_log");
    rt::ArgPack args;
    args.push(counter.ptr()).push(log.ptr());
    run(m, 1, 128 * warpgroups, args);
    std::vector<int32_t> got = log.download_as<int32_t>();
    size_t out_of_order = 0;
    for (size_t i = 0; i < slots; ++i) out_of_order += got[i] != int32_t(i % warpgroups);
    INFO(warpgroups << " warpgroups: slot 0.. " << got[0] << " " << got[1] << " " << got[2] << " " << got[3]);
    CHECK(out_of_order == 0);
  }
}
