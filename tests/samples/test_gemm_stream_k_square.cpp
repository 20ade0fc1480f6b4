// The stream-K square (samples/gemm_device.cpp, kGemmStreamKSquareMinKblocks): where the
// default path runs stream-K over B of at least kGemmStreamKPairMinN rows and a long K, 192 x
// 192 tiles whose consumers split the columns, in 2x1 pairs sharing A, under the wave model's
// schedule, where that model's time weighed by tile area is no more than the 256-column pair's;
// elsewhere the pair. Decided on an H200's facts. No GPU needed.
#include <catch2/catch.hpp>

#include <string>

#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;
using samples::GemmMulticast;
using samples::GemmSchedule;

namespace {
bool square(const samples::Sample::DeviceChoice& d) {
  const samples::GemmTiling t = samples::gemm_tiling(d.config);
  return t.bm == 192 && t.bn == 192 && t.split_cols && t.consumers == 2 && d.config.cluster.str() == ir::Dim3{2, 1, 1}.str() &&
         d.config.param("multicast") == int64_t(GemmMulticast::On) && d.line.find("stream-K tile -> bm 192, bn 192, coop cols in 2x1") != std::string::npos;
}
bool wide_pair(const samples::Sample::DeviceChoice& d) {
  return d.config.param("bn") == 256 && d.config.cluster.str() == ir::Dim3{1, 2, 1}.str() &&
         d.line.find("stream-K tile -> bn 256 in 1x2") != std::string::npos;
}
}  // namespace

TEST_CASE("gemm stream-K square: 192 x 192 coop cols in 2x1 over 128 k-blocks or more where the wave model's time by "
          "area is no more than the 256-column pair's",
          "[samples][gemm][schedule]") {
  // 2392 x 5744 x 13952: 218 k-blocks; 13 x 30 tiles of 192 make 195 pairs, 2.95 waves of
  // 66: static for them (the wave model), est. 0.92x the pair's stream-K time by area.
  samples::Sample::DeviceChoice d = test::decide_h200(2392, 5744, 13952);
  INFO(d.line);
  CHECK(square(d));
  CHECK(d.config.param("schedule") == int64_t(GemmSchedule::Static));
  CHECK(d.line.find("(was 128 x 192 in 2x1): 218 k-blocks, est. 0.92x the time of 256 in 1x2") != std::string::npos);
  CHECK(d.line.find("schedule static for it: 195 cluster tiles on 66 clusters (2.95 waves)") != std::string::npos);
  // Stream-K for the square: 1660 x 3056 x 15488 (72 pairs, 1.09 waves), 5187 x 3736 x 13760,
  // 2581 x 8010 x 14784.
  for (auto [m, n, k] : {std::tuple{1660, 3056, 15488}, {5187, 3736, 13760}, {2581, 8010, 14784}}) {
    d = test::decide_h200(m, n, k);
    INFO(m << " x " << n << " x " << k << ": " << d.line);
    CHECK(square(d));
    CHECK(d.config.param("schedule") == int64_t(GemmSchedule::StreamK));
    CHECK(d.config.param("splits") == 1);
  }
  // The wave model's time by area above the pair's: 5103 x 5053 x 16128 (378 square pairs of
  // 92.5% useful area against 400 of 98.4%), 4999 x 3696 x 12352, 4608 x 2304 x 8192.
  for (auto [m, n, k] : {std::tuple{5103, 5053, 16128}, {4999, 3696, 12352}, {4608, 2304, 8192}}) {
    d = test::decide_h200(m, n, k);
    INFO(m << " x " << n << " x " << k << ": " << d.line);
    CHECK(!square(d));
    CHECK(wide_pair(d));
  }
  // One k-block under kGemmStreamKSquareMinKblocks: the pair (at 8192, 128 k-blocks, the square).
  d = test::decide_h200(2392, 5744, 8128);
  INFO(d.line);
  CHECK(wide_pair(d));
  d = test::decide_h200(2392, 5744, 8192);
  INFO(d.line);
  CHECK(square(d));
}

TEST_CASE("gemm stream-K square: not where the spec names the cluster, coop or the tile's rows, nor over nn, 4-byte "
          "inputs or rows off 128-byte lines",
          "[samples][gemm][schedule]") {
  // The cluster named 1x2: the 256-column pair it names.
  samples::Sample::DeviceChoice d = test::decide_h200(2392, 5744, 13952, {}, {1, 2, 1}, true);
  INFO(d.line);
  CHECK(!square(d));
  CHECK(wide_pair(d));
  // The tile's rows, its warpgroups or coop named.
  for (const char* p : {"bm", "consumers", "coop"}) {
    d = test::decide_h200(2392, 5744, 13952, {{p, std::string(p) == "bm" ? 128 : std::string(p) == "consumers" ? 2 : 0}});
    INFO(p << ": " << d.line);
    CHECK(!square(d));
  }
  // nn: B as K x N.
  d = test::decide_h200(2392, 5744, 13952, {{"layout", int64_t(samples::GemmLayout::NN)}});
  INFO(d.line);
  CHECK(!square(d));
  // K 13960: rows 27920 bytes apart, 16 past a 128-byte line.
  d = test::decide_h200(2392, 5744, 13960);
  INFO(d.line);
  CHECK(!square(d));
  // Short K (5907 x 4992 x 2520, 40 k-blocks), where the square ran 0.93x of the default.
  d = test::decide_h200(5907, 4992, 2520);
  INFO(d.line);
  CHECK(!square(d));
}
