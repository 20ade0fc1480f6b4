// The scalar layer (dsl/math.h, packed.h, warp.h): which overload a call picks, the
// IR it builds, the CUDA it is emitted as, and the PTX NVRTC makes of it for sm_90a
// (and that it compiles for sm_100a).
#include <catch2/catch.hpp>

#include "tests/codegen/codegen_test_support.h"

#include <cmath>
#include <regex>
#include <type_traits>

#include "codegen/analysis/eval.h"
#include "codegen/analysis/uniformity.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"
#include "generators/runner.h"
#include "runtime/compiler.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

const ir::Intrinsic* intrinsic(const ir::Expr& e) { return e->as<ir::Intrinsic>(); }

// The PTX NVRTC makes of `k` for `t`.
std::string ptx_of(const ir::Kernel& k, const Target& t = Target::sm90a()) {
  codegen::Lowered l = codegen::lower(k, t);
  rt::CompileResult r = rt::compile(samples::compile_request(l, t), nullptr);
  REQUIRE(r.cubin.compare(0, 4, "\x7f" "ELF") == 0);
  return r.ptx;
}

// One f32 op applied to in[i], stored to out[i].
struct MathCase {
  const char* name;
  f32 (*fn)(const f32&);
  const char* cuda;  // the call in the generated code
};

ir::Kernel math_kernel(const std::vector<MathCase>& cases) {
  KernelBuilder k("math_ops");
  k.threads(32);
  auto in = k.param<float*>("in");
  auto out = k.param<float*>("out");
  i32 t = thread_idx_x();
  for (size_t c = 0; c < cases.size(); ++c) out[t + int(c) * 32] = cases[c].fn(in[t]);
  return k.build();
}

#define TJ_CASE(expr, cuda) MathCase{#expr, [](const f32& x) { return expr; }, cuda}
const std::vector<MathCase> kAccurate = {
    TJ_CASE(exp2(x), "tj::exp2("),   TJ_CASE(exp(x), "tj::exp("),     TJ_CASE(log2(x), "tj::log2("),
    TJ_CASE(log(x), "tj::log("),     TJ_CASE(tanh(x), "tj::tanh("),   TJ_CASE(sin(x), "tj::sin("),
    TJ_CASE(cos(x), "tj::cos("),     TJ_CASE(sqrt(x), "tj::sqrt("),   TJ_CASE(rsqrt(x), "tj::rsqrt("),
    TJ_CASE(rcp(x), "tj::rcp("),     TJ_CASE(fma(x, x, f32(1.0f)), "tj::fma("), TJ_CASE(abs(x), "tj::abs("),
};
const std::vector<MathCase> kApprox = {
    TJ_CASE(approx::exp2(x), "tj::exp2_approx("),   TJ_CASE(approx::exp(x), "tj::exp_approx("),
    TJ_CASE(approx::log2(x), "tj::log2_approx("),   TJ_CASE(approx::log(x), "tj::log_approx("),
    TJ_CASE(approx::tanh(x), "tj::tanh_approx("),   TJ_CASE(approx::sin(x), "tj::sin_approx("),
    TJ_CASE(approx::cos(x), "tj::cos_approx("),     TJ_CASE(approx::sqrt(x), "tj::sqrt_approx("),
    TJ_CASE(approx::rsqrt(x), "tj::rsqrt_approx("), TJ_CASE(approx::rcp(x), "tj::rcp_approx("),
};
#undef TJ_CASE

}  // namespace

TEST_CASE("scalar layer: exp2 and friends on DSL values are DSL ops, on host floats the C library's", "[codegen][scalar]") {
  KernelBuilder k("overloads");
  auto in = k.param<float*>("in");
  f32 x = in[0];
  auto v = var(x, "v");
  // The reported bug: exp2(f32) picked C's exp2 and failed to convert.
  static_assert(std::is_same_v<decltype(exp2(x)), f32>);
  static_assert(std::is_same_v<decltype(exp2(v)), f32>);
  static_assert(std::is_same_v<decltype(exp2(in[1])), f32>);
  static_assert(std::is_same_v<decltype(tanh(x * 2.0f)), f32>);
  static_assert(std::is_same_v<decltype(abs(i32(3))), i32>);
  CHECK(intrinsic(exp2(x).expr())->op == ir::IntrinsicOp::Exp2);
  CHECK(intrinsic(exp2(v).expr())->op == ir::IntrinsicOp::Exp2);
  CHECK(intrinsic(approx::exp2(in[1]).expr())->op == ir::IntrinsicOp::Exp2Approx);
  CHECK(intrinsic(abs(i64(-3)).expr())->type.scalar == ir::Scalar::I64);
  // Host arguments stay host math: evaluated now, no IR.
  static_assert(!std::is_same_v<decltype(exp2(1.0f)), f32>);
  CHECK(exp2(3.0f) == 8.0f);
  CHECK(std::abs(sqrt(2.0) - 1.4142135623730951) < 1e-15);
  CHECK(abs(-4) == 4);
  CHECK(fma(2.0, 3.0, 1.0) == 7.0);
}

TEST_CASE("scalar layer: math ops print as their DSL names", "[codegen][scalar]") {
  KernelBuilder k("printed");
  auto in = k.param<float*>("in");
  auto u = k.param<uint32_t*>("u");
  CHECK(ir::to_string(approx::exp2(in[0]).expr()) == "approx::exp2(in[0])");
  CHECK(ir::to_string(fma(in[0], in[1], f32(2.0f)).expr()) == "fma(in[0], in[1], 2f)");
  CHECK(ir::to_string(bitcast<uint32_t>(f32(in[0])).expr()) == "bitcast<u32>(in[0])");
  CHECK(ir::to_string(cvt_pack<bf16x2_t>(in[0], in[1]).expr()) == "cvt_pack<bf16x2>(in[0], in[1])");
  CHECK(ir::to_string(shfl_xor(u32(u[0]), 1).expr()) == "shfl_xor(u[0], 1, 4294967295u, 32)");
  CHECK(ir::to_string(warp_max(f32(in[0]), 0xffu).expr()) == "warp_max(in[0], 255u)");
  CHECK(ir::to_string(lane(pack(f32(in[0]), f32(1.0f)), 1).expr()) == "f32x2(in[0], 1f).y");
}

TEST_CASE("scalar layer: accurate math is CUDA's library, emitted through the prelude", "[codegen][scalar][nvrtc]") {
  ir::Kernel kern = math_kernel(kAccurate);
  const std::string cuda = codegen::lower(kern, Target::sm90a()).cuda;
  for (const MathCase& c : kAccurate) {
    INFO(c.name);
    CHECK(count(cuda, c.cuda) == 1);
  }
  const std::string ptx = ptx_of(kern);
  CHECK(contains(ptx, "sqrt.rn.f32"));      // sqrt: correctly rounded
  CHECK(contains(ptx, "rcp.rn.f32"));       // __frcp_rn
  CHECK(contains(ptx, "rsqrt.approx.f32"));  // rsqrtf: 2 ulp, no .ftz
  CHECK(contains(ptx, "fma.rn.f32"));
  CHECK(contains(ptx, "abs.f32"));
  // Not the fast forms' single instructions (CUDA's expf and tanhf use ex2.approx and
  // rcp.approx inside longer sequences).
  for (const char* fast : {"tanh.approx", "lg2.approx", "sin.approx", "cos.approx", "\tsqrt.approx", "rsqrt.approx.ftz"}) {
    INFO(fast);
    CHECK(!contains(ptx, fast));
  }
}

TEST_CASE("scalar layer: approx:: math is one PTX .approx instruction", "[codegen][scalar][nvrtc]") {
  ir::Kernel kern = math_kernel(kApprox);
  const std::string cuda = codegen::lower(kern, Target::sm90a()).cuda;
  for (const MathCase& c : kApprox) {
    INFO(c.name);
    CHECK(count(cuda, c.cuda) == 1);
  }
  const std::string ptx = ptx_of(kern);
  CHECK(count(ptx, "\tex2.approx.ftz.f32") == 2);  // exp2 and exp
  CHECK(count(ptx, "\tlg2.approx.ftz.f32") == 2);  // log2 and log
  for (const char* insn : {"\ttanh.approx.f32", "\tsin.approx.ftz.f32", "\tcos.approx.ftz.f32", "\tsqrt.approx.ftz.f32",
                           "\trsqrt.approx.ftz.f32", "\trcp.approx.ftz.f32"}) {
    INFO(insn);
    CHECK(count(ptx, insn) == 1);
  }
  CHECK(!contains(ptx, "sqrt.rn.f32"));
}

TEST_CASE("scalar layer: shuffles and warp reductions are shfl.sync and redux.sync", "[codegen][scalar][nvrtc]") {
  KernelBuilder k("warp_ops");
  k.threads(64);
  auto fi = k.param<float*>("fi");
  auto ii = k.param<int32_t*>("ii");
  auto ui = k.param<uint32_t*>("ui");
  i32 t = thread_idx_x();
  f32 x = fi[t];
  fi[t] = shfl_xor(x, 1) + shfl_up(x, 2, 0xffffffffu, 16) + shfl_down(x, 3) + shfl_idx(x, 0, 0xffffu, 16);
  fi[t + 64] = warp_sum(x) + warp_max(x, 0xffu) + warp_min(x);
  ii[t] = warp_sum(ii[t]) + warp_max(ii[t]) + warp_min(ii[t], 0xf0f0f0f0u);
  ui[t] = warp_sum(ui[t]) + warp_max(ui[t]) + shfl_xor(ui[t], 31);
  bf16x2 h = cvt_pack<bf16x2_t>(x, x + 1.0f);
  ui[t + 64] = bitcast<uint32_t>(shfl_down(h, 1));
  ir::Kernel kern = k.build();
  const std::string cuda = codegen::lower(kern, Target::sm90a()).cuda;
  CHECK(contains(cuda, "tj::shfl_xor(fi[(int)threadIdx.x], 1, 4294967295u, 32)"));
  CHECK(contains(cuda, "tj::shfl_up(fi[(int)threadIdx.x]"));
  CHECK(contains(cuda, ", 2, 4294967295u, 16)"));
  CHECK(contains(cuda, ", 0, 65535u, 16)"));
  CHECK(contains(cuda, "tj::warp_max(fi["));
  CHECK(contains(cuda, ", 255u)"));
  CHECK(contains(cuda, "tj::warp_min(ii["));
  CHECK(contains(cuda, "4042322160u)"));
  const std::string ptx = ptx_of(kern);
  for (const char* insn : {"shfl.sync.bfly.b32", "shfl.sync.up.b32", "shfl.sync.down.b32", "shfl.sync.idx.b32",
                           "redux.sync.add.s32", "redux.sync.max.s32", "redux.sync.min.s32", "redux.sync.add.u32",
                           "redux.sync.max.u32"}) {
    INFO(insn);
    CHECK(contains(ptx, insn));
  }
}

TEST_CASE("uniformity: a load from a buffer of uniform reads is per CTA at a uniform index, other loads per thread",
          "[codegen][scalar]") {
  KernelBuilder k("uniform_reads");
  ir::Kernel kern = k.build();
  kern.shared.push_back(ir::SharedBuffer{"answer", ir::Scalar::U32, 8, false, {}});
  kern.shared.back().uniform_reads = true;  // as the dynamic schedule's answer slots
  kern.shared.push_back(ir::SharedBuffer{"plain", ir::Scalar::U32, 8, false, {}});
  const codegen::LoopScope none;
  auto load = [](const char* buf, const ir::Expr& index) {
    return ir::Load::make(ir::SharedRef::make(buf, ir::Scalar::U32), index, {});
  };
  const ir::Expr one = i32(1).expr(), tid = thread_idx_x().expr(), cta = block_idx_x().expr();
  CHECK(codegen::uniformity(load("answer", one), kern, none) == codegen::Uniform::Cta);
  CHECK(codegen::uniformity(load("answer", cta), kern, none) == codegen::Uniform::Cta);
  CHECK(codegen::uniformity(load("answer", tid), kern, none) == codegen::Uniform::Thread);
  CHECK(codegen::uniformity(load("plain", one), kern, none) == codegen::Uniform::Thread);
}

TEST_CASE("scalar layer: shuffles and warp reductions are per thread and never evaluated on the host", "[codegen][scalar]") {
  KernelBuilder k("uniform");
  i32 c = 5;
  ir::Kernel kern = k.build();
  const codegen::LoopScope none;
  // exp2 of a constant is as uniform as the constant; a shuffle of it is not.
  CHECK(codegen::uniformity(abs(c).expr(), kern, none) == codegen::Uniform::Cluster);
  CHECK(codegen::uniformity(shfl_idx(c, 0).expr(), kern, none) == codegen::Uniform::Thread);
  CHECK(codegen::uniformity(warp_sum(c).expr(), kern, none) == codegen::Uniform::Thread);
  codegen::EvalEnv env;
  env.thread = ir::Dim3{0, 0, 0};
  CHECK(codegen::eval_int(c.expr(), env) == 5);
  CHECK_FALSE(codegen::eval_int(shfl_idx(c, 0).expr(), env).has_value());
  CHECK_FALSE(codegen::eval_int(warp_sum(c).expr(), env).has_value());
  CHECK_FALSE(codegen::eval_int(abs(i32(-5)).expr(), env).has_value());
}

TEST_CASE("scalar layer: packed types load and store 8 and 16 bytes at once", "[codegen][scalar][nvrtc]") {
  KernelBuilder k("packed_io");
  auto in = k.param<float*>("in");
  auto out = k.param<float*>("out");
  auto b = k.param<uint32_t*>("b");
  auto w = k.param<uint64_t*>("w");
  i32 t = thread_idx_x();
  // A packed load bound to a local is one access; its lanes are then registers.
  auto v = var(in.as<f32x4_t>()[t], "v");
  out.as<f32x4_t>()[t] = pack(lane(v, 3), lane(v, 2), lane(v, 1), lane(v, 0));
  auto p = var(in.as<f32x2_t>()[t + 512], "p");
  out.as<f32x2_t>()[t + 512] = pack(lane(p, 1), lane(p, 0));
  // bf16 pairs: converted from two f32, stored as one 4-byte word, read back.
  b.as<bf16x2_t>()[t] = cvt_pack<bf16x2_t>(lane(v, 0), lane(v, 1));
  auto back = cvt_unpack(b.as<bf16x2_t>()[t + 128]);
  out[t + 2048] = back[0] + back[1];
  b[t + 256] = bitcast<uint32_t>(cvt_pack<f16x2_t>(lane(p, 0), lane(p, 1)));
  w[t] = bitcast<uint64_t>(p);
  out[t + 4096] = lane(bitcast<f32x2_t>(w[t + 64]), 1) + bitcast<float>(b[t + 512] ^ 1u);
  ir::Kernel kern = k.build();
  const std::string cuda = codegen::lower(kern, Target::sm90a()).cuda;
  CHECK(contains(cuda, "tj::f32x4 v = tj::reinterpret<tj::f32x4>(in)[(int)threadIdx.x];"));
  CHECK(contains(cuda, "tj::reinterpret<tj::f32x4>(out)[(int)threadIdx.x] = tj::f32x4{v.w, v.z, v.y, v.x};"));
  CHECK(contains(cuda, "tj::reinterpret<tj::f32x2>(out)[((int)threadIdx.x + 512)] = tj::f32x2{p.y, p.x};"));
  CHECK(contains(cuda, "tj::cvt_pack<tj::bf16x2>("));
  CHECK(contains(cuda, "tj::cvt_pack<tj::f16x2>("));
  CHECK(contains(cuda, "tj::bitcast<unsigned long long>("));
  CHECK(contains(cuda, "tj::bitcast<tj::f32x2>("));
  CHECK(contains(cuda, "tj::bitcast<float>("));
  const std::string ptx = ptx_of(kern);
  CHECK(contains(ptx, "ld.global.v4.f32"));
  CHECK(contains(ptx, "st.global.v4.f32"));
  CHECK(contains(ptx, "ld.global.v2.f32"));
  CHECK(contains(ptx, "st.global.v2.f32"));
  CHECK(contains(ptx, "cvt.rn.bf16x2.f32"));
  CHECK(contains(ptx, "cvt.rn.f16x2.f32"));
}

TEST_CASE("scalar layer: cvt_pack puts lo in lane x although PTX's first source is the upper half", "[codegen][scalar][nvrtc]") {
  KernelBuilder k("pack_order");
  k.threads(32);
  auto in = k.param<float*>("in");
  auto out = k.param<uint32_t*>("out");
  out[0] = bitcast<uint32_t>(cvt_pack<bf16x2_t>(in[0], f32(2.0f)));
  const std::string ptx = ptx_of(k.build());
  // hi (the constant 2, 0f40000000) is the instruction's first source, lo (loaded) its second.
  std::smatch m;
  REQUIRE(std::regex_search(ptx, m, std::regex("cvt\\.rn\\.bf16x2\\.f32 %r[0-9]+, (%f[0-9]+), (%f[0-9]+);")));
  CHECK(contains(ptx, "mov.f32 \t" + m[1].str() + ", 0f40000000;"));
  CHECK(contains(ptx, "ld.global.f32 \t" + m[2].str() + ","));
}

TEST_CASE("scalar layer: min_blocks_per_sm is __launch_bounds__'s second argument", "[codegen][scalar][nvrtc]") {
  KernelBuilder k("bounded");
  k.threads(256).min_blocks_per_sm(3);
  auto out = k.param<float*>("out");
  out[thread_idx_x()] = 1.0f;
  ir::Kernel kern = k.build();
  CHECK(contains(codegen::lower(kern, Target::sm90a()).cuda, "__launch_bounds__(256, 3) bounded("));
  for (const Target& t : {Target::sm90a(), Target::sm100a()}) {
    INFO(t.arch);
    const std::string ptx = ptx_of(kern, t);
    CHECK(contains(ptx, ".maxntid 256"));  // sm_90a writes ".maxntid 256, 1, 1", sm_100a ".maxntid 256"
    CHECK(contains(ptx, ".minnctapersm 3"));
  }
  KernelBuilder plain("unbounded");
  auto o2 = plain.param<float*>("out");
  o2[thread_idx_x()] = 1.0f;
  CHECK(contains(codegen::lower(plain.build(), Target::sm90a()).cuda, "__launch_bounds__(128) unbounded("));
}

TEST_CASE("scalar layer: a kernel using every op compiles for sm_90a and sm_100a", "[codegen][scalar][nvrtc]") {
  KernelBuilder k("every_scalar_op");
  k.threads(128).min_blocks_per_sm(2);
  auto in = k.param<float*>("in");
  auto out = k.param<float*>("out");
  auto iv = k.param<int32_t*>("iv");
  i32 t = thread_idx_x();
  f32 x = in[t];
  f32 acc = exp2(x) + exp(x) + log2(x) + log(x) + tanh(x) + sin(x) + cos(x) + sqrt(x) + rsqrt(x) + rcp(x);
  acc = acc + approx::exp2(x) + approx::exp(x) + approx::log2(x) + approx::log(x) + approx::tanh(x) + approx::sin(x) +
        approx::cos(x) + approx::sqrt(x) + approx::rsqrt(x) + approx::rcp(x);
  acc = fma(acc, x, abs(x)) + cast<float>(abs(iv[t]) + cast<int32_t>(abs(cast<int64_t>(iv[t]))));
  acc = warp_sum(acc) + warp_max(shfl_xor(acc, 1)) + warp_min(shfl_up(acc, 1)) + shfl_down(acc, 2) + shfl_idx(acc, 3);
  iv[t] = warp_sum(iv[t]) + bitcast<int32_t>(acc);
  auto v = var(in.as<f32x4_t>()[t + 128]);
  out.as<f32x4_t>()[t] = pack(lane(v, 0) + acc, lane(v, 1), lane(v, 2), lane(v, 3));
  auto h = cvt_unpack(shfl_xor(cvt_pack<f16x2_t>(acc, x), 4));
  out[t + 1024] = h[0] * h[1];
  ir::Kernel kern = k.build();
  for (const Target& t2 : {Target::sm90a(), Target::sm100a()}) {
    INFO(t2.arch);
    const std::string ptx = ptx_of(kern, t2);
    CHECK(contains(ptx, ".target " + t2.arch));
    CHECK(contains(ptx, "ex2.approx.ftz.f32"));
    CHECK(contains(ptx, "tanh.approx.f32"));
    CHECK(contains(ptx, "shfl.sync.bfly.b32"));
    CHECK(contains(ptx, "redux.sync.add.s32"));
    CHECK(contains(ptx, "ld.global.v4.f32"));
    CHECK(contains(ptx, "cvt.rn.f16x2.f32"));
    CHECK(contains(ptx, ".minnctapersm 2"));
  }
}

TEST_CASE("scalar layer: every cast between the arithmetic types compiles, 16-bit floats and integers rounding once", "[codegen][scalar][nvrtc]") {
  KernelBuilder k("every_cast");
  k.threads(32);
  auto h = k.param<bf16*>("h");
  auto g = k.param<f16*>("g");
  auto f = k.param<float*>("f");
  auto i = k.param<int32_t*>("i");
  auto u = k.param<uint32_t*>("u");
  auto l = k.param<int64_t*>("l");
  auto ul = k.param<uint64_t*>("ul");
  // Every source into each 16-bit float, and the 16-bit floats into every other type.
  h[0] = cast<bf16>(g[0]), h[1] = cast<bf16>(f[0]), h[2] = cast<bf16>(i[0]), h[3] = cast<bf16>(u[0]);
  h[4] = cast<bf16>(l[0]), h[5] = cast<bf16>(ul[0]);
  g[1] = cast<f16>(h[8]), g[2] = cast<f16>(f[1]), g[3] = cast<f16>(i[1]), g[4] = cast<f16>(u[1]);
  g[5] = cast<f16>(l[1]), g[6] = cast<f16>(ul[1]);
  f[2] = cast<float>(h[9]) + cast<float>(g[9]);
  i[2] = cast<int32_t>(h[10]) + cast<int32_t>(g[10]);
  u[2] = cast<uint32_t>(h[11]) + cast<uint32_t>(g[11]);
  l[2] = cast<int64_t>(h[12]) + cast<int64_t>(g[12]);
  ul[2] = cast<uint64_t>(h[13]) + cast<uint64_t>(g[13]);
  ir::Kernel kern = k.build();
  const std::string cuda = codegen::lower(kern, Target::sm90a()).cuda;
  CHECK(contains(cuda, "h[0] = tj::to_bf16(tj::to_f32(g[0]));"));
  CHECK(contains(cuda, "g[1] = tj::to_f16(tj::to_f32(h[8]));"));
  CHECK(contains(cuda, "h[2] = tj::to_bf16_s64((long long)i[0]);"));
  CHECK(contains(cuda, "h[5] = tj::to_bf16_u64(ul[0]);"));
  for (const Target& t : {Target::sm90a(), Target::sm100a()}) {
    INFO(t.arch);
    const std::string ptx = ptx_of(kern, t);
    CHECK(contains(ptx, "cvt.rn.bf16.s64"));
    CHECK(contains(ptx, "cvt.rn.bf16.u64"));
    CHECK(contains(ptx, "cvt.rn.f16.s64"));
    CHECK(contains(ptx, "cvt.rn.f16.u64"));
  }
}
