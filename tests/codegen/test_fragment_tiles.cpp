// store_accumulator's function reading a tile at each element's place (Elem's e[tile],
// dsl/fragment.h): the IR, what the wgmma family emits (each pair read from the tile
// before it is written), the GEMM's residual add built on it, and the errors with the
// user's line.
#include <catch2/catch.hpp>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/gemm_test_support.h"

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"
#include "samples/builtin.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

std::string at(unsigned line) { return "test_fragment_tiles.cpp:" + std::to_string(line); }

// One warpgroup: c (f32 64 x 64) loaded by TMA, then d = acc + 2 * c at each element
// through fn's reads (e[c] unless `read` is given), d stored by TMA.
struct TileReadKernel {
  unsigned line = 0;
  ir::Kernel build(const std::function<f32(const Elem&, const TileView&, const TileView&)>& fn, ir::Scalar c_elem = ir::Scalar::F32) {
    KernelBuilder k("tile_read");
    k.threads(128);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 64, 64), b = k.shared_tile(ir::Scalar::BF16, "b", 64, 64);
    SharedTile c = k.shared_tile(c_elem, "c", 64, 64), d = k.shared_tile(ir::Scalar::F32, "d", 64, 64);
    TileMap amap = k.tile_map("A", a, 64), bmap = k.tile_map("B", b, 64), cmap = k.tile_map("C", c, 64), dmap = k.tile_map("D", d, 64);
    auto full = k.mbarriers("full", 1, 1);
    Accumulator acc = k.accumulator("acc", 64, 64);
    k.role("math", 1, 0, [&](i32) {
      if_(thread_idx_x() == 0, [&] {
        arrive_expect_tx(full[0], u32(tile_load_bytes(amap) + tile_load_bytes(bmap) + tile_load_bytes(cmap)));
        tma_load_tile(stage(a, 0), amap, 0, 0, full[0]);
        tma_load_tile(stage(b, 0), bmap, 0, 0, full[0]);
        tma_load_tile(stage(c, 0), cmap, 0, 0, full[0]);
      });
      wait(full[0]);
      mma(acc, stage(a, 0), stage(b, 0), boolean(false));
      mma_wait(0);
      line = __LINE__ + 1;
      store_accumulator(stage(d, 0), acc, [&](const Elem& e) { return fn(e, stage(c, 0), stage(d, 0)); });
      fence_proxy_async();
      role_sync();
      if_(thread_idx_x() == 0, [&] {
        tma_store_tile(dmap, 0, 0, stage(d, 0));
        bulk_commit();
        bulk_wait(0);
      });
    });
    return k.build();
  }
};

}  // namespace

TEST_CASE("fragments: store_accumulator's function reads a tile pair by pair, before writing", "[codegen][fragments]") {
  TileReadKernel t;
  const ir::Kernel k = t.build([](const Elem& e, const TileView& c, const TileView&) { return e.value + 2.0f * e[c]; });
  const std::string ir_text = ir::to_string(k);
  INFO(ir_text);
  CHECK(contains(ir_text, "store_accumulator(d.stage(0).rows(0) = (elem[acc] + (2f * elem.tile)) over acc[columns 0..63], "
                          "elem.tile of c.stage(0).rows(0))"));
  codegen::Lowered l = codegen::lower(k, Target::sm90a());
  INFO(l.cuda);
  // The tile's block beside the destination's; its pair read, bound per element, the pair stored.
  CHECK(contains(l.cuda, "const float* tj_c = &c[(0) * 4096 + (0) * 32] + tj_blk * 2048;"));
  CHECK(contains(l.cuda, "tj::load_pair_tile<32, 8192, 128>(tj_c, tj_wrow + 8 * tj_h, 8 * (tj_j - 0) + tj_qcol, tj_tile[0], tj_tile[1]);"));
  CHECK(contains(l.cuda, "const float tj_e_tile = tj_tile[tj_x];"));
  CHECK(contains(l.cuda, "tj_pair[tj_x] = (tj_e_acc + (2.0f * tj_e_tile));"));
  CHECK(l.cuda.find("tj::load_pair_tile<") < l.cuda.find("tj::store_pair_tile<"));
  const rt::CompileResult r = compile_without_spills(l, "tile_read");
  CHECK(contains(r.ptx, "ld.shared.v2.f32"));
}

TEST_CASE("gemm: the residual add reads R through the chunk buffer C was loaded into", "[codegen][tiles][gemm]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  // bf16 out: 64-column chunks of the 128 x 256 tile, each consumer's 64 rows.
  codegen::Lowered l = codegen::lower(s->build(gemm_config({{"bias", 1}, {"act", 2}, {"residual", 1}}, {1, 2, 1})), Target::sm90a());
  INFO(l.cuda);
  CHECK(count(l.cuda, "tj::load_pair_tile<64, 16384, 128>(tj_c, tj_wrow + 8 * tj_h, 8 * ((tj_j + tj_g) - ") == 4);  // one per chunk
  CHECK(contains(l.cuda,
                 "tj::load_pair_tile<64, 16384, 128>(tj_c, tj_wrow + 8 * tj_h, 8 * ((tj_j + tj_g) - 24) + tj_qcol, tj_tile[0], tj_tile[1]);"));
  CHECK(count(l.cuda, " + tj_e_tile);") == 4);
  CHECK(count(l.cuda, "tj::stmatrix_x4_tile<64, 16384, 128>(tj_dst, 8 * (tj_j - ") == 4);  // bf16 out: stmatrix
  const rt::CompileResult r = compile_without_spills(l, "gemm with a residual");
  CHECK(contains(r.ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"));
  CHECK(contains(r.ptx, "tanh.approx.f32"));
}

TEST_CASE("fragments: a tile read where it cannot be is an error at the user's line", "[codegen][fragments][verify]") {
  SECTION("in acc_map's function") {
    KernelBuilder k("map_tile");
    k.threads(128);
    SharedTile d = k.shared_tile(ir::Scalar::F32, "d", 64, 64);
    Accumulator acc = k.accumulator("acc", 64, 64);
    unsigned line = 0;
    k.role("math", 1, 0, [&](i32) {
      // The call on a line of its own: inside a macro that spans lines, GCC and clang
      // give std::source_location different lines.
      line = __LINE__ + 1;
      auto map_tile = [&] { acc_map(acc, [&](const Elem& e) { return e.value + e[stage(d, 0)]; }); };
      CHECK_THROWS_WITH(map_tile(),
                        Catch::Contains(at(line) + ": error: acc_map's function reads tile 'd' (e[tile])\n"
                                                   "  fix: read a tile only in store_accumulator's function (a tile laid out like "
                                                   "its destination, or the destination itself)"));
    });
  }
  SECTION("two tiles in one store") {
    TileReadKernel t;
    CHECK_THROWS_WITH(t.build([](const Elem& e, const TileView& c, const TileView& d) {
                        f32 first = e[c];
                        return first + e[d];
                      }),
                      Catch::Contains(at(t.line) + ": error: store_accumulator's function reads tiles 'c' (stage 0, row 0) and 'd' "
                                                   "(stage 0, row 0); it reads one\n  fix: load what the function reads into one "
                                                   "tile laid out like the destination (or into the destination itself)"));
  }
  SECTION("a tile laid out unlike the destination") {
    TileReadKernel t;
    const ir::Kernel k = t.build([](const Elem& e, const TileView& c, const TileView&) { return e.value + e[c]; }, ir::Scalar::BF16);
    std::vector<Diagnostic> d = lower_errors(k);
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(t.line) + ": error: store_accumulator's function reads tile 'c' (e[tile]), whose layout differs from "
                                     "the destination's\n  fix: load what the function reads into a tile declared like the "
                                     "destination (or into the destination itself)");
  }
}
