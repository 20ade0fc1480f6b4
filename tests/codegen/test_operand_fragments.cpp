// Operand fragments (k.operand_fragment, convert, mma(acc, registers(p), ...)) and waits
// that name the accumulators they complete (mma_wait(n, {acc})): what the wgmma family
// emits, and the race check's refusals with the user's line.
#include <catch2/catch.hpp>

#include "tests/codegen/codegen_test_support.h"

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "generators/runner.h"
#include "runtime/compiler.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

std::string at(unsigned line) { return "test_operand_fragments.cpp:" + std::to_string(line); }

// One warpgroup, two k-blocks of the attention pattern: s = a b^T; p = bf16(s); then
// s = a b^T again issued before o += p v, and only s waited for (the wait as `wait_s`
// gives it) before s is read; `early_convert` converts into p while o += p v may run.
struct PvKernel {
  bool name_s = true, early_convert = false;
  unsigned read_line = 0, wait_line = 0, convert_line = 0, pv_line = 0;
  ir::Kernel build() {
    KernelBuilder k("pv");
    k.threads(128);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 64, 64), b = k.shared_tile(ir::Scalar::BF16, "b", 64, 64);
    SharedTile v = k.shared_tile(ir::Scalar::BF16, "v", 64, 64, 1, ir::Major::MN);
    TileMap amap = k.tile_map("A", a, 64), bmap = k.tile_map("B", b, 64), vmap = k.tile_map("V", v, 64);
    Ptr<float> out = k.param<float*>("out");
    auto full = k.mbarriers("full", 1, 1);
    Accumulator s = k.accumulator("s", 64, 64), o = k.accumulator("o", 64, 64);
    RowFragment r = k.row_fragment("r", 64);
    OperandFragment p = k.operand_fragment("p", 64, 64, ir::Scalar::BF16);
    k.role("math", 1, 0, [&](i32) {
      if_(thread_idx_x() == 0, [&] {
        arrive_expect_tx(full[0], u32(tile_load_bytes(amap) + tile_load_bytes(bmap) + tile_load_bytes(vmap)));
        tma_load_tile(stage(a, 0), amap, 0, 0, full[0]);
        tma_load_tile(stage(b, 0), bmap, 0, 0, full[0]);
        tma_load_tile(stage(v, 0), vmap, 0, 0, full[0]);
      });
      wait(full[0]);
      fill(o, f32(0.0f));
      mma(s, stage(a, 0), stage(b, 0), boolean(false));
      mma_wait(0);
      convert(p, s);
      mma(s, stage(a, 0), stage(b, 0), boolean(false));
      pv_line = __LINE__ + 1;
      mma(o, registers(p), stage(v, 0), boolean(true));
      wait_line = __LINE__ + 1;
      if (name_s) mma_wait(1, {s}); else mma_wait(1);
      read_line = __LINE__ + 1;
      row_max(r, s);
      convert_line = __LINE__ + 1;
      if (early_convert) convert(p, s);
      mma_wait(0);
      store_rows(r, out, [&](const Elem& e) { return cast<int64_t>(e.row); });
    });
    return k.build();
  }
};

}  // namespace

TEST_CASE("operand fragments: convert packs pairs once, the MMA reads them, a named wait fences s", "[codegen][fragments][nvrtc]") {
  PvKernel pk;
  codegen::Lowered l = codegen::lower(pk.build(), Target::sm90a());
  CHECK(contains(l.cuda, "tj::u32 p[16] = {};"));
  CHECK(contains(l.cuda, "for (int tj_i = 0; tj_i < 16; ++tj_i) p[tj_i] = tj::pack2((tj::bf16*)nullptr, s[2 * tj_i], s[2 * tj_i + 1]);"));
  CHECK(contains(l.cuda, "const tj::u32* tj_a0_3 = &p[12];"));
  // The wait with a group pending fences s (named), not o (still being written).
  CHECK(contains(l.cuda, "tj::wgmma_wait<1>();\n    tj::acc_fence_32(s);\n    // RowReduce"));
  const Target t = Target::sm90a();
  rt::CompileResult r = rt::compile(samples::compile_request(l, t), nullptr);
  // P V's A is registers; the S MMAs' A is a descriptor.
  CHECK(count(r.ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16") >= 12);
  CHECK(contains(r.ptx, "wgmma.wait_group.sync.aligned 1;"));
}

TEST_CASE("operand fragments: the race check refuses an unnamed wait's read and a convert under a running MMA",
          "[codegen][fragments][races]") {
  SECTION("s read after mma_wait(1) that does not name it") {
    PvKernel pk;
    pk.name_s = false;
    const ir::Kernel kern = pk.build();
    const auto d = lower_errors(kern);
    REQUIRE(d.size() >= 1);
    CHECK(d[0].str() == at(pk.read_line) + ": error: the row_max at " + at(pk.read_line) + " reads accumulator 's', completed by the "
                            "mma_wait at " + at(pk.wait_line) + " with groups still pending, which does not name it: the compiler may "
                            "move the access above the wait\n  fix: name it in that wait: mma_wait(n, {s})");
  }
  SECTION("convert into p while o += p v may still read it") {
    PvKernel pk;
    pk.early_convert = true;
    const ir::Kernel kern = pk.build();
    const auto d = lower_errors(kern);
    REQUIRE(d.size() >= 1);
    CHECK(d[0].str() == at(pk.convert_line) + ": error: the acc_map at " + at(pk.convert_line) + " writes 'p' while the mma at " +
                            at(pk.pv_line) + " may still be reading it as its A operand\n  fix: call mma_wait between line " +
                            std::to_string(pk.pv_line) + " and line " + std::to_string(pk.convert_line) + " that leaves that mma done");
  }
}

TEST_CASE("operand fragments: shapes and types refused where they are written", "[codegen][fragments][dsl]") {
  KernelBuilder k("operand_misuse");
  k.threads(128);
  // Each call on a line of its own: inside a macro that spans lines, GCC and clang give
  // std::source_location different lines.
  const unsigned l1 = __LINE__ + 1;
  auto odd = [&] { k.operand_fragment("odd", 64, 40, ir::Scalar::BF16); };
  CHECK_THROWS_WITH(odd(),
                    at(l1) + ": error: operand fragment 'odd' is 64 x 40\n"
                             "  fix: an MMA's A from registers is a multiple of 64 rows by 16..512 columns (a multiple of 16)");
  const unsigned l2 = __LINE__ + 1;
  auto wide = [&] { k.operand_fragment("wide", 64, 64, ir::Scalar::F32); };
  CHECK_THROWS_WITH(wide(),
                    at(l2) + ": error: operand fragment 'wide' of f32\n  fix: operand fragments hold bf16 or f16, what the MMA reads");
  OperandFragment p = k.operand_fragment("p", 64, 64, ir::Scalar::BF16);
  Accumulator s = k.accumulator("s", 64, 128);
  k.role("math", 1, 0, [&](i32) {
    const unsigned l3 = __LINE__ + 1;
    auto shapes = [&] { convert(p, s); };
    CHECK_THROWS_WITH(shapes(), at(l3) + ": error: convert of accumulator 's' (64x128) into operand fragment 'p' (64x64)\n"
                                              "  fix: give the operand fragment the accumulator's shape");
  });
}
