// The narrow pair (samples/gemm_packing.cpp, kGemmNarrowPair): over a narrow N and a long K,
// packing's pick of more than two column tiles gives way to two in 2x1 pairs sharing A. Decided
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
  // 5013 x 224 x 12720: packing's 80 columns in 1x4 (three column tiles, each A row read three
  // times) -> two of 112 in 40 pairs, stream-K over the idle SMs.
  samples::Sample::DeviceChoice d = test::decide_h200(5013, 224, 12720);
  INFO(d.line);
  CHECK(narrow_pair(d, 112));
  CHECK(said(d, "narrow pair -> bn 112, cluster 1x4 -> 2x1: 3 column tiles of 80 read each A row 3 times over 199 k-blocks; "
                "two of 112 (224 columns for N 224) in pairs sharing it read it once, 40 pairs of the 66 the device runs at "
                "once, the schedule left to the wave model"));
  CHECK(d.config.param("schedule") == int64_t(GemmSchedule::StreamK));
  CHECK(d.config.param("multicast") != int64_t(GemmMulticast::Off));  // the pair shares A
  // Packing's tall tiles (192 x 128 in 2x2) give way too, back to 128 rows in two warpgroups.
  d = test::decide_h200(3870, 412, 6640);
  INFO(d.line);
  CHECK(narrow_pair(d, 208));
  CHECK(said(d, "bm 192 -> 128, consumers 3 -> 2, cluster 2x2 -> 2x1: 4 column tiles of 128 read each A row 2 times"));
  CHECK(d.config.param("schedule") == int64_t(GemmSchedule::SplitK));
  // 80 columns in 2x2 (four tiles across 289) -> two of 160; 4 tiles of 128 across 392 -> two of 208.
  CHECK(narrow_pair(test::decide_h200(3426, 289, 13136), 160));
  CHECK(narrow_pair(test::decide_h200(3794, 392, 14768), 208));
  CHECK(narrow_pair(test::decide_h200(5353, 384, 14288), 192));
}

TEST_CASE("gemm narrow pair: not taken over fewer k-blocks, where two tiles compute more columns, where the pick has two "
          "already, aligned rows, or what the spec names",
          "[samples][gemm][schedule]") {
  for (auto [m, n, k] : {// Under kGemmNarrowPairMinKblocks (99, 55 and 52 k-blocks).
                         std::tuple{4746, 288, 6336}, {4766, 438, 3488}, {4492, 422, 3296},
                         // Two of 176 (352 columns) against three of 112 (336) across 328.
                         {4342, 328, 9472},
                         // Two column tiles already (224 in 1x2, 128 and 160 in 2x2).
                         {7789, 432, 11520}, {6975, 248, 6944}, {6418, 304, 10848},
                         // Rows of 128-byte multiples (K 12800).
                         {5013, 224, 12800}}) {
    INFO(m << " x " << n << " x " << k);
    const samples::Sample::DeviceChoice d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK_FALSE(said(d, "narrow pair"));
  }
  // The spec names the cluster, the rows, the consumers or multicast.
  CHECK_FALSE(said(test::decide_h200(5013, 224, 12720, {}, {1, 2, 1}, true), "narrow pair"));
  CHECK_FALSE(said(test::decide_h200(5013, 224, 12720, {{"bm", 128}}), "narrow pair"));
  CHECK_FALSE(said(test::decide_h200(5013, 224, 12720, {{"consumers", 2}}), "narrow pair"));
  CHECK_FALSE(said(test::decide_h200(5013, 224, 12720, {{"multicast", int64_t(GemmMulticast::On)}}), "narrow pair"));
}
