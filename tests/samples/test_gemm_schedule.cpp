// The GEMM's `schedule auto` (samples/gemm_schedule.cpp): the wave model's choices and
// what `tilejit run` prints for them (Sample::for_device). No GPU needed.
#include <catch2/catch.hpp>

#include <tuple>

#include "generators/runner.h"
#include "generators/sample.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/gemm_test_support.h"
#include "tests/samples/sample_test_support.h"

using namespace tj;
using samples::GemmSchedule;

namespace {
samples::GemmScheduleChoice choose(int64_t m, int64_t n, int64_t k, ir::Dim3 cluster, int sms) {
  const samples::Config c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}, {"bn", 256}}, cluster);
  return samples::gemm_auto_schedule(samples::gemm_shape(c), samples::gemm_tiling(c), sms);
}
}  // namespace

TEST_CASE("gemm schedule auto: split-K for few tiles, static for whole waves, stream-K for a tail worth its fix-ups",
          "[samples][gemm][schedule]") {
  // 2048 x 4096: 16 x 16 tiles of 128 x 256 = 256 = two waves of 128 SMs.
  samples::GemmScheduleChoice c = choose(2048, 4096, 4096, {1, 1, 1}, 128);
  CHECK(c.schedule == GemmSchedule::Static);
  CHECK(c.why == "256 cluster tiles on 128 clusters (2.00 waves): whole waves, no tail");
  // 32 tiles on 132 SMs with a long K: split-K, 4 ranges (as splits 0 would run).
  c = choose(1024, 1024, 8192, {1, 1, 1}, 132);
  CHECK(c.schedule == GemmSchedule::SplitK);
  CHECK(c.splits == 4);
  CHECK(c.why == "32 cluster tiles on 132 clusters (0.24 waves): split-K, each tile's 128 k-blocks in 4 ranges run by different clusters");
  // 4224^2 at 1x2: 17 x 17 = 289 cluster tiles on 66 clusters, 4.38 waves: the last wave's
  // idle clusters cost less than stream-K's partials (measured on the H200).
  c = choose(4224, 4224, 4096, {1, 2, 1}, 132);
  CHECK(c.schedule == GemmSchedule::Static);
  CHECK(c.why.rfind("289 cluster tiles on 66 clusters (4.38 waves): static 5 waves of 64 k-blocks, the last 38% busy; stream-K est. ", 0) == 0);
  CHECK(c.why.find("too little to gain") != std::string::npos);
  // 68 cluster tiles on 66 clusters with a long K: a second wave of 2 tiles against 68
  // tiles' k-blocks shared by every cluster.
  c = choose(128 * 67, 512, 8192, {1, 2, 1}, 132);
  CHECK(c.schedule == GemmSchedule::StreamK);
  CHECK(c.why.rfind("68 cluster tiles on 66 clusters (1.03 waves): static 2 waves of 128 k-blocks, the last 3% busy; stream-K est. 0.66x", 0) == 0);
  CHECK(c.why.find("(the k-blocks of the last 68 tiles shared by every cluster)") != std::string::npos);
  // 5120^3 at 1x2: 400 cluster tiles, 6.06 waves: the seventh wave holds 4 tiles, which
  // stream-K spreads (measured on the H200: 0.995x cuBLAS against 0.892x static).
  c = choose(5120, 5120, 5120, {1, 2, 1}, 132);
  CHECK(c.schedule == GemmSchedule::StreamK);
  CHECK(c.why.rfind("400 cluster tiles on 66 clusters (6.06 waves): static 7 waves of 80 k-blocks, the last 6% busy; stream-K est. 0.93x", 0) == 0);
  // Fewer tiles than clusters: the narrow tile (64 x 128, one MMA warpgroup) stays static
  // (72 tiles of 2304x256x8192 in 36 pairs); 192 columns unclustered keep stream-K (96 tiles of
  // 3072x768x12288 on 132 SMs).
  {
    samples::Config n = test::gemm_config({{"m", 2304}, {"n", 256}, {"k", 8192}, {"bm", 64}, {"bn", 128}, {"consumers", 1}}, {1, 2, 1});
    c = samples::gemm_auto_schedule(samples::gemm_shape(n), samples::gemm_tiling(n), 132);
    CHECK(c.schedule == GemmSchedule::Static);
    CHECK(c.why.find("36 cluster tiles on 66 clusters (0.55 waves): static 1 wave of 128 k-blocks, the last 55% busy; stream-K est. ") == 0);
    CHECK(c.why.find("; the narrow tile on fewer tiles than clusters stays static") != std::string::npos);
    n = test::gemm_config({{"m", 3072}, {"n", 768}, {"k", 12288}, {"bn", 192}});
    c = samples::gemm_auto_schedule(samples::gemm_shape(n), samples::gemm_tiling(n), 132);
    CHECK(c.schedule == GemmSchedule::StreamK);
  }
  // 133 tiles on 132 SMs with a short K: one more wave of 2 k-blocks costs less than the fix-ups.
  c = choose(128 * 133, 256, 128, {1, 1, 1}, 132);
  CHECK(c.schedule == GemmSchedule::Static);
  CHECK(c.why.find("too little to gain") != std::string::npos);
}

TEST_CASE("gemm schedule auto: for_device resolves it and says why, an explicit schedule stays", "[samples][gemm][schedule]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  samples::Config c = test::gemm_config({{"m", 128 * 67}, {"n", 512}, {"k", 8192}, {"bn", 256}}, {1, 2, 1});
  REQUIRE(c.param("schedule") == int64_t(GemmSchedule::Auto));
  std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.param("schedule") == int64_t(GemmSchedule::StreamK));
  CHECK(d->line.rfind("schedule auto -> stream_k for 132 SMs: 68 cluster tiles on 66 clusters (1.03 waves)", 0) == 0);
  CHECK(samples::gemm_tiling(d->config).stream_k);
  CHECK(s->check_config(d->config).empty());
  // Few tiles: split-K with its count.
  c = test::gemm_config({{"m", 1024}, {"n", 1024}, {"k", 8192}, {"bn", 256}});
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.param("schedule") == int64_t(GemmSchedule::SplitK));
  CHECK(d->config.param("splits") == 4);
  CHECK(d->line.rfind("schedule auto -> split_k (splits 4) for 132 SMs: 32 cluster tiles", 0) == 0);
  CHECK(s->check_config(d->config).empty());
  // Explicit: nothing to decide about the schedule (bn given too: no choice at all).
  c.params["schedule"] = int64_t(GemmSchedule::Static);
  CHECK_FALSE(s->for_device(c, 132).has_value());
  // An explicit split count under auto is split-K, resolved at splits 0 as before.
  c.params["schedule"] = int64_t(GemmSchedule::Auto), c.params["splits"] = 0;
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.param("schedule") == int64_t(GemmSchedule::SplitK));
  CHECK(d->config.param("splits") == 4);
  // bn 0 and auto together: 8576 x 512 has 68 cluster tiles of 256 columns (a second wave of
  // 2, which stream-K absorbs) against 102 of 192 (1.55 waves): 256 and stream-K.
  c = test::gemm_config({{"m", 128 * 67}, {"n", 512}, {"k", 8192}}, {1, 2, 1});
  REQUIRE(c.param("bn") == 0);
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.param("bn") == 256);
  CHECK(d->config.param("schedule") == int64_t(GemmSchedule::StreamK));
  // Few tiles, where the narrow tile does not apply (kGemmNarrowRows: 1024 x 1024 takes it):
  // 256 x 4096 x 8192 (68 MiB of operands) has 8 cluster tiles of 256 columns in 4 splits (3
  // partials per tile) against 16 of 128 in 2 (1 partial), the same k-blocks per CTA: 128
  // columns and 2 splits. 1024 x 2048 takes 128 columns unsplit (64 cluster tiles fill the
  // GPU) over 256 in 2 splits: measured 7.5% faster on the H200.
  for (auto [m, n, bn, splits] : {std::tuple{256, 4096, 128, 2}, {1024, 2048, 128, 1}}) {
    INFO(m << " x " << n << " x 8192");
    c = test::gemm_config({{"m", m}, {"n", n}, {"k", 8192}}, {1, 2, 1});
    d = s->for_device(c, 132);
    REQUIRE(d.has_value());
    CHECK(d->config.param("bn") == bn);
    CHECK(d->config.param("schedule") == int64_t(splits > 1 ? GemmSchedule::SplitK : GemmSchedule::Static));
    CHECK(d->config.param("splits") == splits);
    CHECK(s->check_config(d->config).empty());
    if (splits > 1) CHECK(d->line.find("split-K, each tile's 128 k-blocks in 2 ranges") != std::string::npos);
    else CHECK(d->line.find("schedule auto -> static for 132 SMs: 64 cluster tiles on 66 clusters") != std::string::npos);
    // 256 x 4096 x 8192 (68 MiB, over 40) keeps the workspace and the 1x2 cluster's multicast.
    CHECK(d->config.cluster.z == 1u);
    // Unsplit, one wave of aligned rows: unclustered (multicast auto).
    CHECK(d->config.cluster.y == (splits > 1 ? 2u : 1u));
    CHECK_FALSE(samples::gemm_tiling(d->config).split_in_cluster);
    CHECK(s->check_config(d->config).empty());
    if (splits > 1)
      CHECK(d->line.find("; split_reduce auto -> workspace: A and B take 68 MiB, over 40 MiB, where the cluster's multicast "
                         "pays more") != std::string::npos);
  }
  // The splits go into a cluster of their own, a plane each (1x1x2), where A and B take at
  // most 40 MiB and the narrow tile does not apply: 1024 x 1024 x 8192 with bm named.
  c = test::gemm_config({{"m", 1024}, {"n", 1024}, {"k", 8192}, {"bm", 128}}, {1, 2, 1});
  c.named.insert("params.bm");
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  INFO(d->line);
  CHECK(d->config.param("bn") == 128);
  CHECK(d->config.param("splits") == 2);
  CHECK(d->config.cluster.str() == ir::Dim3{1, 1, 2}.str());
  CHECK(samples::gemm_tiling(d->config).split_in_cluster);
  CHECK(s->check_config(d->config).empty());
  CHECK(d->line.find("; split_reduce auto -> cluster: cluster 1x2 -> 1x1x2, the 2 splits of a tile on the planes of one "
                     "cluster, partials added through distributed shared memory") != std::string::npos);
  // 512 x 1024 x 8192 (24 MiB): 32 tiles of 128 columns in 4 splits; 32-column shares
  // are narrower than a chunk, so the cluster would share by rows, 4 CTAs per cluster: not
  // in the cluster (on the H200 only 30 such clusters fit at once); 4 splits add their
  // partials atomically.
  c = test::gemm_config({{"m", 512}, {"n", 1024}, {"k", 8192}}, {1, 2, 1});
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  INFO(d->line);
  CHECK(d->config.param("bn") == 128);
  CHECK(d->config.param("splits") == 4);
  CHECK(d->config.cluster.str() == ir::Dim3{1, 2, 1}.str());
  CHECK_FALSE(samples::gemm_tiling(d->config).split_in_cluster);
  CHECK(s->check_config(d->config).empty());
  CHECK(d->line.find("; split_reduce auto -> atomic: 4 splits of 128 columns would share by rows in clusters of 4 CTAs, "
                     "which may not all fit at once (split_reduce cluster takes them); 4 splits add their partials into one "
                     "slot per tile in L2, so the tile's last split reads one partial, not 3") != std::string::npos);
  CHECK(d->config.param("split_reduce") == int64_t(samples::GemmSplitReduce::Atomic));
  // deterministic 1 keeps the workspace.
  c.params["deterministic"] = 1;
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.param("split_reduce") == int64_t(samples::GemmSplitReduce::Auto));
  CHECK(d->line.find("; split_reduce auto -> workspace: 4 splits of 128 columns") != std::string::npos);
  c.params.erase("deterministic");
  // split_reduce workspace keeps the splits in separate clusters.
  c = test::gemm_config({{"m", 1024}, {"n", 1024}, {"k", 8192}, {"split_reduce", int64_t(samples::GemmSplitReduce::Workspace)}}, {1, 2, 1});
  d = s->for_device(c, 132);
  REQUIRE(d.has_value());
  CHECK(d->config.param("splits") == 2);
  CHECK(d->config.cluster.z == 1);
  CHECK_FALSE(samples::gemm_tiling(d->config).split_in_cluster);
  // Where split-K would take few tiles and the rows are aligned: the narrow tile, 64 x 128 of
  // one MMA warpgroup in 1x2 clusters without multicast, when its pairs fill more than half
  // the 66 clusters in one wave (1024 x 1024: 64 pairs; 512 x 2048: 64; 2048 x 512: 64;
  // 768 x 1024: 48; 960 x 1000: 8 x 8 = 64, ragged) at any K. 256 x 1024 (16 pairs) takes
  // it in splits of K (below); 512 x 1024 x 8192 (32 pairs: 2 splits) keeps split-K at 128.
  for (auto [m, n, k] : {std::tuple{1024, 1024, 8192}, {1024, 1024, 4096}, {1024, 1024, 2048}, {1024, 1024, 1024},
                         {512, 2048, 2048}, {512, 2048, 4096}, {2048, 512, 8192}, {768, 1024, 2048}, {960, 1000, 4096}}) {
    INFO(m << " x " << n << " x " << k);
    c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}}, {1, 2, 1});
    d = s->for_device(c, 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") == 128);
    CHECK(d->config.param("bm") == 64);
    CHECK(d->config.param("consumers") == 1);
    CHECK(d->config.param("multicast") == int64_t(samples::GemmMulticast::Off));
    CHECK(d->config.cluster.str() == ir::Dim3{1, 2, 1}.str());
    CHECK(d->config.param("schedule") == int64_t(GemmSchedule::Static));
    CHECK(d->config.param("splits") == 1);
    CHECK(samples::gemm_tiling(d->config).mma_depth == 2);
    CHECK(samples::gemm_tiling(d->config).stages == 8);
    CHECK(s->check_config(d->config).empty());
    const uint64_t pairs = (uint64_t(m) / 64 + 1) / 2 * ((uint64_t(n) + 127) / 128);
    CHECK(d->line.rfind("bn 0 -> 128, bm 128 -> 64, consumers 2 -> 1, cluster 1x2 -> 1x2 without multicast, for 132 SMs: ", 0) == 0);
    CHECK(d->line.find(" cluster tiles of 256 columns would need split-K; " + std::to_string(pairs) +
                       " pairs of 64x128 tiles fill one wave of 66 clusters with all of K each, one MMA warpgroup reading "
                       "each operand byte once; schedule auto -> static") != std::string::npos);
  }
  // Pairs of 128 columns that leave clusters idle narrow in 16-column steps while the pairs fit
  // one wave, where the rate model puts the tile kGemmNarrowWidthGain ahead and the last tile
  // column lies inside B (n a multiple of the width, or the edge moved back): 256 x 2560 (40
  // pairs) -> 80 (64), 2000 x 384 (48) -> 96 (64), 384 x 2048 -> 96 (66, last column 32: moved);
  // not 768 x 1024 (96 leaves a last column of 64; 112's gain is under the margin), not with
  // beta (no move: 384 x 2048 stays 128), not nn.
  for (auto [m, n, k, layout, beta, want] :
       {std::tuple{256, 2560, 3072, 0, 0.0, 80}, {2000, 384, 3072, 0, 0.0, 96}, {384, 2048, 4096, 0, 0.0, 96},
        {512, 1536, 6144, 0, 0.0, 96}, {768, 1024, 4096, 0, 0.0, 128}, {384, 2048, 4096, 0, 0.5, 128},
        {256, 2560, 3072, 1, 0.0, 128}}) {
    INFO(m << " x " << n << " x " << k << " layout " << layout << " beta " << beta);
    c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}, {"layout", layout}}, {2, 1, 1});
    c.reals["beta"] = beta;
    d = s->for_device(c, 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bm") == 64);
    CHECK(d->config.param("bn") == want);
    CHECK(d->config.param("schedule") == int64_t(GemmSchedule::Static));
    CHECK(s->check_config(d->config).empty());
    const uint64_t pairs = (uint64_t(m) / 64 + 1) / 2 * ((uint64_t(n) + want - 1) / want);
    CHECK(d->line.find(std::to_string(pairs) + " pairs of 64x" + std::to_string(want) + " tiles fill one wave") != std::string::npos);
  }
  // Packing's width under 128 columns over a long K (kGemmLongSplit) gives way to the
  // narrowest width from 128 whose 2x1 pairs in 2 splits fit one wave: 1000 x 1280 x 16384 (80)
  // -> 160, 1024 x 1120 -> 144, 1200 x 1000 -> 176; not at 1100 x 1280 x 12288 (9 tile rows:
  // a pair's CTA past m), at K 4096 (64 k-blocks), nor where the spec names the cluster.
  // Where no packing width was taken and 128 columns would run stream-K in less than one wave,
  // odd tile rows too: 1917 x 680 x 13088 (15 tile rows; 2x2 at 96 columns would take 32
  // clusters of 4 where 30 fit) -> 176, 2867 x 432 x 19480 -> 224; not 1971 x 696 x 11168,
  // where packing takes 128 columns in 2x2, static.
  for (auto [m, n, k, named, want] :
       {std::tuple{1000, 1280, 16384, false, 160}, {1024, 1120, 16384, false, 144}, {1200, 1000, 16384, false, 176},
        {1100, 1280, 12288, false, 0}, {1000, 1280, 8192, false, 160}, {1000, 1280, 4096, false, 0},
        {1000, 1280, 16384, true, 0}, {1917, 680, 13088, false, 176}, {2867, 432, 19480, false, 224},
        {1971, 696, 11168, false, 0}}) {
    INFO(m << " x " << n << " x " << k << (named ? " cluster named" : ""));
    c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}}, {2, 1, 1});
    if (named) c.named.insert("cluster");
    d = s->for_device(c, samples::Sample::DeviceFacts{132, [](unsigned ctas) { return ctas == 4 ? 30 : 132 / int(ctas); }});
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(s->check_config(d->config).empty());
    if (want == 0) {
      CHECK(d->line.find("long split") == std::string::npos);
      continue;
    }
    CHECK(d->config.param("bn") == want);
    CHECK(d->config.cluster.str() == ir::Dim3{2, 1, 1}.str());
    CHECK(d->config.param("schedule") == int64_t(GemmSchedule::SplitK));
    CHECK(d->config.param("splits") == 2);
    CHECK(d->line.find("long split -> bn " + std::to_string(want) + " in 2x1, split-K 2") != std::string::npos);
  }
  // Split-K in the workspace or by atomic adds, B exactly 4 tile columns of 128: the 2x1 pair
  // gives way to 4x1 (kGemmSplitQuadCols) where its clusters for every split fit at once
  // (640 x 512: 5 x 6 = 30; 896 x 512 x 12000: 7 x 4 = 28; 1280 x 512: 10 x 3 = 30); not at
  // 1024 x 512 x 8192 (8 x 4 = 32), nor with 3 tile columns (384), nor where the device does not
  // say how many clusters of 4 fit, nor with the cluster named.
  for (auto [m, n, k, fit, named, quad] :
       {std::tuple{640, 512, 12288, 30, false, true}, {896, 512, 12000, 30, false, true}, {1280, 512, 8192, 30, false, true},
        {1024, 512, 8192, 30, false, false}, {1024, 512, 8192, 32, false, true}, {640, 384, 12288, 30, false, false},
        {640, 512, 12288, 0, false, false}, {640, 512, 12288, 30, true, false}}) {
    INFO(m << " x " << n << " x " << k << ", " << fit << " clusters of 4 fit" << (named ? ", cluster named" : ""));
    c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}}, {2, 1, 1});
    if (named) c.named.insert("cluster");
    d = s->for_device(c, samples::Sample::DeviceFacts{132, [fit = fit](unsigned ctas) { return ctas == 4 ? fit : 132 / int(ctas); }});
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(s->check_config(d->config).empty());
    CHECK(d->config.param("schedule") == int64_t(GemmSchedule::SplitK));
    CHECK((d->config.cluster.str() == ir::Dim3{4, 1, 1}.str()) == quad);
    CHECK((d->line.find("split quad -> cluster 2x1 -> 4x1") != std::string::npos) == quad);
    if (quad) CHECK(d->config.param("multicast") == int64_t(samples::GemmMulticast::On));
  }
  // Pairs that fill at most 2/3 of the wave: where 128-row tiles in the spec's pair split K
  // in 3 (kGemmNarrowYieldSplits), those run instead (2304 x 256: 36 pairs, 18 cluster tiles
  // of 128 x 128 in 2x1; 1280 x 512: 40, 20; 768 x 768: 36, 18); with 2 splits (1536 x 384:
  // 24 cluster tiles; 1152 x 768: 27; 1280 x 640: 30) the narrow tile stays.
  for (auto [m, n, k, narrow] : {std::tuple{2304, 256, 8192, false}, {1280, 512, 8192, false}, {768, 768, 8192, false},
                                 {1536, 384, 8192, true}, {1152, 768, 8192, true}, {1280, 640, 4096, true}}) {
    INFO(m << " x " << n << " x " << k);
    d = s->for_device(test::gemm_config({{"m", m}, {"n", n}, {"k", k}}, {2, 1, 1}), 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") == (m == 1536 ? 96 : 128));  // 1536 x 384: 36 pairs narrow to 48 of 96 columns
    CHECK(d->config.param("bm") == (narrow ? 64 : 128));
    CHECK(d->config.param("consumers") == (narrow ? 1 : 2));
    CHECK(d->config.param("schedule") == int64_t(narrow ? GemmSchedule::Static : GemmSchedule::SplitK));
    CHECK(d->config.param("splits") == (narrow ? 1 : 3));
    CHECK(s->check_config(d->config).empty());
  }
  // Fewer pairs: the narrow tile in splits of K where they fill the clusters in at least
  // kGemmNarrowMinSplits (384 x 512: 12 pairs, 5 splits; 256 x 1024: 16 pairs, 4), with the
  // workspace (its 64 x 128 partials do not deal out to the planes of a cluster); 640 x 512
  // (20 pairs, 3 splits) and 768 x 512 (24, 2) keep split-K at 128 columns of two warpgroups.
  for (auto [m, n, k, splits] : {std::tuple{384, 512, 8192, 5}, {256, 1024, 8192, 4}, {640, 512, 12288, 0}, {768, 512, 12288, 0}}) {
    INFO(m << " x " << n << " x " << k);
    c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}}, {2, 1, 1});
    d = s->for_device(c, 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") == 128);
    CHECK(d->config.param("schedule") == int64_t(GemmSchedule::SplitK));
    CHECK(s->check_config(d->config).empty());
    if (splits == 0) {
      CHECK(d->config.param("bm") == 128);
      CHECK(d->line.find("in splits of K") == std::string::npos);
      continue;
    }
    CHECK(d->config.param("bm") == 64);
    CHECK(d->config.param("consumers") == 1);
    CHECK(d->config.param("splits") == splits);
    CHECK(d->config.param("multicast") == int64_t(samples::GemmMulticast::Off));
    CHECK(d->config.cluster.str() == ir::Dim3{1, 2, 1}.str());
    CHECK_FALSE(samples::gemm_tiling(d->config).split_in_cluster);
    CHECK(d->line.find("pairs of 64x128 tiles fill one wave of 66 clusters in splits of K, their partials half a 128-row "
                       "tile's; schedule auto -> split_k (splits " + std::to_string(splits) + ")") != std::string::npos);
  }
  // The pairs count against the 2-CTA clusters the device says it runs at once: 64 pairs
  // fit 64 (one wave of 64), not 60 (split-K in the cluster instead).
  for (auto [fit, narrow] : {std::pair{64, true}, {60, false}}) {
    INFO(fit << " clusters of 2 fit");
    const samples::Sample::DeviceFacts facts(132, [fit = fit](unsigned ctas) { return ctas == 2 ? fit : 0; });
    d = s->for_device(test::gemm_config({{"m", 1024}, {"n", 1024}, {"k", 4096}}, {1, 2, 1}), facts);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bm") == (narrow ? 64 : 128));
    if (narrow) CHECK(d->line.find("64 pairs of 64x128 tiles fill one wave of 64 clusters") != std::string::npos);
    else CHECK(d->config.param("splits") == 2);
  }
  // Named rows or warpgroups, an explicit split_reduce, a larger cluster, unaligned rows (K
  // 1000: the 64-column rule below takes it) or large operands keep the narrow tile out.
  {
    c = test::gemm_config({{"m", 1024}, {"n", 1024}, {"k", 4096}, {"split_reduce", int64_t(samples::GemmSplitReduce::Cluster)}}, {1, 2, 1});
    d = s->for_device(c, 132);
    REQUIRE(d.has_value());
    CHECK(d->config.param("bm") == 128);
  }
  for (const char* named : {"params.bm", "params.consumers", "params.pingpong", "params.warp_specialized"}) {
    INFO(named);
    c = test::gemm_config({{"m", 1024}, {"n", 1024}, {"k", 4096}}, {1, 2, 1});
    c.named.insert(named);
    d = s->for_device(c, 132);
    REQUIRE(d.has_value());
    CHECK(d->config.param("bm") == 128);
  }
  for (auto [m, n, k, cluster] : {std::tuple{1024, 1024, 4096, ir::Dim3{2, 2, 1}}, {1000, 1000, 1000, ir::Dim3{1, 2, 1}},
                                  {1024, 1024, 24576, ir::Dim3{1, 2, 1}}}) {
    INFO(m << " x " << n << " x " << k << " cluster " << cluster.str());
    d = s->for_device(test::gemm_config({{"m", m}, {"n", n}, {"k", k}}, cluster), 132);
    REQUIRE(d.has_value());
    CHECK(d->config.param("bm") == 128);
    CHECK(d->config.param("consumers") == 2);
  }
  // A short K where split-K would take few tiles and the narrow tile does not apply (bm
  // named): 64 columns unsplit, when they fill more than half the 66 clusters in one wave
  // (1024 x 1024: 64 cluster tiles; 512 x 2048: 64; 768 x 1024: 48) and K is at most 32
  // k-blocks. 256 x 1024 (16 cluster tiles of 64 columns) and K 4096 (64 k-blocks) keep split-K.
  for (auto [m, n, k, bn] : {std::tuple{1024, 1024, 2048, 64}, {1024, 1024, 1024, 64}, {512, 2048, 2048, 64}, {768, 1024, 2048, 64},
                             {1024, 1024, 4096, 128}, {256, 1024, 2048, 128}, {1024, 1024, 2112, 128}}) {
    INFO(m << " x " << n << " x " << k);
    c = test::gemm_config({{"m", m}, {"n", n}, {"k", k}}, {1, 2, 1});
    c.named.insert("params.bm");
    d = s->for_device(c, 132);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") == bn);
    CHECK(s->check_config(d->config).empty());
    if (bn == 64) {
      CHECK(d->config.param("schedule") == int64_t(GemmSchedule::Static));
      CHECK(d->config.param("splits") == 1);
      // One wave with K of at most 32 k-blocks and 128-byte rows: unclustered (multicast auto).
      CHECK(d->config.cluster.str() == ir::Dim3{1, 1, 1}.str());
      CHECK(d->config.param("multicast") == int64_t(samples::GemmMulticast::Off));
      CHECK(d->line.find(" of 64, one wave: K of " + std::to_string(k / 64) + " k-blocks is short enough to run unsplit)") !=
            std::string::npos);
    } else {
      CHECK(d->config.param("schedule") == int64_t(GemmSchedule::SplitK));
    }
  }
  // Without a device, auto builds the static kernel.
  c = test::gemm_config({{"m", 4224}, {"n", 4224}, {"k", 4096}}, {1, 2, 1});
  CHECK_FALSE(samples::gemm_tiling(c).stream_k);
  CHECK(samples::gemm_tiling(c).splits == 1);
}

TEST_CASE("gemm split_reduce: where split-K's partials meet, what auto picks, and what cluster refuses", "[samples][gemm][schedule][splitk]") {
  using samples::GemmSplitReduce;
  using P = std::vector<std::pair<std::string, std::string>>;
  const int64_t cluster = int64_t(GemmSplitReduce::Cluster), workspace = int64_t(GemmSplitReduce::Workspace);
  const std::map<std::string, int64_t> split = {{"m", 1024}, {"n", 1024}, {"k", 8192}, {"bn", 128}, {"schedule", 3}, {"splits", 2}};
  auto with = [&](std::map<std::string, int64_t> extra) {
    std::map<std::string, int64_t> p = split;
    for (auto& [k, v] : extra) p[k] = v;
    return p;
  };
  // auto: in the cluster exactly when the cluster has splits planes along z.
  CHECK(samples::gemm_tiling(test::gemm_config(split, {1, 2, 2})).split_in_cluster);
  CHECK_FALSE(samples::gemm_tiling(test::gemm_config(split, {1, 2, 1})).split_in_cluster);
  CHECK(test::config_problems("gemm", test::gemm_config(split, {1, 2, 2})).empty());
  // The shares received take shared memory: 5 stages of 128x128 instead of 6.
  CHECK(samples::gemm_tiling(test::gemm_config(split, {1, 2, 2})).stages == 5);
  CHECK(samples::gemm_tiling(test::gemm_config(split, {1, 2, 1})).stages == 6);
  // 256 columns in the cluster would leave 2 stages: auto keeps the workspace, and then the
  // planes along z have nothing to hold.
  CHECK_FALSE(samples::gemm_tiling(test::gemm_config(with({{"bn", 256}}), {1, 2, 2})).split_in_cluster);
  CHECK(test::config_problems("gemm", test::gemm_config(with({{"bn", 256}}), {1, 2, 2})) ==
        P{{"cluster", "a cluster of 2 along z holds a tile's splits (split-K in the cluster): set schedule split_k with splits 2 and "
                      "split_reduce auto or cluster, or a cluster [x, y]"}});
  CHECK(test::config_problems("gemm", test::gemm_config(with({{"split_reduce", workspace}}), {1, 2, 2})).size() == 1);
  // cluster asked where it cannot run: the reason, at params.split_reduce.
  CHECK(test::config_problems("gemm", test::gemm_config(with({{"split_reduce", cluster}}), {1, 2, 1})) ==
        P{{"params.split_reduce", "split_reduce cluster: a tile's splits are the cluster's planes along z: splits 2 with 1 along z: "
                                  "use split_reduce auto or workspace, or a cluster [x, y, splits]"}});
  // bn 64 in 2 splits: one chunk of each warpgroup's rows per plane. In 4 splits (2 chunks
  // of 2 warpgroups) or bn 192 in 4 (6 pieces): no equal deal.
  CHECK(test::config_problems("gemm", test::gemm_config(with({{"split_reduce", cluster}, {"bn", 64}}), {1, 2, 2})).empty());
  CHECK(test::config_problems("gemm", test::gemm_config(with({{"split_reduce", cluster}, {"bn", 128}, {"splits", 4}}), {1, 1, 4})).empty());
  CHECK(test::config_problems("gemm", test::gemm_config(with({{"split_reduce", cluster}, {"bn", 64}, {"splits", 4}}), {1, 1, 4})) ==
        P{{"params.split_reduce", "split_reduce cluster: each of the 4 splits writes whole chunks of 64 columns (128 bytes of D), "
                                  "bn / 4 of them or an equal part of one warpgroup's: bn = 64 with 2 MMA warpgroups does not split "
                                  "so: use split_reduce auto or workspace, or a cluster [x, y, splits]"}});
  CHECK(test::config_problems("gemm", test::gemm_config(with({{"split_reduce", cluster}, {"bn", 192}, {"splits", 4}}), {1, 1, 4})).size() == 1);
  // Shares by rows with C read (beta != 0): refused, the chunk buffers' reuse is not race-checked.
  {
    samples::Config beta = test::gemm_config(with({{"split_reduce", cluster}, {"bn", 128}, {"splits", 4}}), {1, 1, 4});
    beta.reals["beta"] = 0.5;
    CHECK(test::config_problems("gemm", beta) ==
          P{{"params.split_reduce", "split_reduce cluster: bn / 4 columns are narrower than a chunk of 64, and shares by rows "
                                    "with C or the residual loaded into the chunk buffers are not race-checked yet: use a bn of 4 "
                                    "or more whole chunks: use split_reduce auto or workspace, or a cluster [x, y, splits]"}});
  }
  CHECK(test::config_problems("gemm", test::gemm_config(with({{"split_reduce", cluster}, {"splits", 4}}), {2, 2, 4}))
            .front() == std::pair<std::string, std::string>{"cluster", "the GEMM takes a cluster [x (along N), y (along M), z (splits "
                                                                      "in the cluster)] of at most 8 CTAs"});
  // Every check of the kernel is decided: shares by columns, and by rows (bn 128 in 4 splits).
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  for (const samples::Config& c : {test::gemm_config(split, {1, 2, 2}),
                                   test::gemm_config(with({{"split_reduce", cluster}, {"bn", 128}, {"splits", 4}}), {1, 1, 4})}) {
    INFO("cluster " << c.cluster.str());
    codegen::Lowered l = codegen::lower(s->build(c), codegen::Target::sm90a());
    std::vector<std::string> lines;
    for (const auto& r : l.races) lines.push_back(codegen::race::to_string(r));
    for (const auto& t : l.transactions) lines.push_back(codegen::to_string(t));
    bool split_full = false;
    for (const std::string& x : lines) {
      INFO(x);
      CHECK(x.find("not") == std::string::npos);
      split_full |= x.rfind("barrier 'split_full' in the loop at gemm_kernel.cpp:", 0) == 0 && x.find(": verified") != std::string::npos;
    }
    CHECK(split_full);
  }
}

TEST_CASE("gemm schedule dynamic: whole tiles claimed at run time, its limits, and every check verified", "[samples][gemm][schedule]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  samples::Config c = test::gemm_config({{"m", 8576}, {"n", 512}, {"k", 8192}, {"bn", 256}, {"schedule", 4}}, {2, 1, 1});
  CHECK(samples::gemm_tiling(c).dynamic);
  CHECK_FALSE(samples::gemm_tiling(c).stream_k);
  CHECK(s->check_config(c).empty());
  CHECK_FALSE(s->for_device(c, 132).has_value());  // explicit: nothing to decide
  codegen::Lowered l = codegen::lower(s->build(c), codegen::Target::sm90a());
  std::vector<std::string> lines;
  for (const auto& r : l.races) lines.push_back(codegen::race::to_string(r));
  for (const auto& t : l.transactions) lines.push_back(codegen::to_string(t));
  auto has = [&](const std::string& what) {
    for (const std::string& x : lines)
      if (x.find(what) != std::string::npos) return true;
    return false;
  };
  CHECK(has("barrier 'tj_dyn_full' in the loop at gemm_kernel.cpp:"));
  CHECK(has("async proxy: verified"));
  for (const std::string& x : lines) CHECK(x.find("not checked") == std::string::npos);
  using P = std::vector<std::pair<std::string, std::string>>;
  samples::Config split = c;
  split.params["splits"] = 2;
  CHECK(test::config_problems("gemm", split) ==
        P{{"params.splits", "schedule dynamic claims whole tiles: use splits 1 with it, or schedule split_k"}});
  samples::Config one_cluster_per_tile = c;
  one_cluster_per_tile.params["persistent"] = 0;
  CHECK(test::config_problems("gemm", one_cluster_per_tile) ==
        P{{"params.persistent", "schedule dynamic claims tiles for the clusters of a persistent grid: set persistent 1"}});
}

TEST_CASE("gemm stream-K units load their k-blocks from the last down and split-K units from the first up", "[samples][gemm][schedule]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  const int64_t stream_k = int64_t(GemmSchedule::StreamK), split_k = int64_t(GemmSchedule::SplitK);
  const std::map<std::string, int64_t> p = {{"m", 4224}, {"n", 4224}, {"k", 4096}, {"bn", 256}, {"schedule", stream_k}};
  // The K coordinate of both operands' loads: k-block ((first + count) - 1) - i of a unit, i
  // counting up from 0 (concurrent units then read the same k-block at the same time).
  const std::string down = "(((((sk_first + sk_count) - 1) - i) * 64) + 0)";
  for (ir::Dim3 cluster : {ir::Dim3{1, 2, 1}, ir::Dim3{1, 1, 1}}) {
    INFO("cluster " << cluster.str());
    const std::string cuda = codegen::lower(s->build(test::gemm_config(p, cluster)), codegen::Target::sm90a()).cuda;
    CHECK(test::count(cuda, "&A, " + down) == 1);
    CHECK(test::count(cuda, "&B, " + down) == 1);
    CHECK(test::count(cuda, "sk_first + i") == 0);
  }
  std::map<std::string, int64_t> split = p;
  split["schedule"] = split_k, split["splits"] = 2;
  const std::string cuda = codegen::lower(s->build(test::gemm_config(split, {1, 2, 1})), codegen::Target::sm90a()).cuda;
  CHECK(test::count(cuda, "&A, (((((split * (((k + 64) - 1) / 64)) / splits) + i) * 64) + 0)") == 1);
  CHECK(test::count(cuda, "- i) * 64)") == 0);
}

TEST_CASE("gemm split_reduce auto keeps the requested cluster as each plane where those clusters all fit at once", "[samples][gemm][schedule][splitk]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  // As the H200 answers: 66 clusters of 2 CTAs, 30 of 4 (its GPCs' SMs do not divide by 4).
  std::vector<unsigned> asked;
  const samples::Sample::DeviceFacts h200(132, [&](unsigned ctas) {
    asked.push_back(ctas);
    return ctas == 2 ? 66 : ctas == 4 ? 30 : 14;
  });
  // 768 x 1024 x 8192: 48 tiles of 128 columns in 2 splits, 24 clusters of 1x2x2: they fit.
  // 1024 x 1024 x 8192: 32 such clusters do not (a second round): a CTA per plane.
  for (auto [m, whole_planes] : {std::tuple{768, true}, {1024, false}}) {
    INFO(m << " x 1024 x 8192");
    asked.clear();
    samples::Config c = test::gemm_config({{"m", m}, {"n", 1024}, {"k", 8192}}, {1, 2, 1});
    c.named.insert("params.bm");  // else the narrow tile takes these shapes unsplit
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, h200);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(d->config.param("bn") == 128);
    CHECK(d->config.param("splits") == 2);
    CHECK(asked == std::vector<unsigned>{4});
    CHECK(samples::gemm_tiling(d->config).split_in_cluster);
    CHECK(s->check_config(d->config).empty());
    if (whole_planes) {
      CHECK(d->config.cluster.str() == ir::Dim3{1, 2, 2}.str());
      CHECK(d->line.find("split_reduce auto -> cluster: cluster 1x2 -> 1x2x2, the 2 splits of a tile on the planes of one cluster, "
                         "partials added through distributed shared memory (24 clusters of 4 CTAs; 30 fit at once)") !=
            std::string::npos);
    } else {
      CHECK(d->config.cluster.str() == ir::Dim3{1, 1, 2}.str());
      CHECK(d->line.find("cluster 1x2 -> 1x1x2, the 2 splits of a tile on the planes of one cluster, partials added through "
                         "distributed shared memory (32 clusters of 4 CTAs would not all fit: 30 at once)") != std::string::npos);
    }
    // A count alone (no query): a CTA per plane, as before the device was asked.
    const std::optional<samples::Sample::DeviceChoice> blind = s->for_device(c, 132);
    REQUIRE(blind.has_value());
    CHECK(blind->config.cluster.str() == ir::Dim3{1, 1, 2}.str());
  }
  // A 1x1 request has no plane to keep: nothing is asked.
  asked.clear();
  samples::Config c11 = test::gemm_config({{"m", 768}, {"n", 1024}, {"k", 8192}}, {1, 1, 1});
  c11.named.insert("params.bm");
  const std::optional<samples::Sample::DeviceChoice> d = s->for_device(c11, h200);
  REQUIRE(d.has_value());
  CHECK(d->config.cluster.str() == ir::Dim3{1, 1, 2}.str());
  CHECK(asked.empty());
}

TEST_CASE("gemm stream_k_tail: the split tail's plan in the lowered kernel, the hybrid's unchanged without it, and refused "
          "without stream-K",
          "[samples][gemm][schedule][stream_k_tail]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  const int64_t stream_k = int64_t(GemmSchedule::StreamK);
  std::map<std::string, int64_t> p = {{"m", 4224}, {"n", 4224}, {"k", 4096}, {"bn", 256}, {"schedule", stream_k}};
  const std::string hybrid = codegen::lower(s->build(test::gemm_config(p, {1, 2, 1})), codegen::Target::sm90a()).cuda;
  p["stream_k_tail"] = 1;
  const samples::Config tail_config = test::gemm_config(p, {1, 2, 1});
  CHECK(test::gemm_problems(tail_config).empty());
  const std::string tail = codegen::lower(s->build(tail_config), codegen::Target::sm90a()).cuda;
  // The hybrid's share count is a clamp of the clusters; the split tail's picks the tail's
  // ranges (tiles % clusters times clusters / that) where they are 2 or more of 4+ k-blocks.
  const std::string clamp = "sk_share_workers = tj::max_(1, tj::min_(tj::num_clusters_x(), (sk_iters / 4)));";
  const std::string two_or_more = "tj::num_clusters_x()), 1)) >= 2)";  // clusters / max(tiles % clusters, 1) >= 2
  CHECK(test::count(hybrid, clamp) == 1);
  CHECK(test::count(hybrid, two_or_more) == 0);
  CHECK(test::count(tail, clamp) == 0);
  CHECK(test::count(tail, two_or_more) >= 2);  // in sk_tiles and in sk_share_workers
  // Without stream-K it would change nothing: refused, naming the field.
  for (const int64_t other : {int64_t(GemmSchedule::Static), int64_t(GemmSchedule::SplitK), int64_t(GemmSchedule::Dynamic)}) {
    p["schedule"] = other;
    const std::vector<std::string> problems = test::gemm_problems(test::gemm_config(p, {1, 2, 1}));
    INFO(other);
    REQUIRE(!problems.empty());
    bool named = false;
    for (const std::string& q : problems) named = named || q.find("params.stream_k_tail: stream_k_tail 1 shapes stream-K's last wave") == 0;
    CHECK(named);
  }
  p["schedule"] = int64_t(GemmSchedule::Auto);
  CHECK(test::gemm_problems(test::gemm_config(p, {1, 2, 1})).empty());
}
