// The GEMM's default path on a device's facts (samples/gemm_packing.cpp, gemm_device.cpp):
// multicast, packing (width and cluster together), the small tile and the small-M swap, each as
// the line `tilejit run` prints. No GPU needed.
#include <catch2/catch.hpp>

#include <tuple>

#include "generators/sample.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;
using samples::GemmSchedule;

TEST_CASE("gemm multicast auto: unclustered for one aligned wave or stream-K, 64-column pairs along N, else unchanged",
          "[samples][gemm][schedule]") {
  using samples::GemmMulticast;
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  struct Want {
    int64_t m, n, k;
    ir::Dim3 cluster;
    GemmMulticast multicast;
    const char* said;  // in the line for_device prints ("" : no multicast choice said)
  };
  const ir::Dim3 c1x1{1, 1, 1}, c1x2{1, 2, 1}, c2x1{2, 1, 1};
  const GemmMulticast off = GemmMulticast::Off, on = GemmMulticast::On;
  for (const Want& w : std::vector<Want>{
           // One wave, K at most 32 k-blocks, rows of 128-byte multiples: no cluster.
           {2048, 2048, 1024, c1x1, off, "multicast auto -> off, cluster 1x2 -> 1x1: 64 cluster tiles in one wave of 66 clusters, "
                                         "operand rows a multiple of 128 bytes: sharing loads gains less than pairing the pipelines costs"},
           {2048, 2048, 2048, c1x1, off, "multicast auto -> off, cluster 1x2 -> 1x1: 64 cluster tiles in one wave of 66 clusters"},
           {2048, 2048, 4096, c1x1, off, "-> 1x1: 64 cluster tiles in one wave"},
           {512, 8192, 8192, c1x1, off, "-> 1x1: 64 cluster tiles in one wave"},
           // Narrow widths (packing's) over a long K keep the pair, turned to share A (kGemmLongKblocks;
           // the spec naming its pair, else the long split takes the shape); over a short K unclustered.
           {1000, 1280, 16384, c2x1, on, "multicast auto -> on, cluster 1x2 -> 2x1: 80-column tiles over 256 k-blocks, where "
                                         "sharing loads relieves L2 (the pair shares A's 128 rows)"},
           {1280, 1152, 2048, c1x1, off, "multicast auto -> off, cluster 1x2 -> 1x1"},
           {1536, 1536, 1024, c1x1, off, "-> 1x1: 66 cluster tiles in one wave"},  // 144 columns (packing)
           // The narrow tile (64 x 128, one MMA warpgroup): its pairs in 1x2 without multicast, said with the tile.
           {1024, 1024, 1024, c1x2, off, ""},
           // K 1000: 2000-byte rows. 64-column tiles pair along N, multicast on.
           {1000, 1000, 1000, c2x1, on, "multicast auto -> on, cluster 1x2 -> 2x1: 64-column tiles, the pair shares A's 128 rows "
                                        "rather than B's 64 (operand rows not a multiple of 128 bytes)"},
           {1000, 1000, 2000, c2x1, on, "cluster 1x2 -> 2x1"},
           // Stream-K keeps the pair with multicast: with fewer than kGemmStreamKPairMinN rows of B
           // the spec's (a tail of 2 tiles past a whole wave); with more, 256 columns in 1x2.
           {8576, 512, 8192, c1x2, on, ""},
           {5120, 5120, 5120, c1x2, on, "stream-K tile -> bn 256 in 1x2 with multicast: B's 5120 rows take the widest tile"},
           // (127 k-blocks: one fewer, and kGemmStreamKSquareMinKblocks would take 192 x 192 coop cols in 2x1.)
           {4608, 2304, 8128, c1x2, on, "stream-K tile -> bn 256 in 1x2 with multicast: B's 2304 rows"},
           // 128-column tiles keep the cluster at K 1000; so do more waves than one.
           {2000, 1000, 1000, c1x2, on, ""},
           {8192, 8192, 1024, c1x2, on, ""},
           {4096, 2048, 2048, c1x2, on, ""},
       }) {
    INFO(w.m << " x " << w.n << " x " << w.k);
    samples::Config c = test::gemm_config({{"m", w.m}, {"n", w.n}, {"k", w.k}}, c1x2);
    // 1000 x 1280 x 16384 with the pair named: else the long split (kGemmLongSplit) takes it.
    if (w.m == 1000 && w.k == 16384) c.named.insert("cluster");
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.cluster.str() == w.cluster.str());
    CHECK(d->config.param("multicast") == int64_t(w.multicast));
    CHECK(samples::gemm_tiling(d->config).multicast == (w.multicast == on));
    CHECK(s->check_config(d->config).empty());
    CHECK(samples::gemm_tiling(d->config).stream_k == (w.n == 512 || w.n == 5120 || w.n == 2304));
    if (w.n == 5120 || w.n == 2304) CHECK(d->config.param("bn") == 256);
    if (*w.said) CHECK(d->line.find(w.said) != std::string::npos);
    else CHECK(d->line.find("multicast auto") == std::string::npos);
  }
  // From the 2x1 pair (the bench's and the CLI's default): 192-column stream-K tiles move to
  // 256 in 1x2 where B has kGemmStreamKPairMinN rows or more, under the wave model's schedule
  // for them (5187 x 3736: 315 cluster tiles of 256, 4.77 waves, static); else they keep the
  // width and the 2x1 pair, with multicast. Under kGemmStreamKSquareMinKblocks k-blocks, or
  // with the tile's rows named (bm 128), the 192 x 192 coop-cols tile does not take them.
  for (auto [m, n, k, bn, cluster, stream_k] :
       {std::tuple{4608, 2304, 8128, 256, c1x2, true}, {2392, 5744, 8128, 256, c1x2, true}, {4981, 1512, 10496, 192, c2x1, true},
        {5187, 3736, 13760, 256, c1x2, false}}) {
    INFO(m << " x " << n << " x " << k);
    samples::Config spec = test::gemm_config({{"m", m}, {"n", n}, {"k", k}}, c2x1);
    if (k == 13760) spec.params["bm"] = 128, spec.named.insert("params.bm");
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(spec, 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(samples::gemm_tiling(d->config).stream_k == stream_k);
    CHECK(d->config.param("schedule") == int64_t(stream_k ? samples::GemmSchedule::StreamK : samples::GemmSchedule::Static));
    CHECK(d->config.param("splits") == 1);
    CHECK(d->config.param("bn") == bn);
    CHECK(d->config.cluster.str() == cluster.str());
    CHECK(d->config.param("multicast") == int64_t(on));
    CHECK(s->check_config(d->config).empty());
    CHECK((d->line.find("stream-K tile -> bn 256 in 1x2 with multicast (was 192 columns in 2x1)") != std::string::npos) == (bn == 256));
    CHECK((d->line.find("schedule static for it: 315 cluster tiles on 66 clusters (4.77 waves)") != std::string::npos) == !stream_k);
    CHECK(d->line.find("multicast auto") == std::string::npos);
  }
  // One wave of 256-column tiles with clusters idle takes 192 columns where those still fit
  // one wave, and packing 144 where those fill it: 1536^2 (36 cluster tiles of 256 on 66
  // clusters, 48 of 192, 66 of 144); 2048^2 keeps 256 (88 of 192 would take two waves).
  for (auto [m, bn] : {std::pair{1536, 144}, {2048, 256}}) {
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(test::gemm_config({{"m", m}, {"n", m}, {"k", 1024}}, c1x2), 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") == bn);
  }
  // An explicit multicast, or an explicit tile width, keeps the requested cluster; so does
  // an unknown device (auto builds multicast on).
  samples::Config c = test::gemm_config({{"m", 2048}, {"n", 2048}, {"k", 1024}, {"multicast", int64_t(on)}}, c1x2);
  std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.cluster.str() == c1x2.str());
  c = test::gemm_config({{"m", 2048}, {"n", 2048}, {"k", 1024}, {"bn", 256}}, c1x2);
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.cluster.str() == c1x2.str());
  CHECK(d->config.param("multicast") == int64_t(GemmMulticast::Auto));
  CHECK(samples::gemm_tiling(d->config).multicast);
  // f16 with K 1000 is 2000-byte rows too; K 1024 in the nn layout needs N's rows aligned as well.
  c = test::gemm_config({{"m", 1024}, {"n", 1000}, {"k", 1024}, {"layout", 1}}, c1x2);
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  INFO(d->line);
  CHECK(d->config.param("multicast") == int64_t(on));
  CHECK(d->line.find("(operand rows not a multiple of 128 bytes)") != std::string::npos);
  c = test::gemm_config({{"m", 1024}, {"n", 1024}, {"k", 1024}, {"layout", 1}}, c1x2);
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.param("multicast") == int64_t(off));
}

TEST_CASE("gemm packing: width and cluster chosen together where the wave model's static waves beat the spec's cluster's width",
          "[samples][gemm][schedule]") {
  using samples::GemmMulticast;
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  const ir::Dim3 c1x1{1, 1, 1}, c1x2{1, 2, 1}, c2x1{2, 1, 1}, c2x2{2, 2, 1};
  struct Want {
    int64_t m, n, k;
    ir::Dim3 cluster;  // the spec's
    bool named;        // whether the spec names it
    int64_t bn;
    ir::Dim3 chosen;
    const char* said;  // in the line ("": no packing said)
  };
  for (const Want& w : std::vector<Want>{
           // 9 x 14 tiles of 256: one wave unclustered, two of 192 in pairs along M.
           {1152, 3584, 4096, c1x2, true, 256, c1x1,
            "packing -> bn 256, cluster 1x2 -> 1x1 without multicast: est. 0.65x the time of 192 columns in 1x2, the wave model's static waves"},
           // 18 x 7 tiles of 128 in one wave, against 192 (multicast auto then unclusters the pair).
           {2304, 896, 2048, c2x1, false, 128, c1x1, "packing -> bn 128, cluster 2x1 -> 1x2: est. 0.68x the time of 192 columns in 2x1"},
           // Two waves of the wide tile, 320 columns (kGemmWideBn), against three of 256 (four of 160: 0.87x).
           {1280, 8192, 2048, c1x2, true, 320, c1x2, "packing -> bn 320 in 1x2: est. 0.86x the time of 256 columns in 1x2"},
           // Widths of 16-column steps: 3 waves of 144 (18 x 11 cluster tiles) against 2 of 256, as cuBLAS tiles it.
           {4608, 1536, 1024, c2x1, false, 144, c1x2, "packing -> bn 144, cluster 2x1 -> 1x2: est. 0.88x the time of 256 columns in 2x1"},
           // One wave of 80 columns, all of K, against stream-K at 128; then, over the long K, 160
           // columns in 2 splits in 2x1 (kGemmLongSplit).
           {1000, 1280, 16384, c2x1, false, 160, c2x1, "packing -> bn 80, cluster 2x1 -> 1x2: est. 0.89x the time of 128 columns in 2x1"},
           // With the cluster named, no long split: 80 columns, which multicast auto keeps in a pair
           // over the long K, turned to share A (kGemmLongKblocks).
           {1000, 1280, 16384, c1x2, true, 80, c2x1, "packing -> bn 80 in 1x2: est. 0.89x the time of 128 columns in 1x2"},
           // 176 narrows 192 by 0.92x only (6 waves each): under kGemmFineMargin, no packing.
           {4224, 4224, 4096, c2x1, false, 192, c2x1, ""},
           // Unaligned rows: 5 waves of 320 columns against 7 of 256 (224 narrows 256 by 0.94x only) and 9 of 192.
           {5000, 5000, 1000, c1x2, true, 320, c1x2, "packing -> bn 320 in 1x2: est. 0.80x the time of 192 columns in 1x2"},
           // K 1000 (unaligned rows): 320 columns (4 tile columns exactly), the pair sharing B's rows
           // rather than A's, never unclustered (the wide tile spills alone).
           {8192, 1280, 1000, c2x1, false, 320, c1x2,
            "packing -> bn 320, cluster 2x1 -> 1x2: est. 0.67x the time of 256 columns in 2x1, the wave model's static waves with the "
            "TMA rows of unaligned operand rows"},
           // Split-K's regime: the default pair turns to share B where B has more rows and as few cluster tiles result.
           {256, 4096, 8192, c2x1, false, 128, c1x2, "cluster 2x1 -> 1x2: the pair shares B (4096 rows against A's 256) in as few cluster tiles"},
           {256, 4096, 8192, c2x1, true, 128, c2x1, ""},
           {640, 512, 12288, c2x1, false, 128, c2x1, ""},  // 5 tile rows: 12 cluster tiles along M against 10
           // ... unless the spec names the cluster (there 224 columns narrow 256 by 0.90x); whole
           // waves keep what they had.
           {8192, 1280, 1000, c2x1, true, 224, c2x1, "packing -> bn 224 in 2x1: est. 0.90x the time of 256 columns in 2x1"},
           {4096, 4096, 4096, c1x2, true, 256, c1x2, ""},
           {4096, 4096, 4096, c2x1, false, 256, c2x1, ""},
       }) {
    INFO(w.m << " x " << w.n << " x " << w.k << (w.named ? " named " : " default ") << w.cluster.str());
    samples::Config c = test::gemm_config({{"m", w.m}, {"n", w.n}, {"k", w.k}}, w.cluster);
    if (w.named) c.named.insert("cluster");
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") == w.bn);
    CHECK(d->config.cluster.str() == w.chosen.str());
    CHECK(s->check_config(d->config).empty());
    if (*w.said) CHECK(d->line.find(w.said) != std::string::npos);
    else CHECK(d->line.find("packing") == std::string::npos);
  }
  // Unaligned rows on a device that says how many clusters of 4 it runs (30 of 4, 66 of 2):
  // clusters of 4 where their fewer TMA rows per CTA pay and they fit the waves; 1x4 (B in
  // 64-row slices) at 256 columns, first where it ties 2x2 (7000 x 3000: 168 clusters of
  // either in 6 waves); the wide tile in a pair where it takes fewer waves (8192 x 1280: 2). The
  // spec names swap 0 here: packing either way round has its own cases
  // (tests/samples/test_gemm_packing_swap.cpp).
  const samples::Sample::DeviceFacts h200 = test::h200_facts();
  const ir::Dim3 c1x4{1, 4, 1};
  for (auto [m, n, k, bn, cluster] : {std::tuple{1536, 1000, 3000, 128, c2x2}, {2048, 2560, 3000, 320, c1x2}, {8192, 1280, 1000, 320, c1x2},
                                      {7000, 3000, 2200, 256, c1x4}, {1200, 6000, 1800, 256, c2x2}, {2000, 2000, 2000, 256, c1x2}}) {
    INFO(m << " x " << n << " x " << k);
    samples::Config c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}, {"swap", 0}}, c2x1);
    c.named.insert("params.swap");
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, h200);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") == bn);
    CHECK(d->config.cluster.str() == cluster.str());
    CHECK(s->check_config(d->config).empty());
    if (cluster.count() == 4) CHECK(d->line.find("cluster tiles on 30 clusters") != std::string::npos);
  }
  // Layout nn keeps to one wgmma's width: the wide tile is weighed for tn only.
  {
    const std::optional<samples::Sample::DeviceChoice> d =
        s->for_device(test::gemm_config({{"m", 8192}, {"n", 1280}, {"k", 1000}, {"layout", 1}}, c2x1), h200);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") <= 256);
  }
  // Without the device's count of clusters of 4, neither 2x2 nor 1x4 is weighed.
  {
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(test::gemm_config({{"m", 7000}, {"n", 3000}, {"k", 2200}}, c2x1), 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.cluster.count() == 2);
  }
  // The 1x4 choice (each CTA multicasts a 64-row slice of B to the four) lowers, passes the
  // transaction and race checks and compiles with NVRTC for sm_90a.
  {
    samples::Config c = test::gemm_config({{"m", 7000}, {"n", 3000}, {"k", 2200}, {"swap", 0}}, c2x1);
    c.named.insert("params.swap");
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, h200);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->line.find("packing -> bn 256, cluster 2x1 -> 1x4: est. 0.89x the time of 256 columns in 2x1") != std::string::npos);
    REQUIRE(d->config.cluster.str() == c1x4.str());
    CHECK(!samples::compile_sample(*s, d->config, codegen::Target::sm90a(), nullptr).ptx().empty());
  }
  // The 2x2 choice with beta and f32 out (C loaded by TMA into the chunk buffers) lowers,
  // passes the transaction and race checks and compiles with NVRTC for sm_90a.
  {
    samples::Config c = test::gemm_config({{"m", 1536}, {"n", 1000}, {"k", 3000}, {"out", 2}}, c2x1);
    c.reals["beta"] = 0.5;
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, h200);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") == 128);
    CHECK(d->config.cluster.str() == c2x2.str());
    CHECK(!samples::compile_sample(*s, d->config, codegen::Target::sm90a(), nullptr).ptx().empty());
  }
  // An explicit multicast keeps the spec's cluster and the width chosen for it.
  samples::Config c = test::gemm_config({{"m", 1152}, {"n", 3584}, {"k", 4096}, {"multicast", int64_t(GemmMulticast::On)}}, c1x2);
  const std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.cluster.str() == c1x2.str());
  CHECK(d->config.param("bn") == 192);
  CHECK(d->line.find("packing") == std::string::npos);
}

TEST_CASE("gemm small tile: 64 rows of one warpgroup in 2x2 clusters where split-K would take few tiles, the narrow tile does not "
          "apply, and the clusters fit one wave, 48 columns under the same schedule, the way round that reads fewer rows",
          "[samples][gemm][schedule]") {
  auto tile = [](const samples::Sample::DeviceChoice& d, int64_t bn, int64_t swap) {
    return d.config.param("bm") == 64 && d.config.param("bn") == bn && d.config.param("consumers") == 1 &&
           d.config.param("swap") == swap && d.config.cluster.str() == ir::Dim3{2, 2, 1}.str();
  };
  auto small = [&](const samples::Sample::DeviceChoice& d) { return tile(d, 64, 0); };
  auto any_small = [](const samples::Sample::DeviceChoice& d) {
    return d.config.param("bm") == 64 && d.config.param("consumers") == 1 && d.config.cluster.str() == ir::Dim3{2, 2, 1}.str();
  };
  // 188 x 1408 x 1608 (unaligned rows: no narrow tile): 3 x 22 square tiles of 64 would take 22
  // clusters of 2x2 on the 30 that fit, 88 CTAs of 128 operand rows a k-block (a quarter of them
  // past M); D^T = B A^T in 22 x 4 tiles of 64 of B's rows by 48 of A's takes as many CTAs of
  // 112 rows: swapped, static, all of K's 26 k-blocks each.
  samples::Sample::DeviceChoice d = test::decide_h200(188, 1408, 1608);
  INFO(d.line);
  CHECK(tile(d, 48, 1));
  CHECK(samples::gemm_kernel_shape(d.config).m == 1408);
  CHECK(d.config.param("schedule") == int64_t(GemmSchedule::Static));
  CHECK(d.line.find("bn 0 -> 48, bm 128 -> 64, consumers 2 -> 1, cluster 2x1 -> 2x2, swap 1, for 132 SMs: 6 cluster tiles of 256 "
                    "columns would need split-K, and 22 clusters of 2x2 64x48 tiles of D^T = B A^T (64 of B's rows by 48 of A's) fit "
                    "one wave of 30 under the square tile's schedule, each CTA reading 112 operand rows a k-block (the square "
                    "tile: 128), the way round that reads fewer in all") != std::string::npos);
  // 150 x 1800 x 1200: 3 x 29 square tiles take 30 clusters, swapped 30 x 4 of 48 as many, fewer rows each.
  CHECK(tile(test::decide_h200(150, 1800, 1200), 48, 1));
  // 48 columns the way round that reads fewer rows in all: 308 x 816 x 2680 in 27 clusters
  // unswapped (28 swapped), 100 x 2000 x 1500 unswapped (swapped it takes 32, past the wave).
  CHECK(tile(test::decide_h200(308, 816, 2680), 48, 0));
  CHECK(tile(test::decide_h200(100, 2000, 1500), 48, 0));
  // The square tile where its schedule splits K and the narrower tiles' would not (347 x 523 x
  // 3696: 15 clusters in 2 splits, each CTA over 29 k-blocks against 58), or where 48 columns
  // do not fit one wave either way round (128 x 3072 x 2048: 32 clusters, swapped 48).
  d = test::decide_h200(347, 523, 3696);
  CHECK(small(d));
  CHECK(d.config.param("schedule") == int64_t(GemmSchedule::SplitK));
  CHECK(small(test::decide_h200(128, 3072, 2048)));
  // A spec that names the swap keeps it: 48 columns unswapped.
  CHECK(tile(test::decide_h200(188, 1408, 1608, {{"swap", 0}}), 48, 0));
  // Few clusters: the schedule still splits K over the idle ones (172 x 568 x 1000: 10 clusters, swapped).
  d = test::decide_h200(172, 568, 1000);
  CHECK(tile(d, 48, 1));
  CHECK(d.config.param("schedule") == int64_t(GemmSchedule::SplitK));
  // Not taken: more clusters than fit (384 x 1536 x 3000: 3 x 12 = 36), a K over 64 k-blocks
  // (320 x 640 x 6000), the narrow tile's aligned splits (256 x 1024 x 2048), many tiles.
  for (auto [m, n, k] : {std::tuple{384, 1536, 3000}, {320, 640, 6000}, {256, 1024, 2048}, {4096, 4096, 4096}}) {
    INFO(m << " x " << n << " x " << k);
    CHECK_FALSE(any_small(test::decide_h200(m, n, k)));
  }
  // Nor where the spec names the rows or warpgroups, asks for a cluster of 4, or a layout or
  // type it was not measured on.
  for (const auto& named : std::vector<samples::Sample::DeviceChoice>{test::decide_h200(188, 1408, 1608, {{"bm", 128}}),
                                                                       test::decide_h200(188, 1408, 1608, {{"consumers", 2}}),
                                                                       test::decide_h200(188, 1408, 1608, {}, {2, 2, 1}),
                                                                       test::decide_h200(188, 1408, 1608, {{"layout", 1}})}) {
    INFO(named.line);
    CHECK_FALSE(any_small(named));
  }
  // A count alone (no clusters of 4 known): not taken.
  samples::Config blind = test::gemm_config({{"m", 188}, {"n", 1408}, {"k", 1608}}, {2, 1, 1});
  std::optional<samples::Sample::DeviceChoice> b = samples::find_sample("gemm")->for_device(blind, 132);
  REQUIRE(b.has_value());
  CHECK_FALSE(any_small(*b));
}

TEST_CASE("gemm small M: the swapped product in 2x1 pairs covering all of M where B's tiles fill one wave, rows 32 bytes apart",
          "[samples][gemm][schedule][swap]") {
  auto swapped = [](const samples::Sample::DeviceChoice& d, int64_t bn) {
    return d.config.param("swap") == 1 && d.config.param("bm") == 128 && d.config.param("bn") == bn &&
           d.config.cluster.str() == ir::Dim3{2, 1, 1}.str();
  };
  // 320 x 7168 x 12288: 56 pairs of 128 of B's rows by 160 of A's, all of M in each pair.
  samples::Sample::DeviceChoice d = test::decide_h200(320, 7168, 12288);
  INFO(d.line);
  CHECK(swapped(d, 160));
  CHECK(d.config.param("schedule") == int64_t(GemmSchedule::Static));
  CHECK(samples::gemm_kernel_shape(d.config).m == 7168);
  CHECK(d.line.rfind("small M -> swap 1, bm 128, bn 160, cluster 2x1 -> 2x1 with multicast: D^T = B A^T in 56 pairs of 128 of B's rows "
                     "by 160 of A's (one wave of 66), each pair covering all 320 rows of A and reading its B tile once for both",
                     0) == 0);
  CHECK(swapped(test::decide_h200(256, 8192, 8192), 128));
  CHECK(swapped(test::decide_h200(375, 8112, 14016), 192));
  CHECK(swapped(test::decide_h200(320, 7168, 8192, {{"bias", 1}, {"act", 2}}), 160));
  // Rows a multiple of 32 bytes apart, not of 128 (K 9056, 9184): halves up to 160 columns.
  CHECK(swapped(test::decide_h200(283, 7992, 9056), 144));
  CHECK(swapped(test::decide_h200(300, 7572, 9184), 160));
  CHECK(test::decide_h200(329, 7891, 17360).config.param("swap") == 0);
  CHECK(test::decide_h200(362, 6905, 8624).config.param("swap") == 0);
  // Not taken: rows 16 bytes past a multiple of 32 (K 16488), halves under 128 columns (M 239), B's pairs filling
  // under 0.8 of the wave (N 6144: 48 of 66) or more than one (N 8576: 67), a short K, a half
  // past 192 columns (M 512), or where the spec names the swap, the rows, or a cluster of 4.
  for (auto [m, n, k] : {std::tuple{344, 7552, 16488}, {239, 7952, 11648}, {384, 6144, 8192}, {320, 8576, 8192}, {320, 7168, 4096},
                         {512, 8192, 8192}}) {
    INFO(m << " x " << n << " x " << k);
    CHECK(test::decide_h200(m, n, k).config.param("swap") == 0);
  }
  CHECK(test::decide_h200(320, 7168, 12288, {{"swap", 0}}).config.param("swap") == 0);
  CHECK(test::decide_h200(320, 7168, 12288, {{"bm", 128}}).config.param("swap") == 0);
  CHECK(test::decide_h200(320, 7168, 12288, {}, {2, 2, 1}).config.param("swap") == 0);
  CHECK(test::decide_h200(320, 7168, 12288, {{"layout", 1}}).config.param("swap") == 0);
}

TEST_CASE("gemm packing: a pair along M gives way to four along M at its tile where K is long and the waves stay",
          "[samples][gemm][schedule][packing]") {
  auto quad = [](const samples::Sample::DeviceChoice& d) { return d.config.cluster.str() == ir::Dim3{1, 4, 1}.str(); };
  // 4342 x 328 x 9472: 128 x 112 tiles, 27 clusters of 1x4 on the 30 that fit (each CTA loading
  // 28 of B's 112 rows) where 51 pairs took one wave of 66 too.
  samples::Sample::DeviceChoice d = test::decide_h200(4342, 328, 9472);
  INFO(d.line);
  CHECK(quad(d));
  CHECK(d.config.param("bn") == 112);
  CHECK(d.line.find("packing -> bn 112, cluster 2x1 -> 1x4") != std::string::npos);
  CHECK(quad(test::decide_h200(5764, 177, 7163)));
  // The tall tile's pair too: 192 x 192 at 4446 x 893 x 3949.
  d = test::decide_h200(4446, 893, 3949);
  CHECK(quad(d));
  CHECK(d.config.param("bm") == 192);
  // Not taken: K under 32 k-blocks (19 at 3399 x 549 x 1210, 27 at 11516 x 255 x 1728), a cluster
  // named in the spec, or no count of clusters of 4 from the device.
  for (auto [m, n, k] : {std::tuple{3399, 549, 1210}, {11516, 255, 1728}}) {
    INFO(m << " x " << n << " x " << k);
    CHECK_FALSE(quad(test::decide_h200(m, n, k)));
  }
  samples::Config named = test::gemm_config({{"m", 4342}, {"n", 328}, {"k", 9472}}, {1, 2, 1});
  named.named.insert("cluster");
  std::optional<samples::Sample::DeviceChoice> n = samples::find_sample("gemm")->for_device(named, test::h200_facts());
  REQUIRE(n.has_value());
  CHECK_FALSE(quad(*n));
  samples::Config blind = test::gemm_config({{"m", 4342}, {"n", 328}, {"k", 9472}}, {2, 1, 1});
  std::optional<samples::Sample::DeviceChoice> b = samples::find_sample("gemm")->for_device(blind, 132);
  REQUIRE(b.has_value());
  CHECK_FALSE(quad(*b));
}
