// Tile rows that depend on the warpgroup (`.rows(wg * 64)`): checked per warpgroup.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "tests/codegen/codegen_test_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

// Two warpgroups each multiply their 64 rows of A and store them into their rows of D.
// a_rows, d_rows: the tiles' rows (128 fits both warpgroups).
ir::Kernel two_warpgroups(unsigned a_rows, unsigned d_rows, unsigned& mma_line, unsigned& store_line) {
  KernelBuilder k("rows_by_warpgroup");
  k.threads(256);
  SharedTile a = k.shared_tile<bf16>("a", a_rows, 64);
  SharedTile b = k.shared_tile<bf16>("b", 128, 64);
  SharedTile d = k.shared_tile<float>("d", d_rows, 128);
  Accumulator acc = k.accumulator("acc", 64, 128);
  k.role("math", 2, 0, [&](i32 wg) {
    mma_line = __LINE__ + 1;
    mma(acc, stage(a, 0).rows(wg * 64), stage(b, 0), boolean(false));
    mma_wait(0);
    store_line = __LINE__ + 1;
    store_accumulator(stage(d, 0).rows(wg * 64), acc, f32(1.0f));
  });
  return k.build();
}

}  // namespace

TEST_CASE("tile rows chosen by the warpgroup must lie in the tile for each warpgroup", "[codegen][verify][tiles]") {
  unsigned mma_line = 0, store_line = 0;
  std::vector<Diagnostic> d = lower_errors(two_warpgroups(64, 128, mma_line, store_line));
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == "test_tile_rows.cpp:" + std::to_string(mma_line) +
                          ": error: mma operand A 'a' starts at row (0 + (wg * 64)), which is 64 in warpgroup 1: it needs rows "
                          "64..127 but the tile has 64\n"
                          "  fix: declare the tile with rows for every warpgroup that reads it (128 at least), or give each "
                          "warpgroup rows inside the tile");
  d = lower_errors(two_warpgroups(128, 64, mma_line, store_line));
  REQUIRE(d.size() == 1);
  CHECK(d[0].loc.line == store_line);
  CHECK(d[0].message.find("store_accumulator destination 'd' starts at row (0 + (wg * 64)), which is 64 in warpgroup 1") == 0);
  CHECK(lower_errors(two_warpgroups(128, 128, mma_line, store_line)).empty());
}

TEST_CASE("tile rows chosen by the warpgroup are not checked for warpgroups a condition keeps out", "[codegen][verify][tiles]") {
  KernelBuilder k("one_warpgroup_reads");
  k.threads(256);
  SharedTile a = k.shared_tile<bf16>("a", 64, 64);
  SharedTile b = k.shared_tile<bf16>("b", 128, 64);
  Accumulator acc = k.accumulator("acc", 64, 128);
  k.role("math", 2, 0, [&](i32 wg) {
    if_(wg == 0, [&] {
      mma(acc, stage(a, 0).rows(wg * 64), stage(b, 0), boolean(false));
      mma_wait(0);
    });
  });
  CHECK(lower_errors(k.build()).empty());
}
