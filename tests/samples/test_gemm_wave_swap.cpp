// The one-wave swap (choose_wave_swap, kGemmWaveSwap): where the default's tiles run more
// than one static wave, the swapped product in one wave of unclustered coop-cols tiles. No
// GPU needed (the GPU runs swapped coop-cols configs in tests/gpu/test_gemm.cpp, "[swap]").
#include <catch2/catch.hpp>

#include "codegen/lower.h"
#include "codegen/target.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

namespace {
bool wave_swap(const samples::Sample::DeviceChoice& d, int64_t bm, int64_t bn) {
  return d.config.param("swap") == 1 && d.config.param("coop") == 1 && d.config.param("bm") == bm && d.config.param("bn") == bn &&
         d.config.param("consumers") == 2 && d.config.cluster.str() == ir::Dim3{1, 1, 1}.str() &&
         d.config.param("multicast") == int64_t(samples::GemmMulticast::Off) &&
         d.config.param("schedule") == int64_t(samples::GemmSchedule::Static);
}
bool swapped(const samples::Sample::DeviceChoice& d) { return d.config.param("swap") == 1; }
// The one-wave swap's own pick (packing either way round may swap where it does not).
bool one_wave_swap(const samples::Sample::DeviceChoice& d) { return d.line.find("one wave -> swap") != std::string::npos; }
}  // namespace

TEST_CASE("gemm one-wave swap: the smallest swapped coop-cols tile whose tiles all fit one wave, in place of more waves",
          "[samples][gemm][schedule][swap]") {
  // 820 x 5904 x 688: packing's 192 x 128 tiles in pairs run 2 waves (120 pairs on 66);
  // D^T = B A^T in 31 x 4 = 124 tiles of 192 of B's rows by 208 of A's runs one (cuBLAS's tiling).
  samples::Sample::DeviceChoice d = test::decide_h200(820, 5904, 688);
  INFO(d.line);
  CHECK(wave_swap(d, 192, 208));
  CHECK(samples::gemm_kernel_shape(d.config).m == 5904);
  CHECK(d.line.find("one wave -> swap 1, coop cols, bm 192, bn 208, unclustered: D^T = B A^T in 124 tiles of 192 of B's rows by "
                    "208 of A's, all in one wave of 132 SMs; est. 0.82x the MMA time of 2 waves of 192 x 128 tiles") !=
        std::string::npos);
  // 1919 x 2864 x 1904 (3808-byte rows): 15 x 8 = 120 tiles of 192 x 240 in place of two waves.
  CHECK(wave_swap(test::decide_h200(1919, 2864, 1904), 192, 240));
  // 3394 x 1102 x 560: 6 x 22 = 132 tiles of 192 x 160, the whole device.
  CHECK(wave_swap(test::decide_h200(3394, 1102, 560), 192, 160));
  // 2100 x 2500 x 800: 192 x 240 (14 x 9 = 126), the narrowest of 192 rows whose tiles fit 132.
  CHECK(wave_swap(test::decide_h200(2100, 2500, 800), 192, 240));
}

TEST_CASE("gemm one-wave swap: not taken where no swapped tile fits one wave, the default runs one already, or the spec names "
          "what it sets",
          "[samples][gemm][schedule][swap]") {
  // No tile of at most 192 x 256 covers them in 132: 4362 x 2968 x 1824, 4096^3, 5120^3; nor
  // 3691 x 1278 x 2800, where 256 x 144 would (130 tiles) and ran 0.945x the two waves of 2x2.
  for (auto [m, n, k] : {std::tuple{4362, 2968, 1824}, {4096, 4096, 4096}, {5120, 5120, 5120}, {3691, 1278, 2800}}) {
    INFO(m << " x " << n << " x " << k);
    CHECK_FALSE(one_wave_swap(test::decide_h200(m, n, k)));
  }
  // Rows off whole 32-byte sectors (1733 x 3304 x 1272: 2544 bytes; 256 x 176 would fit one wave).
  CHECK_FALSE(swapped(test::decide_h200(1733, 3304, 1272)));
  // One wave already where no swapped tile's estimate is below the incumbent's (1100 x 5000 x
  // 2048: 192 columns in pairs), or few tiles (split-K's).
  CHECK_FALSE(swapped(test::decide_h200(1100, 5000, 2048)));
  CHECK_FALSE(swapped(test::decide_h200(1024, 1024, 8192)));
  // The spec names the swap, the consumers' split, the rows, the cluster, or a layout it was not measured on.
  CHECK_FALSE(swapped(test::decide_h200(820, 5904, 688, {{"swap", 0}})));
  CHECK_FALSE(swapped(test::decide_h200(820, 5904, 688, {{"coop", 0}})));
  CHECK_FALSE(swapped(test::decide_h200(820, 5904, 688, {{"bm", 128}})));
  CHECK_FALSE(swapped(test::decide_h200(820, 5904, 688, {}, {2, 1, 1}, true)));
  CHECK_FALSE(swapped(test::decide_h200(820, 5904, 688, {{"layout", 1}})));
  // Without the device's count of clusters that fit, the decision is the same (unclustered tiles).
  samples::Config blind = test::gemm_config({{"m", 820}, {"n", 5904}, {"k", 688}}, {2, 1, 1});
  const std::optional<samples::Sample::DeviceChoice> b = test::gemm_sample().for_device(blind, 132);
  REQUIRE(b.has_value());
  CHECK(wave_swap(*b, 192, 208));
}

TEST_CASE("gemm one-wave swap: in place of one wave over a short K, where the swapped tile's estimate is below the incumbent's",
          "[samples][gemm][schedule][swap]") {
  // 643 x 6120 x 1008 (16 k-blocks): 4 x 32 = 128 tiles of 192 x 192 in pairs; swapped, 32 x 4
  // tiles of 192 x 176 (643 rows in 4 x 176, 9% padding against the pairs' 16%).
  samples::Sample::DeviceChoice d = test::decide_h200(643, 6120, 1008);
  INFO(d.line);
  CHECK(wave_swap(d, 192, 176));
  CHECK(d.line.find("est. 0.96x the MMA time of 1 wave of 192 x 192 tiles") != std::string::npos);
  CHECK(wave_swap(test::decide_h200(879, 3284, 1248), 128, 176));  // 20 k-blocks, 128 x 208 in 1x2 before
  CHECK(wave_swap(test::decide_h200(6691, 500, 288), 128, 208));   // 5 k-blocks, 128 x 256 in 1x4 before
  CHECK(wave_swap(test::decide_h200(2975, 693, 752), 128, 144));   // 12 k-blocks, 128 x 192 in 2x2 before
  // Past kGemmOneWaveSwapKblocks the default's multicast keeps it: 303 x 7231 x 2896 (46 k-blocks,
  // 1.05x slower swapped), 777 x 3397 x 2656 (42), 2889 x 659 x 3808 (60). (Packing either way
  // round swaps them in clusters of 4: tests/samples/test_gemm_packing_swap.cpp.)
  for (auto [m, n, k] : {std::tuple{303, 7231, 2896}, {777, 3397, 2656}, {2889, 659, 3808}}) {
    INFO(m << " x " << n << " x " << k);
    CHECK_FALSE(one_wave_swap(test::decide_h200(m, n, k)));
  }
}

TEST_CASE("gemm one-wave swap: the tiles it picks compile without spills (in place of two waves and of one), and 256 x 176, "
          "taller than it takes",
          "[samples][gemm][swap][ptx]") {
  samples::Sample::DeviceChoice d = test::decide_h200(820, 5904, 688);
  test::compile_without_spills(codegen::lower(test::gemm_sample().build(d.config), codegen::Target::sm90a()), d.line);
  // The one-wave picks over a short K: 192 x 176 and 128 x 208.
  for (auto [m, n, k] : {std::tuple{643, 6120, 1008}, {6691, 500, 288}}) {
    const samples::Sample::DeviceChoice one = test::decide_h200(m, n, k);
    REQUIRE(swapped(one));
    test::compile_without_spills(codegen::lower(test::gemm_sample().build(one.config), codegen::Target::sm90a()), one.line);
  }
  d.config.params["bm"] = 256, d.config.params["bn"] = 176;
  REQUIRE(test::gemm_problems(d.config).empty());
  test::compile_without_spills(codegen::lower(test::gemm_sample().build(d.config), codegen::Target::sm90a()), "256 x 176");
}
