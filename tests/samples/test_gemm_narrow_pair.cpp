// The narrow pair (samples/gemm_packing.cpp, kGemmNarrowPair): over a narrow N and a long K,
// packing's pick of more than two column tiles gives way to two in 2x1 pairs sharing A, or to
// one in 1x2 pairs split along K where one covers N (kGemmNarrowOneTile). Decided
// on an H200's facts, as `tilejit run` prints them. No GPU needed.
#include <catch2/catch.hpp>

#include <tuple>

#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;
using samples::GemmMulticast;
using samples::GemmSchedule;

namespace {
bool narrow_pair(const samples::Sample::DeviceChoice& d, int64_t bn) {
  return d.config.param("bn") == bn && d.config.param("bm") == 128 && d.config.param("consumers") == 2 &&
         d.config.cluster.str() == ir::Dim3{2, 1, 1}.str() && d.line.find("narrow pair -> bn " + std::to_string(bn)) != std::string::npos;
}
bool said(const samples::Sample::DeviceChoice& d, const std::string& what) { return d.line.find(what) != std::string::npos; }
}  // namespace

TEST_CASE("gemm narrow pair: two column tiles in 2x1 pairs in place of three or four over a long K, the schedule left to "
          "the wave model",
          "[samples][gemm][schedule]") {
  // 3870 x 412 x 6640: packing's tall tiles (192 x 128 in 2x2: four column tiles, each A row
  // read twice) -> two of 208 in 31 pairs, back to 128 rows in two warpgroups, split-K.
  samples::Sample::DeviceChoice d = test::decide_h200(3870, 412, 6640);
  INFO(d.line);
  CHECK(narrow_pair(d, 208));
  CHECK(said(d, "narrow pair -> bn 208, bm 192 -> 128, consumers 3 -> 2, cluster 2x2 -> 2x1: 4 column tiles of 128 read each A "
                "row 2 times over 104 k-blocks; two of 208 (416 columns for N 412) in pairs sharing it read it once, 31 pairs "
                "of the 66 the device runs at once, the schedule left to the wave model"));
  CHECK(d.config.param("schedule") == int64_t(GemmSchedule::SplitK));
  CHECK(d.config.param("multicast") == int64_t(GemmMulticast::On));  // the pair shares A
  // Over aligned rows in one wave, where `multicast auto` would drop the pair's multicast.
  d = test::decide_h200(5434, 363, 17984);
  INFO(d.line);
  CHECK(narrow_pair(d, 192));
  CHECK(d.config.param("multicast") == int64_t(GemmMulticast::On));
  CHECK_FALSE(said(d, "multicast auto -> off"));
  // Fresh shapes of 62-88 pair CTAs where the pair ran faster than the pick.
  // Rows of 128-byte multiples: 3182 x 384 x 13440, 2380 x 393 x 11776.
  for (auto [m, n, k, bn] : {std::tuple{3794, 392, 14768, 208}, {5353, 384, 14288, 192}, {3957, 271, 9040, 144},
                             {4927, 340, 9440, 176}, {4702, 441, 16016, 224}, {4048, 506, 16352, 256},
                             {3182, 384, 13440, 192}, {2380, 393, 11776, 208}}) {
    INFO(m << " x " << n << " x " << k);
    d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK(narrow_pair(d, bn));
  }
  // Fewer pair CTAs (34-54), in the wave model's 2 or 3 splits.
  for (auto [m, n, k, bn] : {std::tuple{2559, 369, 17744, 192}, {2334, 502, 17120, 256}, {3191, 425, 13232, 224},
                             {3426, 289, 13136, 160}}) {
    INFO(m << " x " << n << " x " << k);
    d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK(narrow_pair(d, bn));
    CHECK(d.config.param("schedule") == int64_t(GemmSchedule::SplitK));
  }
}

TEST_CASE("gemm narrow one tile: where one column tile covers N, it runs in 1x2 pairs along M split along K",
          "[samples][gemm][schedule]") {
  // 5013 x 224 x 12720: packing's 80 columns in 1x4 (three column tiles) -> one of 224 in 1x2
  // pairs sharing B, 40 row tiles in 3 splits.
  samples::Sample::DeviceChoice d = test::decide_h200(5013, 224, 12720);
  INFO(d.line);
  CHECK(d.config.param("bn") == 224);
  CHECK(d.config.param("bm") == 128);
  CHECK(d.config.param("consumers") == 2);
  CHECK(d.config.cluster.str() == ir::Dim3{1, 2, 1}.str());
  CHECK(d.config.param("schedule") == int64_t(GemmSchedule::SplitK));
  CHECK(d.config.param("splits") == 3);
  CHECK(d.config.param("multicast") == int64_t(GemmMulticast::On));  // the pair along M shares B
  CHECK(said(d, "narrow one tile -> bn 224, cluster 1x4 -> 1x2: 3 column tiles of 80 read each A row 3 times over 199 "
                "k-blocks; one of 224 (N 224) in pairs along M sharing B reads it once, 3 splits of K over 40 row tiles as the "
                "wave model picks"));
  CHECK_FALSE(said(d, "narrow pair"));
  // N up to 256: one tile of N rounded up to 16; rows of 128-byte multiples too (K 12800, 14464).
  for (auto [m, n, k, bn] : {std::tuple{5624, 253, 19680, 256}, {4790, 168, 7136, 176}, {5294, 177, 9424, 192},
                             {5013, 224, 12800, 224}, {5195, 191, 14464, 192}}) {
    INFO(m << " x " << n << " x " << k);
    d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK(d.config.param("bn") == bn);
    CHECK(d.config.cluster.str() == ir::Dim3{1, 2, 1}.str());
    CHECK(d.config.param("schedule") == int64_t(GemmSchedule::SplitK));
    CHECK(said(d, "narrow one tile -> bn " + std::to_string(bn)));
  }
}

TEST_CASE("gemm narrow pair: not taken over fewer k-blocks, where two tiles compute more columns, where the pick has two "
          "already, or what the spec names",
          "[samples][gemm][schedule]") {
  for (auto [m, n, k] : {// Under kGemmNarrowPairMinKblocks (99, 55 and 52 k-blocks).
                         std::tuple{4746, 288, 6336}, {4766, 438, 3488}, {4492, 422, 3296},
                         // Two of 176 (352 columns) against three of 112 (336) across 328.
                         {4342, 328, 9472},
                         // Two column tiles already (224 in 1x2, 128 and 160 in 2x2).
                         {7789, 432, 11520}, {6975, 248, 6944}, {6418, 304, 10848}}) {
    INFO(m << " x " << n << " x " << k);
    const samples::Sample::DeviceChoice d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK_FALSE(said(d, "narrow pair"));
    CHECK_FALSE(said(d, "narrow one tile"));
  }
  // The spec names the cluster, the rows, the consumers or multicast.
  for (int64_t n : {224, 392}) {
    INFO("N " << n);
    CHECK_FALSE(said(test::decide_h200(5013, n, 12720, {}, {1, 2, 1}, true), "narrow"));
    CHECK_FALSE(said(test::decide_h200(5013, n, 12720, {{"bm", 128}}), "narrow"));
    CHECK_FALSE(said(test::decide_h200(5013, n, 12720, {{"consumers", 2}}), "narrow"));
    CHECK_FALSE(said(test::decide_h200(5013, n, 12720, {{"multicast", int64_t(GemmMulticast::On)}}), "narrow"));
  }
}
