// store_accumulator_transposed (dsl/fragment.h): the IR, what the wgmma family emits
// (stmatrix.x4.trans for 16-bit tiles over whole 16-column pairs, one value per store
// otherwise), what ptxas makes of it, and the errors at the user's line.
#include <catch2/catch.hpp>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/gemm_test_support.h"
#include "tests/codegen/transposed_kernels.h"

#include "dsl/ir/printer.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {
std::string at(unsigned line) { return "transposed_kernels.h:" + std::to_string(line); }
}  // namespace

TEST_CASE("fragments: store_accumulator_transposed stores bf16 through stmatrix.trans", "[codegen][fragments][ptx]") {
  TransposedStore t;
  t.acc_m = GENERATE(64u, 128u);
  t.n = 128;
  t.first = 32;
  t.count = 64;
  CAPTURE(t.acc_m);
  const ir::Kernel k = t.build();
  const std::string ir_text = ir::to_string(k);
  INFO(ir_text);
  CHECK(contains(ir_text, "store_accumulator_transposed(d.stage(0).rows(0) = (elem[acc] + "));
  CHECK(contains(ir_text, "over acc[columns 32..95])"));
  codegen::Lowered l = codegen::lower(k, Target::sm90a());
  INFO(l.cuda);
  // 64 rows of 64 (or 128) bf16 columns: panels of 64 columns, 8192 bytes apart; the block
  // pointer at the destination's first row; each 64-row block of the accumulator at its
  // own 64 columns of the tile; groups 4..11 of the accumulator, two per stmatrix.
  const std::string panels = "<64, 8192, 128>";
  CHECK(contains(l.cuda, "tj::bf16* tj_dst = &d[(0) * " + std::to_string(64 * t.acc_m) + " + (0) * 64];"));
  CHECK(contains(l.cuda, "for (int tj_blk = 0; tj_blk < " + std::to_string(t.acc_m / 64) + "; ++tj_blk) {"));
  CHECK(contains(l.cuda, "for (int tj_j = 4; tj_j < 12; tj_j += 2) {"));
  CHECK(contains(l.cuda, "tj::stmatrix_x4_trans_tile" + panels + "(tj_dst, 8 * (tj_j - 4), tj_blk * 64, tj_v);"));
  CHECK(!contains(l.cuda, "tj::stmatrix_x4_tile<"));
  CHECK(!contains(l.cuda, "store_one_tile"));
  const rt::CompileResult r = compile_without_spills(l, "transposed store, bf16");
  CHECK(count(r.ptx, "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16") >= 1);
  CHECK(!contains(r.ptx, "st.shared.b16"));
}

TEST_CASE("fragments: store_accumulator_transposed stores one value at a time where stmatrix does not apply",
          "[codegen][fragments][ptx]") {
  SECTION("f32 tiles, reading C at each element first") {
    TransposedStore t;
    t.out = ir::Scalar::F32;
    t.reads_c = true;
    codegen::Lowered l = codegen::lower(t.build(), Target::sm90a());
    INFO(l.cuda);
    // f32: panels of 32 columns, 64 x 32 x 4 bytes apart.
    const std::string place = "(tj_c, 8 * (tj_j - 0) + tj_qcol + tj_x, tj_blk * 64 + tj_wrow + 8 * tj_h)";
    CHECK(contains(l.cuda, "const float tj_e_tile = tj::load_one_tile<32, 8192, 128>" + place + ";"));
    CHECK(contains(l.cuda, "tj::store_one_tile<32, 8192, 128>(tj_dst, 8 * (tj_j - 0) + tj_qcol + tj_x, tj_blk * 64 + tj_wrow + 8 * tj_h, "));
    CHECK(l.cuda.find("tj::load_one_tile<") < l.cuda.find("tj::store_one_tile<"));
    CHECK(!contains(l.cuda, "stmatrix"));
    const rt::CompileResult r = compile_without_spills(l, "transposed store, f32");
    CHECK(contains(r.ptx, "st.shared.f32"));
    CHECK(contains(r.ptx, "ld.shared.f32"));
  }
  SECTION("bf16 over an odd number of 8-column groups: the pair by stmatrix, the last group a value at a time") {
    TransposedStore t;
    t.n = 64;
    t.first = 8;
    t.count = 24;
    codegen::Lowered l = codegen::lower(t.build(), Target::sm90a());
    INFO(l.cuda);
    CHECK(contains(l.cuda, "for (int tj_j = 1; tj_j < 3; tj_j += 2) {"));
    CHECK(contains(l.cuda, "tj::stmatrix_x4_trans_tile<64, 3072, 128>(tj_dst, 8 * (tj_j - 1), tj_blk * 64, tj_v);"));
    CHECK(contains(l.cuda, "for (int tj_j = 3; tj_j < 4; tj_j += 1) {"));
    CHECK(contains(l.cuda, "tj::store_one_tile<64, 3072, 128>(tj_dst, 8 * (tj_j - 1) + tj_qcol + tj_x, "));
    CHECK(l.cuda.find("stmatrix_x4_trans_tile<") < l.cuda.find("store_one_tile<"));
    const rt::CompileResult r = compile_without_spills(l, "transposed store, odd groups");
    CHECK(contains(r.ptx, "st.shared.b16"));
    CHECK(contains(r.ptx, "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
  }
  SECTION("bf16 over one 8-column group: a value at a time") {
    TransposedStore t;
    t.n = 64;
    t.first = 16;
    t.count = 8;
    codegen::Lowered l = codegen::lower(t.build(), Target::sm90a());
    INFO(l.cuda);
    CHECK(contains(l.cuda, "for (int tj_j = 2; tj_j < 3; tj_j += 1) {"));
    CHECK(!contains(l.cuda, "stmatrix"));
    const rt::CompileResult r = compile_without_spills(l, "transposed store, one group");
    CHECK(contains(r.ptx, "st.shared.b16"));
  }
}

TEST_CASE("fragments: store_accumulator_transposed's misuse is an error at the user's line", "[codegen][fragments][verify]") {
  SECTION("a tile without one column per accumulator row") {
    TransposedStore t;
    t.acc_m = 128;
    const ir::Kernel k = [&] {
      // d declared with 64 columns for a 128-row accumulator: build by hand.
      KernelBuilder b("transposed_cols");
      b.threads(128);
      SharedTile d = b.shared_tile(ir::Scalar::BF16, "d", 64, 64);
      Accumulator acc = b.accumulator("acc", 128, 64);
      b.role("math", 1, 0, [&](i32) {
        t.store_line = __LINE__ + 1;
        store_accumulator_transposed(stage(d, 0), acc, [](const Elem& e) { return e.value; });
      });
      return b.build();
    }();
    std::vector<Diagnostic> d = lower_errors(k);
    REQUIRE(!d.empty());
    CHECK(d[0].str() == "test_transposed_store.cpp:" + std::to_string(t.store_line) +
                            ": error: store_accumulator_transposed writes the 128 rows of accumulator 'acc' (128x64) as the columns "
                            "of tile 'd' of 64 columns\n  fix: give the tile 128 columns (one per accumulator row)");
  }
  SECTION("a tile with fewer rows than the columns stored") {
    unsigned line = 0;
    KernelBuilder b("transposed_rows");
    b.threads(128);
    SharedTile d = b.shared_tile(ir::Scalar::BF16, "d", 32, 64);
    Accumulator acc = b.accumulator("acc", 64, 64);
    b.role("math", 1, 0, [&](i32) {
      line = __LINE__ + 1;
      store_accumulator_transposed(stage(d, 0), acc, [](const Elem& e) { return e.value; });
    });
    std::vector<Diagnostic> d_ = lower_errors(b.build());
    REQUIRE(d_.size() == 1);
    CHECK(d_[0].str() == "test_transposed_store.cpp:" + std::to_string(line) +
                             ": error: store_accumulator_transposed destination 'd' needs rows 0..63 but the tile has 32\n"
                             "  fix: declare the tile with at least 64 rows, or use a smaller accumulator");
  }
  SECTION("two warpgroups at once: their rows of the tile are the columns each stores") {
    // Each warpgroup stores 64 accumulator columns as 64 tile rows from row wg * stride.
    auto errors = [](int stride, unsigned& line) {
      KernelBuilder b("transposed_overlap");
      b.threads(256);
      SharedTile d = b.shared_tile(ir::Scalar::BF16, "d", 128, 64);
      Accumulator acc = b.accumulator("acc", 64, 64);
      b.role("math", 2, 0, [&](i32 wg) {
        line = __LINE__ + 1;
        store_accumulator_transposed(stage(d, 0).rows(wg * stride), acc, [](const Elem& e) { return e.value; });
      });
      return lower_errors(b.build());
    };
    unsigned line = 0;
    CHECK(errors(64, line).empty());
    const std::vector<Diagnostic> d = errors(32, line);
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == "test_transposed_store.cpp:" + std::to_string(line) +
                            ": error: store_accumulator_transposed runs in warpgroups 0 and 1 of role 'math' at once (CTA rank 0), "
                            "both into rows 32 to 63 of stage 0 of 'd': each overwrites the other's elements\n"
                            "  fix: give each warpgroup its own rows (stage(d, s).rows(wg * 64)) or its own stage, or store in turns "
                            "(wait_turn ... pass_turn)");
  }
  SECTION("sm_100a: the tcgen05 epilogue has no transposed store") {
    TransposedStore t;
    const ir::Kernel k = t.build();
    std::vector<Diagnostic> d = lower_errors(k, Target::sm100a());
    bool found = false;
    for (const Diagnostic& x : d)
      found = found || x.str() == at(t.store_line) + ": error: store_accumulator_transposed into tile 'd': the tcgen05 epilogue has no "
                                                    "transposed store\n  fix: store the accumulator untransposed (store_accumulator), "
                                                    "or compile for sm_90a";
    INFO(d.size() << (d.empty() ? std::string() : ": " + d[0].str()));
    CHECK(found);
  }
}
