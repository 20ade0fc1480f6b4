// Split-K's fitted pair (samples/gemm_device.cpp, kGemmSplitFit): where split-K would run tiles
// of 128 columns over an N of at most 256, one pair covers N exactly instead, in 8-column steps:
// one tile of N's width in 1x2 pairs sharing B up to 128 columns, else two of half of N in 2x1
// pairs sharing A. Decided on an H200's facts, as `tilejit run` prints them. No GPU needed.
#include <catch2/catch.hpp>

#include <tuple>

#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;
using samples::GemmSchedule;

namespace {
bool fitted(const samples::Sample::DeviceChoice& d, int64_t bn, const ir::Dim3& cluster) {
  return d.config.param("bn") == bn && d.config.param("bm") == 128 && d.config.param("consumers") == 2 &&
         d.config.param("swap") == 0 && d.config.cluster.str() == cluster.str() &&
         d.config.param("schedule") == int64_t(GemmSchedule::SplitK) && d.config.param("splits") > 1 &&
         d.line.find("split-K over N of ") != std::string::npos;
}
}  // namespace

TEST_CASE("gemm split fit: split-K's pair covers N of at most 256 columns exactly", "[samples][gemm][schedule]") {
  const ir::Dim3 pair_n{2, 1, 1}, pair_m{1, 2, 1};
  // 338 x 192 x 18144: two tiles of 96 in 2x1 where two of 128 covered 256 columns, the second
  // half past N (0.81x of the time on the H100).
  samples::Sample::DeviceChoice d = test::decide_h200(338, 192, 18144);
  INFO(d.line);
  CHECK(fitted(d, 96, pair_n));
  CHECK(d.line.find("split-K over N of 192: one pair of 96-column tiles covers it, not tiles of 128 partly past it") !=
        std::string::npos);
  CHECK(d.config.param("splits") == 22);
  // N of at most 128: one tile of N's width (in 8-column steps), pairs along M sharing B.
  d = test::decide_h200(350, 96, 20000);
  INFO(d.line);
  CHECK(fitted(d, 96, pair_m));
  CHECK(d.line.find("one tile of 96 columns covers it, cluster 2x1 -> 1x2 sharing B") != std::string::npos);
  // 64 columns fitted over a long K: split, not the short K's unsplit 64 columns.
  d = test::decide_h200(200, 64, 65536);
  INFO(d.line);
  CHECK(fitted(d, 64, pair_m));
  CHECK(d.line.find("short enough to run unsplit") == std::string::npos);
  // The shapes it ran faster at, fresh ones among them (0.66-0.97x of the time).
  for (auto [m, n, k, bn] : {std::tuple{461, 104, 12464, 104}, {179, 88, 19448, 88}, {168, 88, 13104, 88}, {558, 88, 9936, 88},
                             {678, 96, 11984, 96}}) {
    INFO(m << " x " << n << " x " << k);
    d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK(fitted(d, bn, pair_m));  // not then widened by the long split
  }
  for (auto [m, n, k, bn] : {std::tuple{189, 200, 9512, 104}, {222, 208, 12952, 104}, {190, 216, 8024, 112},
                             {193, 216, 15592, 112}, {358, 232, 16272, 120}, {480, 224, 14000, 112}}) {
    INFO(m << " x " << n << " x " << k);
    d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK(fitted(d, bn, pair_n));
  }
  // In the place of the narrow tile's splits (64 x 128 in 1x2 over rows of 128-byte multiples).
  for (auto [m, n, k, bn] : {std::tuple{300, 200, 16384, 104}, {400, 160, 16000, 80}}) {
    INFO(m << " x " << n << " x " << k);
    d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK(fitted(d, bn, pair_n));
  }
}

TEST_CASE("gemm split fit: where it does not apply", "[samples][gemm][schedule]") {
  // N over 256: tiles of 128 stay (two of 160-224 ran 1.03-1.09x slower).
  for (auto [m, n, k] : {std::tuple{256, 320, 12288}, {200, 448, 20000}, {512, 384, 12288}, {128, 352, 18000}}) {
    INFO(m << " x " << n << " x " << k);
    const samples::Sample::DeviceChoice d = test::decide_h200(m, n, k);
    INFO(d.line);
    CHECK(d.line.find("split-K over N of") == std::string::npos);
    CHECK(d.config.param("bn") % 64 == 0);
  }
  // A cluster the spec names, its multicast, or its tile's rows: the spec's.
  samples::Sample::DeviceChoice d = test::decide_h200(338, 192, 18144, {}, {2, 1, 1}, true);
  INFO(d.line);
  CHECK(d.line.find("split-K over N of") == std::string::npos);
  d = test::decide_h200(338, 192, 18144, {{"multicast", 0}});
  CHECK(d.line.find("split-K over N of") == std::string::npos);
  d = test::decide_h200(338, 192, 18144, {{"bm", 128}});
  CHECK(d.line.find("split-K over N of") == std::string::npos);
  // B N-major (nn): the 8-column steps are tn's.
  d = test::decide_h200(338, 192, 18144, {{"layout", int64_t(samples::GemmLayout::NN)}});
  INFO(d.line);
  CHECK(d.line.find("split-K over N of") == std::string::npos);
  // One row tile and one column tile: a pair along M would leave a CTA past M.
  d = test::decide_h200(100, 96, 20000);
  INFO(d.line);
  CHECK(d.line.find("split-K over N of") == std::string::npos);
  // N of 256: the spec's pair of 128 covers it already.
  d = test::decide_h200(300, 256, 16384);
  INFO(d.line);
  CHECK(d.line.find("split-K over N of") == std::string::npos);
  CHECK(d.config.param("bn") == 128);
  // Enough tiles to fill the GPU without split-K: the fitted width is not split-K's.
  d = test::decide_h200(8192, 192, 4096);
  INFO(d.line);
  CHECK(d.line.find("split-K over N of") == std::string::npos);
}
