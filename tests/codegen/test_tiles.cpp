// The tile layer: verifier diagnostics in DSL terms (exact text), the lowering
// of schedules, wgmma emission with descriptors derived from tile layouts, and
// what NVRTC makes of the GEMM sample for sm_90a (wgmma, multicast, setmaxnreg,
// no local-memory spills in any tested config).
#include <catch2/catch.hpp>

#include <optional>
#include <set>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/gemm_test_support.h"

#include "codegen/lower.h"
#include "codegen/prelude/sm90_wgmma_wrappers.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"
#include "generators/runner.h"
#include "runtime/compiler.h"
#include "samples/builtin.h"
#include "samples/gemm.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

std::string at(unsigned line) { return "test_tiles.cpp:" + std::to_string(line); }

// A one-warpgroup MMA kernel: acc (64 x n) = a (64 x 64) * b, with the given B layout and swizzle.
struct MmaKernel {
  unsigned threads = 128, acc_m = 64, acc_n = 128, b_rows = 128, b_cols = 64, regs = 0;
  ir::Major b_major = ir::Major::K;
  ir::Swizzle a_swizzle = ir::Swizzle::B128, b_swizzle = ir::Swizzle::B128;
  unsigned k_cols = 64;
  ir::Scalar b_elem = ir::Scalar::BF16;
  unsigned mma_line = 0, role_line = 0, a_line = 0, acc_line = 0, wait_line = 0;
  std::optional<KRange> k_range;  // the MMA over part of K (KRange), in two groups: that part, then the rest
  ir::Kernel build() {
    KernelBuilder k("mma_kernel");
    k.threads(threads);
    a_line = __LINE__ + 1;
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 64, k_cols, 2, ir::Major::K, a_swizzle);
    SharedTile b = k.shared_tile(b_elem, "b", b_rows, b_cols, 2, b_major, b_swizzle);
    acc_line = __LINE__ + 1;
    Accumulator acc = k.accumulator("acc", acc_m, acc_n);
    role_line = __LINE__ + 1;
    k.role("math", 1, regs, [&](i32) {
      if (k_range) {
        mma_line = __LINE__ + 1;
        mma(acc, stage(a, 1), stage(b, 1), boolean(false), *k_range);
        mma_wait(1);
        mma(acc, stage(a, 1), stage(b, 1), boolean(true), KRange{k_range->first + k_range->count, 0});
      } else {
        mma_line = __LINE__ + 1;
        mma(acc, stage(a, 1), stage(b, 1), boolean(false));
      }
      wait_line = __LINE__ + 1;
      mma_wait(0);
    });
    return k.build();
  }
};

}  // namespace

TEST_CASE("tiles: wgmma descriptors come from the tiles' layouts (K-major A and B)", "[codegen][tiles]") {
  MmaKernel m;
  codegen::Lowered l = codegen::lower(m.build(), Target::sm90a());
  INFO(l.cuda);
  // One generated wrapper for the one shape; four k16 steps of a 64-wide K.
  CHECK(count(l.cuda, "TJ_DEVICE void wgmma_m64n128k16_f32_bf16_kk(") == 1);
  CHECK(contains(l.cuda, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "));
  CHECK(count(l.cuda, "tj::wgmma_m64n128k16_f32_bf16_kk(&acc[0], ") == 4);
  // The tile's own descriptor (8-row groups 1024 bytes apart) plus the operand's offset in
  // 16-byte units: stage 1 of a 64x64 bf16 tile is 8192 bytes (512 units) in, of a 128x64
  // one 16384 (1024); a row of 128 bytes is 8 units.
  CHECK(contains(l.cuda, "tj::wgmma_desc(a, 16u, 1024u, 1u) + (tj::u64)(unsigned)((1) * 512 + (0) * 8);"));
  CHECK(contains(l.cuda, "tj::wgmma_desc(b, 16u, 1024u, 1u) + (tj::u64)(unsigned)((1) * 1024 + (0) * 8);"));
  // K steps advance 32 bytes (2 in descriptor units) inside the 128-byte swizzled row.
  CHECK(contains(l.cuda, "tj_desc_a + 6ull, tj_desc_b + 6ull, 1u);"));
  CHECK(contains(l.cuda, "tj_desc_a + 0ull, tj_desc_b + 0ull, tj_scale_d);"));
  CHECK(contains(l.cuda, "const tj::u32 tj_scale_d = (false) ? 1u : 0u;"));
  CHECK(contains(l.cuda, "tj::wgmma_commit();"));
  CHECK(contains(l.cuda, "tj::wgmma_wait<0>();"));
  CHECK(contains(l.cuda, "float acc[64] = {};"));
  CHECK(contains(l.cuda, "__launch_bounds__(128, 1)"));
  // The role's warpgroup index comes from lane 0 (warp-uniform to ptxas); unused here.
  CHECK(contains(l.cuda, "[[maybe_unused]] int wg = tj::warpgroup_index() - 0;"));
}

TEST_CASE("tiles: an MMA over part of K issues only those K steps, as a group of its own", "[codegen][tiles]") {
  MmaKernel m;
  m.k_range = KRange{0, 16};  // the first K step, then mma_wait(1), then steps 1..3
  codegen::Lowered l = codegen::lower(m.build(), Target::sm90a());
  INFO(l.cuda);
  CHECK(count(l.cuda, "tj::wgmma_m64n128k16_f32_bf16_kk(&acc[0], ") == 4);
  CHECK(count(l.cuda, "tj::wgmma_commit();") == 2);
  // K step 0, its commit, the wait, then the second group from K step 1 (32 bytes in:
  // 2 in descriptor units), which takes the accumulate flag there.
  const size_t first = l.cuda.find("tj_desc_a + 0ull, tj_desc_b + 0ull, tj_scale_d);"),
               commit = l.cuda.find("tj::wgmma_commit();"), wait1 = l.cuda.find("tj::wgmma_wait<1>();"),
               second = l.cuda.find("tj_desc_a + 2ull, tj_desc_b + 2ull, tj_scale_d);");
  REQUIRE(second != std::string::npos);
  CHECK(first < commit);
  CHECK(commit < wait1);
  CHECK(wait1 < second);
  CHECK(contains(l.cuda, "const tj::u32 tj_scale_d = (true) ? 1u : 0u;"));
  CHECK(contains(l.cuda, "tj_desc_a + 6ull, tj_desc_b + 6ull, 1u);"));
  // Only the wait for every group fences the accumulator (its reads stay after it): one
  // fence, after wgmma_wait<0>, none after wgmma_wait<1>.
  CHECK(count(l.cuda, "tj::acc_fence_64(acc);") == 1);
  CHECK(l.cuda.find("tj::acc_fence_64(acc);") > l.cuda.find("tj::wgmma_wait<0>();"));
  CHECK(contains(ir::to_string(m.build()), "accumulate false, k 0..15)"));
  CHECK(contains(ir::to_string(m.build()), "accumulate true, k 16..end)"));
}

TEST_CASE("tiles: 64- and 32-byte-swizzled K-major tiles give their span to the descriptors", "[codegen][tiles]") {
  MmaKernel m;
  m.k_cols = m.b_cols = 32, m.a_swizzle = m.b_swizzle = ir::Swizzle::B64;  // K = 32: one 64-byte row
  codegen::Lowered l = codegen::lower(m.build(), Target::sm90a());
  INFO(l.cuda);
  // 8-row groups 512 bytes apart; layout field 2 (64-byte swizzle); two k16 steps of 32 bytes.
  CHECK(contains(l.cuda, "tj::wgmma_desc(a, 16u, 512u, 2u) + (tj::u64)(unsigned)((1) * 256 + (0) * 4);"));
  CHECK(contains(l.cuda, "tj::wgmma_desc(b, 16u, 512u, 2u) + (tj::u64)(unsigned)((1) * 512 + (0) * 4);"));
  CHECK(count(l.cuda, "tj::wgmma_m64n128k16_f32_bf16_kk(&acc[0], ") == 2);
  CHECK(contains(l.cuda, "tj_desc_a + 2ull, tj_desc_b + 2ull, 1u);"));

  MmaKernel w;  // K = 64 in two 32-byte-swizzled panels of 16 elements: each k16 step is a panel
  w.a_swizzle = w.b_swizzle = ir::Swizzle::B32;
  l = codegen::lower(w.build(), Target::sm90a());
  INFO(l.cuda);
  CHECK(contains(l.cuda, "tj::wgmma_desc(a, 16u, 256u, 3u) + (tj::u64)(unsigned)((1) * 512 + (0) * 2);"));
  // Step 3 starts 3 panels (64 rows x 32 bytes = 2048 bytes each) into A, 3 panels of 128 rows into B.
  CHECK(contains(l.cuda, "tj_desc_a + 384ull, tj_desc_b + 768ull, 1u);"));

  MmaKernel two;  // K = 128 in two 128-byte-swizzled panels: the offsets jump at the panel, unrolled
  two.k_cols = two.b_cols = 128;
  l = codegen::lower(two.build(), Target::sm90a());
  INFO(l.cuda);
  CHECK(count(l.cuda, "tj::wgmma_m64n128k16_f32_bf16_kk(&acc[0], ") == 8);
  CHECK(contains(l.cuda, "tj_desc_a + 0ull, tj_desc_b + 0ull, tj_scale_d);"));
  // Step 4 is the second panel: 64 rows x 128 bytes (512 units) into A, 128 rows (1024) into B.
  CHECK(contains(l.cuda, "tj_desc_a + 512ull, tj_desc_b + 1024ull, 1u);"));
  CHECK(contains(l.cuda, "tj_desc_a + 518ull, tj_desc_b + 1030ull, 1u);"));
}

TEST_CASE("tiles: an N-major B is read transposed with the panel stride as leading offset", "[codegen][tiles]") {
  MmaKernel m;
  m.b_major = ir::Major::MN, m.b_rows = 64, m.b_cols = 128;  // K x N
  codegen::Lowered l = codegen::lower(m.build(), Target::sm90a());
  INFO(l.cuda);
  CHECK(contains(l.cuda, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "));
  CHECK(contains(l.cuda, "p, 1, 1, 0, 1; }"));  // imm-trans-b = 1
  // Panels of 64 rows (K) x 64 columns (N): 8192 bytes apart; K steps of 16 rows = 2048 bytes.
  CHECK(contains(l.cuda, "tj::wgmma_desc(b, 8192u, 1024u, 1u) + (tj::u64)(unsigned)((1) * 1024 + (0) * 8);"));
  CHECK(contains(l.cuda, "tj_desc_a + 6ull, tj_desc_b + 384ull, 1u);"));
}

TEST_CASE("tiles: an accumulator wider than one wgmma is computed by several, in one register layout", "[codegen][tiles]") {
  MmaKernel m;  // 64 x 320 from a K-major B of 320 rows: two m64n160 per k16 step
  m.acc_n = m.b_rows = 320, m.regs = 232;
  codegen::Lowered l = codegen::lower(m.build(), Target::sm90a());
  INFO(l.cuda);
  CHECK(count(l.cuda, "TJ_DEVICE void wgmma_m64n160k16_f32_bf16_kk_rs(float* d, const u32* a, u64 desc_b, u32 scale_d)") == 1);
  CHECK(!contains(l.cuda, "m64n320"));
  CHECK(contains(l.cuda, "float acc[160] = {};"));
  // Both chunks share A: it is loaded into registers once per k16 step (ldmatrix from
  // the 128-byte-swizzled stage), then the fence, then the MMAs in the register form.
  CHECK(contains(l.cuda, "tj::ldmatrix_a_k16<64, 8192, 128>(tj_a0_0, &a[(1) * 4096 + (0) * 64 + 0], 0);"));
  CHECK(contains(l.cuda, "tj::ldmatrix_a_k16<64, 8192, 128>(tj_a0_3, &a[(1) * 4096 + (0) * 64 + 0], 48);"));
  CHECK(l.cuda.find("tj_a0_3, &a") < l.cuda.find("tj::wgmma_fence();"));
  CHECK(!contains(l.cuda, "tj_desc_a"));
  CHECK(contains(l.cuda, "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16 "));
  CHECK(contains(l.cuda, "p, 1, 1, 0; }"));  // scale-a, scale-b, trans-b: no trans-a in the register form
  // Columns 160.. start 160 rows (of 128 bytes: 1280 descriptor units) into B, at register 80.
  CHECK(contains(l.cuda, "tj::wgmma_m64n160k16_f32_bf16_kk_rs(&acc[0], tj_a0_0, tj_desc_b + 0ull, tj_scale_d);"));
  CHECK(contains(l.cuda, "tj::wgmma_m64n160k16_f32_bf16_kk_rs(&acc[80], tj_a0_0, tj_desc_b + 1280ull, tj_scale_d);"));
  CHECK(contains(l.cuda, "tj::wgmma_m64n160k16_f32_bf16_kk_rs(&acc[80], tj_a0_3, tj_desc_b + 1286ull, 1u);"));
  CHECK(count(l.cuda, "tj::wgmma_m64n160k16_f32_bf16_kk_rs(&acc[") == 8);

  MmaKernel t;  // N-major B: a descriptor starts on a 64-column panel, so 192 + 128
  t.acc_n = t.b_cols = 320, t.b_rows = 64, t.b_major = ir::Major::MN, t.regs = 232;
  l = codegen::lower(t.build(), Target::sm90a());
  INFO(l.cuda);
  CHECK(contains(l.cuda, "tj::wgmma_m64n192k16_f32_bf16_kn_rs(&acc[0], tj_a0_0, tj_desc_b + 0ull, tj_scale_d);"));
  // Panel 3 (columns 192..255) is 3 x 8192 bytes in: 1536 descriptor units.
  CHECK(contains(l.cuda, "tj::wgmma_m64n128k16_f32_bf16_kn_rs(&acc[96], tj_a0_0, tj_desc_b + 1536ull, tj_scale_d);"));
  CHECK(contains(l.cuda, "p, 1, 1, 1; }"));  // trans-b

  MmaKernel w;  // one wgmma wide: A stays a descriptor
  w.acc_n = w.b_rows = 256, w.regs = 232;
  l = codegen::lower(w.build(), Target::sm90a());
  CHECK(!contains(l.cuda, "ldmatrix"));
  CHECK(contains(l.cuda, "tj::wgmma_m64n256k16_f32_bf16_kk(&acc[0], tj_desc_a + 0ull, tj_desc_b + 0ull, tj_scale_d);"));

  for (unsigned n : {8u, 136u, 256u, 264u, 320u, 384u, 504u, 512u})
    for (unsigned align : {8u, 64u}) {
      INFO("n " << n << ", align " << align);
      unsigned next = 0;
      for (const codegen::WgmmaColumns& c : codegen::wgmma_column_split(n, align)) {
        CHECK(c.first == next);
        CHECK(c.first % align == 0);
        CHECK((c.n % 8 == 0 && c.n >= 8 && c.n <= codegen::kWgmmaMaxN));
        next = c.first + c.n;
      }
      CHECK(next == n);
      CHECK(codegen::wgmma_column_split(n, align).size() == (n + 255) / 256);
    }
}

TEST_CASE("tiles: verifier errors name the user's line, what is wrong and the fix", "[codegen][tiles][verifier]") {
  SECTION("a warpgroup's wgmma kernel for sm_100a (tcgen05): the accumulator's rows and mma_wait") {
    MmaKernel m;
    auto d = lower_errors(m.build(), Target::sm100a());
    REQUIRE(d.size() == 3);
    CHECK(d[2].str() == at(m.mma_line) + ": error: mma runs in 128 threads of CTA rank 0: a tcgen05 MMA is issued by one thread for "
                        "the whole CTA, so each of them issues the whole MMA again into the accumulator\n"
                        "  fix: issue it from one thread: if_(thread_idx_x() == 0, ...) around the mma and its mma_commit");
    CHECK(d[0].str() == at(m.wait_line) + ": error: mma_wait waits for wgmma groups (sm_90a); tcgen05 MMAs complete on an mbarrier\n"
                        "  fix: after the MMAs, mma_commit(bar[i], group) from the thread that issued them, and wait on bar[i] where "
                        "the accumulator or the stages are needed");
    CHECK(d[1].str() == at(m.acc_line) + ": error: accumulator 'acc' has 64 rows; a tcgen05 accumulator holds 128 per CTA, one per "
                        "tensor-memory lane (a pair's mma_pair makes 256 rows from two CTAs of 128)\n"
                        "  fix: declare it with k.accumulator(\"acc\", 128, 128)");
  }
  SECTION("a tile the MMA cannot read: not swizzled") {
    MmaKernel m;
    m.a_swizzle = ir::Swizzle::None;
    auto d = lower_errors(m.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(m.mma_line) + ": error: mma reads tile 'a', which is not swizzled; the wgmma lowering reads 32-, 64- or 128-byte-swizzled tiles\n"
                        "  fix: declare 'a' with Swizzle::B128 (the default of shared_tile), B64 or B32");
  }
  SECTION("a tile the MMA cannot read: an N-major B with a 64-byte swizzle") {
    MmaKernel m;
    m.b_major = ir::Major::MN, m.b_rows = 64, m.b_cols = 128, m.b_swizzle = ir::Swizzle::B64;
    auto d = lower_errors(m.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(m.mma_line) + ": error: mma reads tile 'b' MN-major with a 64B swizzle; the wgmma lowering reads MN-major tiles 128-byte-swizzled\n"
                        "  fix: declare 'b' with Swizzle::B128 (the default of shared_tile)");
  }
  SECTION("operands of different element types") {
    MmaKernel m;
    m.b_elem = ir::Scalar::F16;
    auto d = lower_errors(m.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(m.mma_line) + ": error: mma operands 'a' (bf16) and 'b' (f16) differ in element type\n"
                        "  fix: give A and B the same element type");
  }
  SECTION("an MMA over a K range that is not whole K steps inside the tiles") {
    for (KRange r : {KRange{8, 16}, KRange{0, 24}, KRange{64, 0}, KRange{48, 32}}) {
      MmaKernel m;
      m.k_range = r;
      auto d = lower_errors(m.build());
      REQUIRE(!d.empty());
      const std::string end = r.count ? std::to_string(r.first + r.count) : "end";
      CHECK(d[0].str() == at(m.mma_line) + ": error: mma over K elements " + std::to_string(r.first) + ".." + end +
                              " of tiles with a K extent of 64\n"
                              "  fix: give a K range inside [0, 64) that starts and ends on a multiple of 16 (the MMA's K step)");
    }
  }
  SECTION("an accumulator wider than its tile") {
    MmaKernel m;
    m.acc_n = 256;
    auto d = lower_errors(m.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(m.mma_line) + ": error: mma operand B 'b' needs rows 0..255 but the tile has 128\n"
                        "  fix: declare the tile with at least 256 rows, or use a smaller accumulator");
  }
  SECTION("an accumulator too large for the role's registers, with how many it needs") {
    MmaKernel m;
    m.acc_m = 128, m.acc_n = 256, m.b_rows = 256, m.regs = 232;
    ir::Kernel k = m.build();
    auto d = lower_errors(k);
    REQUIRE(!d.empty());
    bool found = false;
    for (const Diagnostic& x : d)
      found |= x.str() == at(m.role_line) + ": error: role 'math' holds accumulator 'acc' (128x256): 256 registers per thread, "
                                            "plus about 40 for addresses and loop state, but it runs with 232\n"
                                            "  fix: a thread has at most 255 registers: split the accumulator across more warpgroups or use a smaller tile";
    CHECK(found);
  }
  SECTION("roles that ask for more registers than the CTA launches with (setmaxnreg.inc would wait forever)") {
    KernelBuilder k("greedy");
    k.threads(384);
    const unsigned line = __LINE__ + 1;
    k.role("producer", 1, 40, [](i32) {});
    k.role("consumer", 2, 240, [](i32) {});
    auto d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(line) + ": error: the roles ask for 66560 registers per CTA, but a CTA of 384 threads launches with 168 "
                                   "per thread (64512), and setmaxnreg only moves registers within that: the raise would wait forever\n"
                                   "  fix: lower the roles' max_regs so that the sum of 128 x warpgroups x max_regs stays within 64512");
  }
  SECTION("a role on a thread count that is not a multiple of 128") {
    MmaKernel m;
    m.threads = 96;
    auto d = lower_errors(m.build());
    REQUIRE(!d.empty());
    CHECK(d[0].str() == at(m.role_line) + ": error: warpgroup role 'math' needs whole warpgroups, but the CTA has (96,1,1) threads\n"
                        "  fix: give the kernel a 1-D block of a multiple of 128 threads (k.threads(128))");
  }
}

TEST_CASE("tiles: DSL misuse is refused where it is written", "[codegen][tiles][dsl]") {
  KernelBuilder k("misuse");
  k.threads(128);
  SharedTile a = k.shared_tile<bf16>("a", 64, 64);
  Accumulator acc = k.accumulator("acc", 64, 64);
  // Each call on a line of its own: inside a macro that spans lines, GCC and clang give
  // std::source_location different lines.
  const unsigned line = __LINE__ + 1;
  auto outside_role = [&] { mma(acc, stage(a, 0), stage(a, 0), boolean(false)); };
  CHECK_THROWS_WITH(outside_role(),
                    at(line) + ": error: mma outside a warpgroup role\n"
                               "  fix: call it inside k.role(name, warpgroups, max_regs, body): it needs whole warpgroups");
  const unsigned line2 = __LINE__ + 1;
  auto odd = [&] { k.shared_tile<bf16>("odd", 64, 40); };
  CHECK_THROWS_WITH(odd(),
                    at(line2) + ": error: tile 'odd' has rows of 80 bytes, not a multiple of its 128B swizzle span\n"
                                "  fix: make cols a multiple of 64 elements");
  const unsigned line3 = __LINE__ + 1;
  auto big = [&] { k.accumulator("big", 96, 64); };
  CHECK_THROWS_WITH(big(), at(line3) + ": error: accumulator 'big' is 96 x 64\n"
                                                              "  fix: a warpgroup's accumulator is a multiple of 64 rows by 8..512 columns (a multiple of 8)");
  const unsigned line4 = __LINE__ + 1;
  auto regs = [&] { k.role("r", 1, 100, [](i32) {}); };
  CHECK_THROWS_WITH(regs(),
                    at(line4) + ": error: role 'r' asks for 100 registers per thread\n"
                                "  fix: setmaxnreg takes a multiple of 8 from 24 to 256 (or 0 to keep the launch's allocation)");
  // Slices of a swizzled tile start 128-byte aligned: any rows of 128 bytes (28 of 112), an
  // even count of 64-byte rows, not 3.
  SharedTile b = k.shared_tile<bf16>("b", 112, 64);
  CHECK(k.tile_map("B", b, 28).box_rows == 28);
  SharedTile b64 = k.shared_tile<bf16>("b64", 24, 32, 1, tj::ir::Major::K, tj::ir::Swizzle::B64);
  CHECK(k.tile_map("B64", b64, 12).box_rows == 12);
  const unsigned line5 = __LINE__ + 1;
  auto odd_slice = [&] { k.tile_map("B64x3", b64, 3); };
  CHECK_THROWS_WITH(odd_slice(), at(line5) + ": error: tile map 'B64x3' has boxes of 3 rows of 64 bytes; slices of a swizzled tile must "
                                             "start 128-byte aligned\n"
                                             "  fix: use a multiple of 2 rows");
}

TEST_CASE("tiles: for_each_tile lowers to a persistent loop over cluster tiles with grouped rasterization",
          "[codegen][tiles][schedule]") {
  KernelBuilder k("sched");
  k.threads(128).cluster(2, 1);
  auto out = k.param<int32_t*>("out");
  for_each_tile(static_persistent(4), i32(10), i32(6), [&](i32 tm, i32 tn) { out[tm * 6 + tn] = cluster_ctarank(); });
  codegen::Lowered l = codegen::lower(k.build(), Target::sm90a());
  INFO(l.cuda);
  CHECK(contains(l.cuda, "for (int tj_sched0_t = tj::cluster_id_x(); tj_sched0_t < tj_sched0_total; tj_sched0_t += tj::num_clusters_x()) {"));
  CHECK(contains(l.cuda, "int tj_sched0_group_rows = tj::min_((tj_sched0_rows - tj_sched0_first_row), 4);"));
  CHECK(contains(l.cuda, "int tile_n = (((tj_sched0_in_group / tj_sched0_group_rows) * 2) + tj::cluster_ctaid_x());"));
}


TEST_CASE("gemm: sm_90a PTX has wgmma, multicast TMA and setmaxnreg, and no config spills", "[codegen][tiles][gemm][ptx]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  struct Case {
    std::map<std::string, int64_t> params;
    ir::Dim3 cluster;
    std::string mma;
  };
  const std::vector<Case> cases = {
      {{}, {1, 1, 1}, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"},
      {{}, {2, 1, 1}, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"},
      {{{"bm", 256}, {"bn", 128}}, {1, 2, 1}, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"},
      {{{"bn", 128}, {"layout", 1}}, {2, 2, 1}, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"},
      {{{"dtype", 1}, {"out", 2}, {"bn", 128}}, {1, 1, 1}, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"},
      {{{"consumers", 1}, {"bm", 64}, {"bn", 128}}, {1, 1, 1}, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"},
      // Wider than one wgmma: two m64n160 with A from registers (ldmatrix), B in two TMA boxes per CTA.
      {{{"bn", 320}, {"stages", 3}}, {2, 1, 1}, "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16"},
      // The ladder's one-warpgroup steps (no setmaxnreg: one role of 128 threads).
      {{{"warp_specialized", 0}, {"stages", 1}, {"bn", 128}, {"persistent", 0}}, {1, 1, 1}, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"},
      {{{"warp_specialized", 0}, {"stages", 4}, {"bn", 128}, {"persistent", 0}}, {1, 1, 1}, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"},
      // Split-K (its fix-up: tests/codegen/test_split_k.cpp), explicit and automatic.
      {{{"splits", 4}}, {1, 2, 1}, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"},
      {{{"splits", 0}}, {1, 1, 1}, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"},
      // Fused epilogues: the widest (scale, bias, gelu) on the widest tile, and silu into f32.
      {{{"col_scale", 1}, {"bias", 1}, {"act", 2}}, {1, 2, 1}, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"},
      {{{"bias", 1}, {"act", 3}, {"out", 2}, {"bn", 128}}, {1, 1, 1}, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"},
  };
  for (const Case& c : cases) {
    samples::Config cfg = gemm_config(c.params, c.cluster);
    codegen::Lowered l = codegen::lower(s->build(cfg), Target::sm90a());
    // ptxas reports each function; every report must show no spills.
    const rt::CompileResult r = compile_without_spills(l, "cluster " + cfg.cluster.str());
    CHECK(contains(r.ptx, c.mma));
    if (cfg.params["warp_specialized"] == 1) {
      CHECK(contains(r.ptx, "setmaxnreg.dec.sync.aligned.u32 40;"));
      CHECK(contains(r.ptx, cfg.params["consumers"] == 2 ? "setmaxnreg.inc.sync.aligned.u32 232;" : "setmaxnreg.dec.sync.aligned.u32 240;"));
      CHECK(contains(r.ptx, "shfl.sync.idx.b32"));  // the consumers' warpgroup index, from lane 0
    }
    CHECK(contains(r.ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16") == (cfg.params["bn"] > 256));
    if (cfg.cluster.count() > 1) CHECK(contains(r.ptx, "multicast::cluster"));
    else CHECK(!contains(r.ptx, "multicast::cluster"));
  }
}

TEST_CASE("gemm: the epilogue stores 16-bit tiles by stmatrix (with C or not), f32 by pairs", "[codegen][tiles][gemm][ptx]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  struct Case {
    int64_t out;
    double beta;
    bool x4;
  };
  // out: 0 bf16, 1 f16, 2 f32. beta != 0 builds the kernel with its C path.
  for (const Case& c : {Case{0, 0.0, true}, Case{1, 0.0, true}, Case{2, 0.0, false}, Case{0, 0.5, true}, Case{2, 0.5, false}}) {
    samples::Config cfg = gemm_config({{"out", c.out}});
    cfg.reals["beta"] = c.beta;
    codegen::Lowered l = codegen::lower(s->build(cfg), Target::sm90a());
    INFO("out " << c.out << ", beta " << c.beta);
    CHECK(contains(l.cuda, "tj::stmatrix_x4_tile<") == c.x4);
    CHECK(contains(l.cuda, "tj::store_pair_tile<") == !c.x4);
    CHECK(contains(l.cuda, "tj::load_pair_tile<") == (c.beta != 0));  // C, read by pairs
    const rt::CompileResult r = compile_without_spills(l, "out " + std::to_string(c.out));
    CHECK(contains(r.ptx, "stmatrix.sync.aligned.m8n8.x4.shared.b16") == c.x4);
  }
}

TEST_CASE("gemm: no config tilejit tune may pick spills registers (every distinct kernel of the candidates)",
          "[codegen][tiles][gemm][ptx]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  samples::Config base = gemm_config({{"m", 4096}, {"n", 4096}, {"k", 4096}});
  std::vector<samples::Config> candidates = s->tuning_candidates(base);
  REQUIRE(candidates.size() >= 12);
  std::set<std::string> sources;  // the group and problem size change no code: compile each kernel once
  for (const samples::Config& cfg : candidates) {
    codegen::Lowered l = codegen::lower(s->build(cfg), Target::sm90a());
    if (!sources.insert(l.cuda).second) continue;
    compile_without_spills(l, "bm " + std::to_string(cfg.params.at("bm")) + " bn " + std::to_string(cfg.params.at("bn")) +
                                  " cluster " + cfg.cluster.str());
  }
  CHECK(sources.size() >= 12);  // 3 tiles x 4 cluster shapes
}

TEST_CASE("tiles: MmaOrder::KSteps issues every 64-row block's MMA for a K step before the next step's",
          "[codegen][tiles][mma_order]") {
  const auto lowered = [](std::optional<MmaOrder> order) {
    KernelBuilder k("mma_order");
    k.threads(128);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 128, 64, 1, ir::Major::K, ir::Swizzle::B128);
    SharedTile b = k.shared_tile(ir::Scalar::BF16, "b", 128, 64, 1, ir::Major::K, ir::Swizzle::B128);
    Accumulator acc = k.accumulator("acc", 128, 128);
    k.role("math", 1, 0, [&](i32) {
      if (order) mma(acc, stage(a, 0), stage(b, 0), boolean(false), KRange{0, 0}, *order);
      else mma(acc, stage(a, 0), stage(b, 0), boolean(false));
      mma_wait(0);
    });
    const ir::Kernel kern = k.build();
    return std::make_pair(codegen::lower(kern, Target::sm90a()).cuda, ir::to_string(kern));
  };
  // Block 1 of A starts 64 rows of 128 bytes in (512 descriptor units); K steps advance 2 units.
  const auto pos = [](const std::string& cuda, const std::string& call) {
    const size_t p = cuda.find(call);
    INFO(call);
    REQUIRE(p != std::string::npos);
    return p;
  };
  const std::string b0k0 = "(&acc[0], tj_desc_a + 0ull, tj_desc_b + 0ull, tj_scale_d)";
  const std::string b1k0 = "(&acc[64], tj_desc_a + 512ull, tj_desc_b + 0ull, tj_scale_d)";
  const std::string b0k1 = "(&acc[0], tj_desc_a + 2ull, tj_desc_b + 2ull, 1u)";
  const std::string b0k3 = "(&acc[0], tj_desc_a + 6ull, tj_desc_b + 6ull, 1u)";
  const std::string b1k3 = "(&acc[64], tj_desc_a + 518ull, tj_desc_b + 6ull, 1u)";
  for (const std::optional<MmaOrder> order : {std::optional<MmaOrder>{}, std::optional<MmaOrder>{MmaOrder::Blocks}}) {
    const auto [cuda, ir_text] = lowered(order);
    INFO(cuda);
    CHECK(count(cuda, "tj::wgmma_m64n128k16_f32_bf16_kk(&acc[") == 8);
    CHECK(pos(cuda, b0k3) < pos(cuda, b1k0));  // block 0's four K steps, then block 1's
    CHECK_FALSE(contains(ir_text, "k steps first"));
  }
  const auto [cuda, ir_text] = lowered(MmaOrder::KSteps);
  INFO(cuda);
  CHECK(count(cuda, "tj::wgmma_m64n128k16_f32_bf16_kk(&acc[") == 8);
  CHECK(pos(cuda, b0k0) < pos(cuda, b1k0));
  CHECK(pos(cuda, b1k0) < pos(cuda, b0k1));  // both blocks' first step before either's second
  CHECK(pos(cuda, b0k3) < pos(cuda, b1k3));
  CHECK(count(cuda, "tj::wgmma_commit();") == 1);
  CHECK(contains(ir_text, ", k steps first)"));
}
