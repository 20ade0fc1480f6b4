// Accumulators as values (dsl/fragment.h): what the wgmma family emits for maps, row
// reductions, epilogue functions and register-A MMAs, what NVRTC and ptxas make of it,
// and the DSL-level errors with the user's line.
#include <catch2/catch.hpp>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/fragment_kernels.h"
#include "tests/codegen/gemm_test_support.h"

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

f32 linear(const f32& x) { return f32(1.0f) + x * 0.125f; }
std::string at(unsigned line) { return "test_fragments.cpp:" + std::to_string(line); }

}  // namespace

TEST_CASE("fragments: maps, row reductions, epilogue functions and register-A MMAs are emitted", "[codegen][fragments]") {
  FragmentAttention a;
  const ir::Kernel k = a.build(linear);
  const std::string ir_text = ir::to_string(k);
  INFO(ir_text);
  CHECK(contains(ir_text, "row fragment m: f32 64 rows per warpgroup"));
  CHECK(contains(ir_text, "m = row_max(s)"));
  CHECK(contains(ir_text, "mma(acc_o, registers(s), v.stage(0).rows(0), accumulate false)"));
  codegen::Lowered l = codegen::lower(k, Target::sm90a());
  INFO(l.cuda);
  // Row fragments: two rows per 64-row block per thread; the accumulators m x n / 128.
  CHECK(contains(l.cuda, "float m[2] = {};"));
  CHECK(contains(l.cuda, "float s[32] = {};"));
  // The reductions run over the thread's registers, then across the 4 lanes of a row.
  CHECK(contains(l.cuda, "tj::row_reduce_m64<64, 1>(&s[0], &m[0], false);"));
  CHECK(contains(l.cuda, "tj::row_reduce_m64<64, 0>(&s[0], &l[0], false);"));
  // The map binds each element's row, column and the row fragment's value at its row.
  CHECK(contains(l.cuda, "const int tj_e_row = tj_blk * 64 + tj_wrow + 8 * ((tj_k >> 1) & 1);"));
  CHECK(contains(l.cuda, "const int tj_e_col = (tj_k >> 2) * 8 + tj_qcol + (tj_k & 1);"));
  CHECK(contains(l.cuda, "const float tj_e_m = m[(tj_blk) * 2 + ((tj_k >> 1) & 1)];"));
  CHECK(contains(l.cuda, "s[tj_i] = "));
  // P x V: A packed from s in registers (k-step 1: registers 8..15), the register-A wgmma.
  CHECK(contains(l.cuda, "tj_a0_1[0] = tj::pack2((tj::bf16*)nullptr, s[8], s[9]);"));
  CHECK(contains(l.cuda, "tj_a0_3[3] = tj::pack2((tj::bf16*)nullptr, s[30], s[31]);"));
  CHECK(count(l.cuda, "tj::wgmma_m64n64k16_f32_bf16_kn_rs(&acc_o[0], tj_a0_") == 4);
  // The epilogue function, pair by pair, into the swizzled f32 tile (32-column panels).
  CHECK(contains(l.cuda, "tj_pair[tj_x] = ((tj_e_acc_o / tj_e_l) + bias[tj_e_col]);"));
  CHECK(contains(l.cuda, "tj::store_pair_tile<32, 8192, 128>(tj_dst, tj_wrow + 8 * tj_h, 8 * (tj_j - 0) + tj_qcol, tj_pair[0], tj_pair[1]);"));
}

TEST_CASE("fragments: sm_90a PTX has the register-A wgmma and the row shuffles, and nothing spills", "[codegen][fragments][ptx]") {
  FragmentAttention a;
  codegen::Lowered l = codegen::lower(a.build(linear), Target::sm90a());
  const rt::CompileResult r = compile_without_spills(l, "frag_attention");
  // Register A: {d...}, {a0, a1, a2, a3} (32-bit registers), then B's descriptor.
  CHECK(contains(r.ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"));
  CHECK(contains(r.ptx, "cvt.rn.bf16x2.f32"));
  CHECK(count(r.ptx, "shfl.sync.bfly.b32") >= 8);  // 2 reductions x 2 rows x 2 steps
}

TEST_CASE("fragments: store_rows writes each row once, from the thread of lane % 4 == 0", "[codegen][fragments]") {
  FragmentAttention a;
  a.store_l = true;
  const ir::Kernel k = a.build(linear);
  CHECK(contains(ir::to_string(k), "l_out[i64(((%ctaid.x * 64) + elem.row))] = l[elem] if (elem.row < 48)"));
  codegen::Lowered l = codegen::lower(k, Target::sm90a());
  INFO(l.cuda);
  CHECK(contains(l.cuda, "if (tj_lane % 4 == 0) {"));
  CHECK(contains(l.cuda, "const int tj_e_row = (tj_r / 2) * 64 + tj_wrow + 8 * (tj_r % 2);"));
  CHECK(contains(l.cuda, "if ((tj_e_row < 48)) l_out[((long long)"));
  compile_without_spills(l, "frag_attention with store_rows");
}

TEST_CASE("fragments: misuse is an error at the user's line", "[codegen][fragments][verify]") {
  SECTION("a map outside a role") {
    KernelBuilder k("no_role");
    k.threads(128);
    Accumulator acc = k.accumulator("acc", 64, 64);
    const unsigned line = __LINE__ + 1;
    CHECK_THROWS_WITH(fill(acc, f32(0.0f)), Catch::Contains(at(line) + ": error: fill outside a warpgroup role"));
  }
  SECTION("a row fragment of other rows") {
    KernelBuilder k("rows");
    k.threads(128);
    Accumulator acc = k.accumulator("acc", 64, 64);
    RowFragment r = k.row_fragment("r", 128);
    unsigned line = 0;
    k.role("math", 1, 0, [&](i32) {
      line = __LINE__ + 1;
      CHECK_THROWS_WITH(row_max(r, acc), Catch::Contains("row_max of accumulator 'acc' (64 rows) into row fragment 'r' (128 rows)"));
      acc_map(acc, [&](const Elem& e) { return e.value * e[r]; });
      line = __LINE__ - 1;
    });
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(line) + ": error: acc_map over accumulator 'acc' (64x64) reads row fragment 'r' (128 rows)\n"
                                   "  fix: read accumulators of the same shape and row fragments of the same rows");
  }
  SECTION("a row map reads a column") {
    KernelBuilder k("row_col");
    k.threads(128);
    RowFragment r = k.row_fragment("r", 64);
    unsigned line = 0;
    k.role("math", 1, 0, [&](i32) {
      line = __LINE__ + 1;
      row_map(r, [&](const Elem& e) { return cast<float>(e.col); });
    });
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(line) + ": error: row_map over row fragment 'r' reads the element's column\n"
                                   "  fix: a row fragment has one value per row: use e.row");
  }
  SECTION("store_rows reads a column") {
    KernelBuilder k("rows_col");
    k.threads(128);
    RowFragment r = k.row_fragment("r", 64);
    auto out = k.param<float*>("out");
    unsigned line = 0;
    k.role("math", 1, 0, [&](i32) {
      line = __LINE__ + 1;
      store_rows(r, out, [&](const Elem& e) { return cast<int64_t>(e.col); });
    });
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(line) + ": error: store_rows over row fragment 'r' reads the element's column\n"
                                   "  fix: a row fragment has one value per row: use e.row");
  }
  SECTION("a map's function adds a statement") {
    KernelBuilder k("stmt");
    k.threads(128);
    Accumulator acc = k.accumulator("acc", 64, 64);
    auto out = k.param<float*>("out");
    k.role("math", 1, 0, [&](i32) {
      CHECK_THROWS_WITH(acc_map(acc,
                                [&](const Elem& e) {
                                  out[0] = e.value;
                                  return e.value;
                                }),
                        Catch::Contains("acc_map's function adds a statement (out[0] = elem[acc])") &&
                            Catch::Contains("it must only compute the element's value"));
    });
  }
  SECTION("an accumulator read before the mma_wait that completes it") {
    KernelBuilder k("early");
    k.threads(128);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 64, 64), b = k.shared_tile(ir::Scalar::BF16, "b", 64, 64);
    Accumulator acc = k.accumulator("acc", 64, 64);
    RowFragment r = k.row_fragment("r", 64);
    unsigned mma_line = 0, line = 0;
    k.role("math", 1, 0, [&](i32) {
      mma_line = __LINE__ + 1;
      mma(acc, stage(a, 0), stage(b, 0), boolean(false));
      line = __LINE__ + 1;
      row_sum(r, acc);
      mma_wait(0);
    });
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(contains(d[0].str(), at(line) + ": error: the row_sum at " + at(line) + " reads accumulator 'acc' while the mma at " +
                                   at(mma_line) + " may still be writing it"));
  }
  SECTION("A from an accumulator whose columns are not B's K") {
    KernelBuilder k("pv");
    k.threads(128);
    SharedTile v = k.shared_tile(ir::Scalar::BF16, "v", 128, 64, 1, ir::Major::MN);
    Accumulator p = k.accumulator("p", 64, 64), o = k.accumulator("o", 64, 64);
    unsigned line = 0;
    k.role("math", 1, 0, [&](i32) {
      line = __LINE__ + 1;
      mma(o, registers(p), stage(v, 0), boolean(false));
      mma_wait(0);
    });
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(line) + ": error: mma with A from accumulator 'p' (64x64: K = 64) and B 'v' with a K extent of 128\n"
                                   "  fix: give B as many rows of K as the accumulator has columns (a multiple of 16)");
  }
  SECTION("A from an accumulator whose columns are B's K but not a multiple of 16") {
    KernelBuilder k("pv24");
    k.threads(128);
    SharedTile v = k.shared_tile(ir::Scalar::BF16, "v", 24, 64, 1, ir::Major::MN);
    Accumulator p = k.accumulator("p", 64, 24), o = k.accumulator("o", 64, 64);
    unsigned line = 0;
    k.role("math", 1, 0, [&](i32) {
      line = __LINE__ + 1;
      mma(o, registers(p), stage(v, 0), boolean(false));
      mma_wait(0);
    });
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(!d.empty());
    bool found = false;
    for (const Diagnostic& x : d)
      found |= x.str() == at(line) + ": error: mma with A from accumulator 'p' (64x24): K = 24 is not a multiple of 16, the K of "
                                     "one wgmma step\n  fix: give the accumulator (and B's K extent) a multiple of 16 columns";
    CHECK(found);
  }
  SECTION("the register budget counts row fragments") {
    KernelBuilder k("budget");
    k.threads(256);
    Accumulator acc = k.accumulator("acc", 128, 256);
    RowFragment r = k.row_fragment("r", 128);
    unsigned line = __LINE__ + 1;
    k.role("math", 1, 280 - 24, [&](i32) {
      fill(acc, f32(0.0f));
      fill(r, f32(0.0f));
    });
    k.role("other", 1, 0, [&](i32) {});
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(!d.empty());
    CHECK(contains(d[0].str(), at(line) + ": error: role 'math' holds accumulator 'acc' (128x256), 'r' (128x0): 260 registers per thread"));
  }
}
