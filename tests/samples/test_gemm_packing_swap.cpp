// Packing either way round (choose_packing_swapped, kGemmPackingSwap): where packing's own pick
// stood through the width's later rules (narrow pair, long split) and the one-wave swap,
// packing again weighing the swapped product (D^T = B A^T), taken where it comes out swapped
// and estimated faster than packing's pick. Decided on an H200's facts. No GPU needed (the GPU
// runs swapped tiles in clusters in tests/gpu/test_gemm.cpp, "[swap]").
#include <catch2/catch.hpp>

#include <tuple>

#include "codegen/lower.h"
#include "codegen/target.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

namespace {
bool packed_swapped(const samples::Sample::DeviceChoice& d, int64_t bm, int64_t bn, const ir::Dim3& cluster) {
  return d.config.param("swap") == 1 && d.config.param("bm") == bm && d.config.param("bn") == bn &&
         d.config.cluster.str() == cluster.str() && d.line.find("either way round, packing -> bn ") != std::string::npos;
}
bool swapped(const samples::Sample::DeviceChoice& d) { return d.config.param("swap") == 1; }
}  // namespace

TEST_CASE("gemm packing either way round: the swapped product where its tiles pack the device better", "[samples][gemm][packing][swap]") {
  const ir::Dim3 c2x2{2, 2, 1};
  // 1979 x 888 x 13512: 128 columns in pairs (16 x 7 = 112 tiles); swapped, 888 rows of B in 7
  // tiles of 128 by 1979 of A in 14 of 144, 98 tiles in clusters of 4 (0.68x of the time, H100).
  samples::Sample::DeviceChoice d = test::decide_h200(1979, 888, 13512);
  INFO(d.line);
  CHECK(packed_swapped(d, 128, 144, c2x2));
  CHECK(d.line.find("either way round, packing -> bn 144, swap 1 (D^T = B A^T: the tile's rows on N), cluster 2x1 -> 2x2") !=
        std::string::npos);
  CHECK(d.line.find("(no later rule of the width took the shape)") != std::string::npos);
  CHECK(samples::gemm_kernel_shape(d.config).m == 888);
  CHECK(d.config.param("schedule") == int64_t(samples::GemmSchedule::Static));
  // 6272 x 4840 x 176 (three k-blocks): 224 swapped in 2x2 in place of packing's 192 x 192 pair.
  CHECK(packed_swapped(test::decide_h200(6272, 4840, 176), 128, 224, c2x2));
  // 7000 x 3000 x 2200: 192 x 160 swapped in 2x2 in place of packing's 128 x 256 in 1x4 (0.93x).
  CHECK(packed_swapped(test::decide_h200(7000, 3000, 2200), 192, 160, c2x2));
  // 303 x 7231 x 2896: 128 x 160 swapped in 2x2 in place of 192 x 128 in 2x2 (0.81x).
  CHECK(packed_swapped(test::decide_h200(303, 7231, 2896), 128, 160, c2x2));
}

TEST_CASE("gemm packing either way round: not where a later rule of the width or the one-wave swap took the shape, nor "
          "against packing's lower estimate, aligned rows or what the spec names",
          "[samples][gemm][packing][swap]") {
  // The one-wave swap's unclustered coop-cols tiles (1.06-1.10x faster than packing's swapped
  // pick at these, H100).
  for (auto [m, n, k] : {std::tuple{1919, 2864, 1904}, {3394, 1102, 560}, {2100, 2500, 800}}) {
    INFO(m << " x " << n << " x " << k);
    const samples::Sample::DeviceChoice d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK(d.line.find("one wave -> swap 1, coop cols") != std::string::npos);
    CHECK(d.line.find("either way round") == std::string::npos);
  }
  // The narrow pair (3870 x 412 x 6640: 1.03x faster than the swapped pick) and the long split
  // (1917 x 680 x 13088: the swapped pick split by it ran 1.09x slower).
  for (auto [m, n, k, rule] : {std::tuple{3870, 412, 6640, "narrow pair -> "}, {1917, 680, 13088, "long split -> "}}) {
    INFO(m << " x " << n << " x " << k);
    const samples::Sample::DeviceChoice d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK(d.line.find(rule) != std::string::npos);
    CHECK_FALSE(swapped(d));
  }
  // 4446 x 893 x 3949: the swapped 192 x 192 pair beats packing's pair before packing's last
  // step, four along M (est. 0.53x), but not that.
  samples::Sample::DeviceChoice d = test::decide_h200(4446, 893, 3949);
  INFO(d.line);
  CHECK(d.config.cluster.str() == ir::Dim3{1, 4, 1}.str());
  CHECK_FALSE(swapped(d));
  // Rows a multiple of 128 bytes apart: the swap only trades the operands' roles there.
  CHECK_FALSE(swapped(test::decide_h200(4096, 4096, 4096)));
  CHECK_FALSE(swapped(test::decide_h200(2048, 888, 13440)));
  // The spec names the swap, or the cluster.
  CHECK_FALSE(swapped(test::decide_h200(1979, 888, 13512, {{"swap", 0}})));
  CHECK_FALSE(swapped(test::decide_h200(1979, 888, 13512, {}, {2, 1, 1}, true)));
}

TEST_CASE("gemm packing either way round: its tall swapped pick in clusters of 4 compiles without spills", "[samples][gemm][packing][swap][ptx]") {
  const samples::Sample::DeviceChoice d = test::decide_h200(7000, 3000, 2200);
  REQUIRE(d.config.param("swap") == 1);
  REQUIRE(d.config.param("consumers") == 3);
  test::compile_without_spills(codegen::lower(test::gemm_sample().build(d.config), codegen::Target::sm90a()), d.line);
}
