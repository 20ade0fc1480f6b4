// The Blackwell tcgen05 layer as far as it can be checked without a Blackwell GPU: the
// host's descriptor encodings against the PTX ISA's tables, the shape rules, and the
// prelude's tensor-memory and tcgen05 wrappers compiled by NVRTC to an sm_100a cubin
// (ptxas accepts them; the PTX holds the instructions) and refused for sm_90a. Nothing
// here ran on Blackwell hardware.
#include <catch2/catch.hpp>

#include "codegen/mma/tcgen05_desc.h"
#include "codegen/prelude.h"
#include "runtime/compiler.h"
#include "runtime/error.h"
#include "tests/codegen/codegen_test_support.h"

using namespace tj;
using codegen::mma::Tcgen05Shape;
using ir::Major;
using ir::Scalar;

TEST_CASE("tcgen05 instruction descriptor: types, majors, M and N in the PTX ISA's bit positions", "[codegen][tcgen05]") {
  // bf16 x bf16 -> f32, 128 x 256, both K-major: D f32 (bit 4), A and B bf16 (bits 7, 10),
  // N >> 3 = 32 at bit 17, M >> 4 = 8 at bit 24.
  CHECK(codegen::mma::tcgen05_instr_desc(Tcgen05Shape{}) == 0x08400490u);
  // f16 x f16 -> f16, 64 x 8, A M-major: only the A-major bit, N >> 3 = 1 and M >> 4 = 4.
  Tcgen05Shape s{Scalar::F16, Scalar::F16, Scalar::F16, 64, 8, Major::MN, Major::K, 1};
  CHECK(codegen::mma::tcgen05_instr_desc(s) == ((1u << 15) | (1u << 17) | (4u << 24)));
  // The pair's 256-row MMA, B N-major.
  Tcgen05Shape pair{Scalar::BF16, Scalar::BF16, Scalar::F32, 256, 128, Major::K, Major::MN, 2};
  CHECK(codegen::mma::tcgen05_instr_desc(pair) == ((1u << 4) | (1u << 7) | (1u << 10) | (1u << 16) | (16u << 17) | (16u << 24)));
}

TEST_CASE("tcgen05 shapes: what each CTA group takes, and the refusals' text", "[codegen][tcgen05]") {
  auto problem = [](unsigned group, unsigned m, unsigned n) {
    return codegen::mma::tcgen05_shape_problem(Tcgen05Shape{Scalar::BF16, Scalar::BF16, Scalar::F32, m, n, Major::K, Major::K, group});
  };
  CHECK(problem(1, 64, 8).empty());
  CHECK(problem(1, 64, 256).empty());
  CHECK(problem(1, 128, 16).empty());
  CHECK(problem(1, 128, 256).empty());
  CHECK(problem(2, 128, 32).empty());
  CHECK(problem(2, 256, 256).empty());
  CHECK(problem(1, 128, 24) ==
        "tcgen05.mma.cta_group::1 has no M 128, N 24 shape: M 64 takes N 8..256 in steps of 8, M 128 N 16..256 in steps of 16");
  CHECK(problem(1, 256, 128).rfind("tcgen05.mma.cta_group::1 has no M 256, N 128 shape", 0) == 0);
  CHECK(problem(2, 128, 48).rfind("tcgen05.mma.cta_group::2 has no M 128, N 48 shape: M 128 (64 rows per CTA) takes N 32..256", 0) == 0);
  CHECK(problem(2, 256, 264).rfind("tcgen05.mma.cta_group::2 has no M 256, N 264 shape", 0) == 0);
  CHECK(problem(3, 128, 128) == "tcgen05.mma runs on cta_group 1 or 2, got 3");
  CHECK(codegen::mma::tcgen05_shape_problem(Tcgen05Shape{Scalar::BF16, Scalar::F16}) ==
        "tcgen05.mma kind::f16 multiplies bf16 by bf16 or f16 by f16, got bf16 by f16");
  CHECK(codegen::mma::tcgen05_shape_problem(Tcgen05Shape{Scalar::F32, Scalar::F32}) ==
        "tcgen05.mma kind::f16 multiplies bf16 by bf16 or f16 by f16, got f32 by f32");
  CHECK(codegen::mma::tcgen05_shape_problem(Tcgen05Shape{Scalar::BF16, Scalar::BF16, Scalar::BF16}) ==
        "tcgen05.mma kind::f16 accumulates in f32 or f16, got bf16");
}

TEST_CASE("sm_100 shared-memory descriptor bits, and tensor-memory columns", "[codegen][tcgen05]") {
  // 128-byte swizzle, leading 16 bytes, stride 1024 (8 rows of 128 bytes): version 1.
  const uint64_t d = codegen::mma::sm100_smem_desc_bits(ir::Swizzle::B128, 16, 1024);
  CHECK(((d >> 16) & 0x3FFF) == 1);
  CHECK(((d >> 32) & 0x3FFF) == 64);
  CHECK(((d >> 46) & 3) == 1);
  CHECK((d >> 61) == 2);
  CHECK((d & 0x3FFF) == 0);  // the start address is the device's (sm100_smem_desc)
  CHECK((codegen::mma::sm100_smem_desc_bits(ir::Swizzle::B64, 0, 512) >> 61) == 4);
  CHECK((codegen::mma::sm100_smem_desc_bits(ir::Swizzle::B32, 0, 256) >> 61) == 6);
  CHECK((codegen::mma::sm100_smem_desc_bits(ir::Swizzle::None, 128, 256) >> 61) == 0);
  CHECK(codegen::mma::tmem_columns(8) == 32);
  CHECK(codegen::mma::tmem_columns(32) == 32);
  CHECK(codegen::mma::tmem_columns(200) == 256);
  CHECK(codegen::mma::tmem_columns(512) == 512);
  CHECK_THROWS_AS(codegen::mma::tmem_columns(513), ir::InternalError);
}

namespace {

// One CTA: warp 0 allocates 256 columns; thread 0 issues four 128 x 256 x 16 MMAs from
// two 128-byte-swizzled tiles and commits to a barrier; every warp reads its 32 lanes
// back and stores them; warp 0 deallocates. And a CTA pair's alloc, MMA and multicast
// commit. The descriptors come in as parameters (the host computes them).
constexpr const char* kTcgen05Kernels = R"(#include "tilejit/prelude.cuh"
extern "C" __global__ void __launch_bounds__(128) tc_one(float* out, tj::u32 idesc, tj::u64 a_bits, tj::u64 b_bits) {
  __shared__ __align__(1024) unsigned char a[128 * 64 * 2];
  __shared__ __align__(1024) unsigned char b[256 * 64 * 2];
  __shared__ tj::u32 taddr;
  __shared__ tj::mbarrier done;
  const int warp = threadIdx.x / 32;
  if (warp == 0) {
    tj::tmem_alloc<1>(&taddr, 256);
    tj::tmem_relinquish<1>();
  }
  if (threadIdx.x == 0) {
    tj::mbar_init(&done, 1);
    tj::fence_mbarrier_init();
  }
  tj::tcgen05_fence_before_sync();
  __syncthreads();
  tj::tcgen05_fence_after_sync();
  const tj::u32 d = taddr;
  if (threadIdx.x == 0) {
    const tj::u64 ad = tj::sm100_smem_desc(a, a_bits), bd = tj::sm100_smem_desc(b, b_bits);
    for (int k = 0; k < 4; ++k) tj::tcgen05_mma_f16<1>(d, ad + 2 * k, bd + 2 * k, idesc, k > 0);
    tj::tcgen05_commit<1>(&done);
  }
  tj::mbar_wait(&done, 0);
  tj::tcgen05_fence_after_sync();
  float v[16];
  tj::tmem_ld_32x32b_x16(d + ((tj::u32)(warp * 32) << 16), v);
  tj::tcgen05_wait_ld();
  for (int i = 0; i < 16; ++i) out[(warp * 32 + threadIdx.x % 32) * 16 + i] = v[i];
  tj::tcgen05_fence_before_sync();
  __syncthreads();
  if (warp == 0) tj::tmem_dealloc<1>(d, 256);
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128) tc_pair(float* out, tj::u32 idesc, tj::u64 bits) {
  __shared__ __align__(1024) unsigned char a[128 * 64 * 2];
  __shared__ tj::u32 taddr;
  __shared__ tj::mbarrier done;
  if (threadIdx.x / 32 == 0) tj::tmem_alloc<2>(&taddr, 128);
  if (threadIdx.x == 0) tj::mbar_init(&done, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    const tj::u64 desc = tj::sm100_smem_desc(a, bits);
    tj::tcgen05_mma_f16<2>(taddr, desc, desc, idesc, false);
    tj::tcgen05_commit_multicast<2>(&done, 3);
  }
  tj::mbar_wait(&done, 0);
  float v[8];
  tj::tmem_ld_32x32b_x8(taddr, v);
  tj::tcgen05_wait_ld();
  out[threadIdx.x] = v[0] + v[7];
  __syncthreads();
  if (threadIdx.x / 32 == 0) {
    tj::tmem_relinquish<2>();
    tj::tmem_dealloc<2>(taddr, 128);
  }
}
)";

rt::CompileRequest request(const std::string& arch) {
  rt::CompileRequest req;
  req.kernel_name = "tc_one";
  req.source = kTcgen05Kernels;
  req.headers = {{codegen::kPreludeName, std::string(codegen::prelude_source())}};
  req.arch = arch;
  return req;
}

}  // namespace

TEST_CASE("the prelude's tensor-memory and tcgen05 wrappers assemble for sm_100a, and only there", "[codegen][tcgen05][ptx]") {
  const rt::CompileResult r = rt::compile(request("sm_100a"), nullptr);
  INFO(r.log);
  REQUIRE_FALSE(r.cubin.empty());
  const std::string& ptx = r.ptx;
  for (const char* want :
       {"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",
        "tcgen05.mma.cta_group::1.kind::f16", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
        "tcgen05.ld.sync.aligned.32x32b.x16.b32", "tcgen05.wait::ld.sync.aligned", "tcgen05.dealloc.cta_group::1.sync.aligned.b32",
        "tcgen05.fence::before_thread_sync", "tcgen05.fence::after_thread_sync",
        "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32", "tcgen05.mma.cta_group::2.kind::f16",
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64",
        "tcgen05.ld.sync.aligned.32x32b.x8.b32", "tcgen05.dealloc.cta_group::2.sync.aligned.b32"}) {
    INFO(want);
    CHECK(test::contains(ptx, want));
  }
  // sm_90a has no tcgen05: ptxas refuses the same source.
  try {
    const rt::CompileResult h = rt::compile(request("sm_90a"), nullptr);
    CHECK(h.cubin.empty());
  } catch (const rt::RuntimeError& e) {
    CHECK(e.kind() == rt::ErrorKind::Compile);
    CHECK(test::contains(e.what(), "tcgen05"));
  }
}
