// What the GEMM decides for the device that runs it (Sample::for_device): the tile's width
// (and the narrow tile's rows and warpgroups), split-K's count, the schedule, multicast and
// the cluster, and where split-K's partials meet; each choice with a line that says why.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <vector>

#include "samples/gemm.h"
#include "samples/gemm_device_rules.h"

namespace tj::samples {

namespace device_rules {
std::string xy(const ir::Dim3& c) { return std::to_string(c.x) + "x" + std::to_string(c.y); }
// A tile width's rate against 256 columns on the H200 (more operand bytes per flop when
// narrower): 192 about 3% slower per element, 128 kGemmRate128, linear between them; below
// 128 as the operand bytes per flop grow (1 / bn + 1 / bm at bm 128), scaled to 128's rate.
double width_rate(unsigned bn) {
  if (bn > 256) return kGemmWideRate;
  if (bn >= 256) return 1.0;
  if (bn >= 192) return 0.97 + 0.03 * (bn - 192) / 64.0;
  if (bn >= 128) return kGemmRate128 + (0.97 - kGemmRate128) * (bn - 128) / 64.0;
  return kGemmRate128 / (1.0 + kGemmNarrowBytesCost * (1.0 / bn - 1.0 / 128));
}
// Cluster tiles of t's bm and cluster with `bn` columns per CTA.
uint64_t cluster_tiles(const GemmShape& s, const GemmTiling& t, unsigned bn) {
  return ceil_div(ceil_div(uint64_t(s.m), t.bm), t.cluster_m) * ceil_div(ceil_div(uint64_t(s.n), bn), t.cluster_n);
}
bool rows_aligned(const GemmShape& s, uint64_t pitch) {
  const uint64_t eb = ir::scalar_bytes(s.in);
  return uint64_t(s.a_pitch()) * eb % pitch == 0 && uint64_t(s.b_pitch()) * eb % pitch == 0;
}
int model_sms(const Sample::DeviceFacts& device, unsigned ctas) {
  const std::optional<int> fit = ctas > 2 ? device.clusters_that_fit(ctas) : std::nullopt;
  return fit && *fit > 0 ? std::min(device.sm_count, *fit * int(ctas)) : device.sm_count;
}

// Whether the spec leaves the tile's rows and warpgroups (bm, consumers, pingpong,
// warp_specialized) and split_reduce to the defaults (bm 128 in 2 cooperative consumers) and asks
// for a cluster of at most 2: where a tile rule of the default path may replace the tile.
bool default_tile_shape(const Config& c) {
  for (const char* p : {"params.bm", "params.consumers", "params.pingpong", "params.warp_specialized"})
    if (c.named.count(p)) return false;
  const GemmTiling t = gemm_tiling(c);
  return t.bm == 128 && t.consumers == 2 && !t.pingpong && t.warp_specialized && c.cluster.count() <= 2 &&
         GemmSplitReduce(c.param("split_reduce")) == GemmSplitReduce::Auto;
}
}  // namespace device_rules

using namespace device_rules;

unsigned gemm_auto_bn(const GemmShape& s, const GemmTiling& t, int sm_count) {
  if (sm_count <= 0) return kGemmDefaultBn;
  const uint64_t cluster = uint64_t(t.cluster_m) * t.cluster_n, clusters = std::max<uint64_t>(1, uint64_t(sm_count) / cluster);
  // Estimated time: waves of cluster tiles over the clusters that fit at once, times a
  // tile's width over its relative rate (192 columns: about 3% slower per element on the
  // H200, more operand bytes per flop). Ties keep 256.
  auto cost = [&](unsigned bn, double rate) { return double(ceil_div(cluster_tiles(s, t, bn), clusters)) * bn / rate; };
  // A GPU that 256-column tiles do not fill keeps them (fewer tiles than clusters: split-K's case).
  if (cost(256, 1.0) <= 256) return 256;
  return cost(192, width_rate(192)) < cost(256, 1.0) ? 192 : 256;
}

namespace {

// Where bn 0 takes the narrow tile (kGemmNarrowRows x kGemmNarrowCols, one MMA warpgroup,
// 1x2 without multicast) for c, whose 256-column tiles would run split-K: the spec leaves the
// tile's rows, warpgroups and split_reduce to the defaults and asks for a cluster of at most 2,
// the rows are aligned, the operands small enough, and the pairs fill more than half of one wave
// of the 2-CTA clusters the device runs at once (as it says, else half its SMs), all of K each,
// unless 128-row tiles would split K kGemmNarrowYieldSplits ways there;
// or fill the wave in at least kGemmNarrowMinSplits splits of K each (`split` says so): that
// count of clusters, 0 where the tile does not apply.
struct NarrowTile {
  uint64_t clusters = 0;
  bool split = false;
};
NarrowTile narrow_tile_clusters(const Config& c, const GemmShape& s, const Sample::DeviceFacts& device) {
  if (!default_tile_shape(c) || !rows_aligned(s)) return {};
  const GemmTiling t = gemm_tiling(c);
  const uint64_t operands = (uint64_t(s.m) + uint64_t(s.n)) * uint64_t(s.k) * ir::scalar_bytes(s.in);
  const uint64_t pairs = ceil_div(ceil_div(uint64_t(s.m), kGemmNarrowRows), 2) * ceil_div(uint64_t(s.n), kGemmNarrowCols);
  if (operands > kGemmSplitInClusterOperandBytes || pairs == 0) return {};
  const uint64_t clusters = uint64_t(std::max(0, device.clusters_that_fit(2).value_or(device.sm_count / 2)));
  const uint64_t cap = gemm_auto_split_cap(ceil_div(uint64_t(s.k), t.bk));
  if (pairs <= clusters && 2 * pairs > clusters) {
    // 128-row tiles in the spec's pair split K in kGemmNarrowYieldSplits or more where the
    // narrow pairs leave a third of the wave idle: each CTA then runs at most 2/3 of a
    // narrow tile's k-blocks, on more SMs.
    const uint64_t wide_splits = std::min<uint64_t>(cap, clusters / std::max<uint64_t>(1, cluster_tiles(s, t, kGemmNarrowCols)));
    const bool yield = wide_splits >= kGemmNarrowYieldSplits && ceil_div(uint64_t(s.k), t.bk) >= kGemmNarrowYieldMinKblocks;
    return yield ? NarrowTile{} : NarrowTile{clusters, false};
  }
  const uint64_t splits = std::min<uint64_t>(cap, clusters / pairs);
  return splits >= kGemmNarrowMinSplits ? NarrowTile{clusters, true} : NarrowTile{};
}

// Where bn 0 takes the small tile (kGemmSmallTile rows of one MMA warpgroup, 2x2 clusters with
// multicast) for c, whose 256-column tiles would run split-K and where the narrow tile does
// not apply: the spec leaves the tile's rows, warpgroups and split_reduce to the defaults, asks
// for a cluster of at most 2, the layout is tn with 2-byte inputs, K is at most
// kGemmSmallTileMaxKblocks, and square small tiles' 2x2 clusters all fit in one wave of the
// clusters of 4 the device runs at once. Then its orientation and width (SmallTile): of the
// square tile and kGemmSmallTileNarrowCols columns, each either way round (swapped: D^T = B A^T,
// the 64 rows along N), whose clusters still fit the wave and whose schedule splits K as the
// square tile's does, the one whose CTAs each read the fewest operand rows per k-block (they are
// bound by the bytes they read); on a tie, the one reading the fewest over all its CTAs. (Where
// the square tile's clusters leave enough of the wave idle for its schedule to split K and a
// narrower tile's fill it unsplit, each of those CTAs would run over twice the k-blocks.) The
// schedule then splits K only where the clusters leave most of the wave idle.
struct SmallTile {
  uint64_t clusters = 0;  // the clusters of 4 the device runs at once; 0: the tile does not apply
  bool swap = false;
  unsigned bn = kGemmSmallTile;
  uint64_t tiles = 0;     // its 2x2 clusters
};
SmallTile small_tile(const Gemm& gemm, const Config& c, const GemmShape& s, const Sample::DeviceFacts& device) {
  if (!default_tile_shape(c)) return {};
  const GemmTiling t = gemm_tiling(c);
  if (s.layout != GemmLayout::TN || ir::scalar_bytes(s.in) != 2 || ceil_div(uint64_t(s.k), t.bk) > kGemmSmallTileMaxKblocks) return {};
  const uint64_t quads = uint64_t(std::max(0, device.clusters_that_fit(4).value_or(0)));
  auto clusters = [](uint64_t rows, uint64_t cols, unsigned bn) {
    return ceil_div(ceil_div(rows, kGemmSmallTile), 2) * ceil_div(ceil_div(cols, bn), 2);
  };
  SmallTile best{quads, false, kGemmSmallTile, clusters(s.m, s.n, kGemmSmallTile)};
  if (best.tiles == 0 || best.tiles > quads) return {};
  // The schedule the wave model gives a candidate, on the clusters of 4 that run at once.
  const int sms = int(std::min<uint64_t>(uint64_t(std::max(device.sm_count, 0)), quads * 4));
  auto config = [&](bool swap, unsigned bn) {
    Config v = c;
    v.params["bm"] = kGemmSmallTile, v.params["consumers"] = 1, v.params["bn"] = int64_t(bn);
    if (swap) v.params["swap"] = 1;
    v.cluster = {2, 2, 1};
    return v;
  };
  auto splits = [&](const Config& v) {
    const GemmScheduleChoice a = gemm_auto_schedule(gemm_kernel_shape(v), gemm_tiling(v), sms);
    return std::pair{a.schedule, a.splits};
  };
  const auto square_splits = splits(config(false, kGemmSmallTile));
  // The operand rows a k-block brings into all the CTAs: 4 per cluster, kGemmSmallTile + bn each.
  auto rows = [](const SmallTile& p) { return p.tiles * 4 * (kGemmSmallTile + p.bn); };
  const bool may_swap = !c.named.count("params.swap") && !t.swap;
  for (const bool swap : {false, true})
    for (const unsigned bn : {kGemmSmallTile, kGemmSmallTileNarrowCols}) {
      if (swap && !may_swap) continue;
      const Config v = config(swap, bn);
      const SmallTile p{quads, swap, bn, swap ? clusters(s.n, s.m, bn) : clusters(s.m, s.n, bn)};
      if (p.tiles > quads || !gemm.check_config(v).empty() || splits(v) != square_splits) continue;
      if (p.bn < best.bn || (p.bn == best.bn && rows(p) < rows(best))) best = p;
    }
  return best;
}

// The narrow tile's width where its pairs run unsplit in one wave of `clusters`: the
// narrowest multiple of 16 from kGemmNarrowCols down to kGemmMinPackedBn (tn) whose pairs
// still fit, where the rate model puts its tile kGemmNarrowWidthGain ahead of 128 columns',
// and whose last tile column lies wholly inside B: n a multiple of the width, or the edge's
// tiles moved back (`edges_move`: less than half a tile left over). In one wave the slowest
// pair sets the time, and a B box partly past n slows its CTA (768x1024x4096 and x6144 ran
// 0.86x at 96 columns, a last column of 64, against 128; see kGemmNarrowWidthGain).
unsigned narrow_width(const GemmShape& s, uint64_t clusters, bool edges_move) {
  auto tile_time = [](unsigned w) { return double(w) * (1.0 + kGemmNarrowBytesCost * (1.0 / w - 1.0 / kGemmNarrowCols)); };
  const uint64_t row_pairs = ceil_div(ceil_div(uint64_t(s.m), kGemmNarrowRows), 2), n = uint64_t(s.n);
  unsigned best = kGemmNarrowCols;
  if (s.layout != GemmLayout::TN) return best;
  for (unsigned w = kGemmNarrowCols - 16; w >= kGemmMinPackedBn; w -= 16) {
    const bool inside = n % w == 0 || (edges_move && n >= w && n % w * 2 < w);
    if (inside && row_pairs * ceil_div(n, w) <= clusters && tile_time(kGemmNarrowCols) >= kGemmNarrowWidthGain * tile_time(w))
      best = w;
  }
  return best;
}

// multicast auto with the tile width chosen (kGemmAlignedPitch): a 2-CTA cluster on one
// wave of whole tiles runs unclustered where the operands' rows are 128-byte aligned; else
// (stream-K too) multicast stays on, with 64-column tiles the pair along N.
void choose_multicast(const Gemm& gemm, Sample::DeviceChoice& d, int sm_count, const Say& say) {
  Config& c = d.config;
  const GemmShape s = gemm_kernel_shape(c);
  const GemmTiling t = gemm_tiling(c);
  const std::string was = xy(c.cluster);
  if (c.cluster.count() != 2 || c.cluster.z != 1 || t.splits != 1 || t.dynamic) {
    c.params["multicast"] = int64_t(GemmMulticast::On);
    return;
  }
  const uint64_t tiles = cluster_tiles(s, t, t.bn), clusters = uint64_t(sm_count) / 2;
  const bool aligned = rows_aligned(s);
  // ... where narrow tiles over a long K keep the pair (kGemmLongKblocks), along N where A's
  // rows are more than B's and that makes no more cluster tiles.
  // (Never tiles wider than one wgmma: ptxas spills them unclustered, kGemmWideBn.)
  const bool unclusters = tiles <= clusters && aligned && t.bn <= 256;
  if (unclusters && t.bn < 128 && ceil_div(uint64_t(s.k), t.bk) >= kGemmLongKblocks) {
    c.params["multicast"] = int64_t(GemmMulticast::On);
    Config along_n = c;
    along_n.cluster = {2, 1, 1};
    const bool turn = c.cluster.y == 2 && t.bm > t.bn && cluster_tiles(s, gemm_tiling(along_n), t.bn) <= tiles &&
                      gemm.check_config(along_n).empty();
    if (turn) c.cluster = along_n.cluster;
    say("multicast auto -> on" + (turn ? ", cluster " + was + " -> 2x1" : std::string(" in ") + was) + ": " +
        std::to_string(t.bn) + "-column tiles over " + std::to_string(ceil_div(uint64_t(s.k), t.bk)) +
        " k-blocks, where sharing loads relieves L2" + (turn ? " (the pair shares A's " + std::to_string(t.bm) + " rows)" : ""));
    return;
  }
  if (unclusters) {
    c.params["multicast"] = int64_t(GemmMulticast::Off);
    c.cluster = {1, 1, 1};
    say("multicast auto -> off, cluster " + was + " -> 1x1: " + std::to_string(tiles) + " cluster tiles in one wave of " +
        std::to_string(clusters) + " clusters, operand rows a multiple of " + std::to_string(kGemmAlignedPitch) +
        " bytes: sharing loads gains less than pairing the pipelines costs");
    return;
  }
  c.params["multicast"] = int64_t(GemmMulticast::On);
  Config along_n = c;
  along_n.cluster = {2, 1, 1};
  if (t.bn == 64 && c.cluster.y == 2 && cluster_tiles(s, gemm_tiling(along_n), 64) <= clusters &&
      gemm.check_config(along_n).empty()) {
    c.cluster = along_n.cluster;
    say("multicast auto -> on, cluster " + was + " -> 2x1: 64-column tiles, the pair shares A's " + std::to_string(t.bm) +
        " rows rather than B's 64" + (aligned ? "" : " (operand rows not a multiple of " + std::to_string(kGemmAlignedPitch) + " bytes)"));
  }
}
}  // namespace

namespace {
// Split-K's regime with the spec's default pair (2x1, sharing A; no cluster named): the pair
// along M instead, sharing B, where B has more rows than A and the pairs along M make no more
// cluster tiles. Few tiles over a long K read their operands from DRAM more than once
// otherwise: each tile column of the larger B read by as many clusters as there are tile rows.
// On the H200 the two pairs ran alike at 256x4096x8192 and 256x1024x8192 (1x2 / 2x1 0.997
// and 0.996, same process): no gain measured yet. Odd tile rows make more cluster tiles along
// M, which this keeps out (640x512x12288: 2x1 ran 1.30x faster than 1x2).
bool pair_along_m(const Config& c, const GemmShape& s, unsigned bn) {
  if (c.named.count("cluster") || c.cluster.x != 2 || c.cluster.y != 1 || c.cluster.z != 1 || s.n <= s.m) return false;
  GemmTiling t = gemm_tiling(c);
  const uint64_t along_n = cluster_tiles(s, t, bn);
  t.cluster_n = 1, t.cluster_m = 2;
  return cluster_tiles(s, t, bn) <= along_n;
}

struct SplitFit {
  unsigned bn = 0;        // 0: the rule does not apply
  bool along_m = false;   // one tile covers N: pairs along M (1x2) sharing B
};

// kGemmSplitFit: the width (and pair) that covers N exactly where split-K would take tiles of
// 128 columns, N is at most kGemmSplitFitMaxN and the spec leaves tile, cluster and multicast
// to the defaults; bn 0 where it does not apply or the fitted tiles would not run split-K.
SplitFit split_fit(const Gemm& gemm, const Config& c, const GemmShape& s, int sm_count) {
  if (!kGemmSplitFit || !default_tile_shape(c) || c.named.count("cluster") || c.cluster.x != 2 || c.cluster.y != 1 ||
      c.cluster.z != 1 || GemmMulticast(c.param("multicast")) != GemmMulticast::Auto || s.layout != GemmLayout::TN ||
      ir::scalar_bytes(s.in) != 2 || s.n > kGemmSplitFitMaxN || s.n <= 0)
    return {};
  const bool along_m = s.n <= 128;
  const unsigned bn = unsigned(ceil_div(ceil_div(uint64_t(s.n), along_m ? 1u : 2u), uint64_t(kGemmColumnAlign)) * kGemmColumnAlign);
  Config v = c;
  v.params["bn"] = int64_t(bn);
  if (along_m) v.cluster = {1, 2, 1};
  // 256 columns: the spec's pair of 128 covers them already; one row tile: a pair along M
  // would leave a CTA wholly past M (not measured).
  if ((!along_m && bn == 128) || (along_m && s.m <= 128) || !gemm.check_config(v).empty() ||
      gemm_auto_schedule(s, gemm_tiling(v), sm_count).schedule != GemmSchedule::SplitK)
    return {};
  return {bn, along_m};
}

// bn 0: the tile's width, weighed with the schedule it would get; where split-K would take
// few tiles, the narrow tile (its rows, warpgroups and cluster too) or 64 columns for a short K.
void choose_width(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, bool auto_schedule, Sample::DeviceChoice& d,
                  const Say& say, std::optional<Unpacked>& unpacked) {
  const int sm_count = device.sm_count;
  const GemmShape s = gemm_kernel_shape(c);
  const GemmTiling t = gemm_tiling(c);
  unsigned bn = gemm_auto_bn(s, t, sm_count);
  const uint64_t clusters = std::max<uint64_t>(1, uint64_t(sm_count) / (uint64_t(t.cluster_m) * t.cluster_n));
  // Width and schedule together: the model's time per width, times the width over its
  // rate (as gemm_auto_bn).
  auto cost = [&](unsigned width, double rate) {
    GemmTiling w = t;
    w.bn = width;
    return gemm_auto_schedule(s, w, sm_count).time * width / rate;
  };
  GemmTiling wide = t;
  wide.bn = 256;
  NarrowTile narrow;             // the narrow tile's: where it is taken, the 2-CTA clusters its pairs fill
  SmallTile small;               // the small tile's: where it is taken, the clusters of 4 the device runs at once
  bool along_m = false;          // split-K's regime: the default pair turned to share B (pair_along_m)
  bool fitted = false;           // split-K's regime: one pair covers N (kGemmSplitFit)
  bool unsplit64 = false;        // split-K's regime: 64 columns fill one wave unsplit over a short K
  if (auto_schedule && cluster_tiles(s, t, 256) > clusters) {
    // A tail that stream-K absorbs needs no narrower tile.
    bn = cost(192, width_rate(192)) < cost(256, 1.0) ? 192 : 256;
  } else if (auto_schedule && gemm_auto_schedule(s, wide, sm_count).schedule == GemmSchedule::SplitK) {
    // Few tiles: the one-warpgroup narrow tile fills the GPU unsplit at any K
    // (kGemmNarrowRows); else narrower tiles fill it with fewer splits, so fewer partials,
    // and with a short K 64 columns fill it with none (kGemmNarrowMaxKblocks).
    const uint64_t narrow64 = cluster_tiles(s, t, 64);
    const SplitFit fit = split_fit(gemm, c, s, sm_count);
    narrow = narrow_tile_clusters(c, s, device);
    const bool fit_first = narrow.split && fit.bn > 0;  // the fitted pair takes the narrow tile's splits
    if (fit_first) narrow = NarrowTile{};
    if (narrow.clusters > 0)
      bn = narrow.split ? kGemmNarrowCols : narrow_width(s, narrow.clusters, t.edge && s.beta == 0 && !s.epilogue.residual);
    else if (!fit_first && (small = small_tile(gemm, c, s, device)).clusters > 0)
      bn = small.bn;
    else if (fit.bn > 0)
      bn = fit.bn, fitted = true;
    else if (ceil_div(uint64_t(s.k), t.bk) <= kGemmNarrowMaxKblocks && narrow64 <= clusters && 2 * narrow64 > clusters)
      bn = 64, unsplit64 = true;
    else
      bn = cost(128, kGemmRate128) < cost(256, 1.0) ? 128 : 256;
    along_m = fitted ? fit.along_m : bn >= 128 && pair_along_m(c, s, bn);
  } else if (auto_schedule && cluster_tiles(s, t, 192) <= clusters) {
    // One wave of 256-column tiles with clusters idle: 192 columns still in one wave
    // take 3/4 of the time at their slightly lower rate.
    bn = 192;
  }
  d.config.params["bn"] = int64_t(bn);
  if (narrow.clusters > 0) {
    d.config.params["bm"] = kGemmNarrowRows, d.config.params["consumers"] = 1;
    d.config.params["multicast"] = int64_t(GemmMulticast::Off);
    d.config.cluster = {1, 2, 1};
    say("bn 0 -> " + std::to_string(bn) + ", bm " + std::to_string(t.bm) + " -> " + std::to_string(kGemmNarrowRows) +
        ", consumers 2 -> 1, cluster " + xy(c.cluster) + " -> 1x2 without multicast, for " + std::to_string(sm_count) + " SMs: " +
        std::to_string(cluster_tiles(s, t, 256)) + " cluster tiles of 256 columns would need split-K; " +
        std::to_string(cluster_tiles(s, gemm_tiling(d.config), bn)) + " pairs of " + std::to_string(kGemmNarrowRows) + "x" +
        std::to_string(bn) + " tiles fill one wave of " + std::to_string(narrow.clusters) +
        (narrow.split ? " clusters in splits of K, their partials half a 128-row tile's"
                      : " clusters with all of K each, one MMA warpgroup reading each operand byte once"));
    return;
  }
  if (small.clusters > 0) {
    d.config.params["bm"] = kGemmSmallTile, d.config.params["consumers"] = 1;
    d.config.cluster = {2, 2, 1};
    if (small.swap) d.config.params["swap"] = 1;
    say("bn 0 -> " + std::to_string(bn) + ", bm " + std::to_string(t.bm) + " -> " + std::to_string(kGemmSmallTile) +
        ", consumers 2 -> 1, cluster " + xy(c.cluster) + " -> 2x2" + (small.swap ? ", swap 1" : "") + ", for " +
        std::to_string(sm_count) + " SMs: " + std::to_string(cluster_tiles(s, t, 256)) +
        " cluster tiles of 256 columns would need split-K, and " + std::to_string(small.tiles) + " clusters of 2x2 " +
        std::to_string(kGemmSmallTile) + "x" + std::to_string(bn) + " tiles" +
        (small.swap ? " of D^T = B A^T (" + std::to_string(kGemmSmallTile) + " of B's rows by " + std::to_string(bn) + " of A's)"
                    : std::string()) +
        " fit one wave of " + std::to_string(small.clusters) +
        (small.swap || bn != kGemmSmallTile ? " under the square tile's schedule, each CTA reading " + std::to_string(kGemmSmallTile + bn) +
                                                  " operand rows a k-block (the square tile: " + std::to_string(2 * kGemmSmallTile) +
                                                  "), the way round that reads fewer in all"
                                            : std::string()) +
        " (each CTA loads half of each operand tile, multicast to its peer)");
    return;
  }
  if (along_m) d.config.cluster = {1, 2, 1};
  say("bn 0 -> " + std::to_string(bn) + " for " + std::to_string(sm_count) + " SMs (cluster tiles: " +
      std::to_string(cluster_tiles(s, t, 256)) + " of 256 columns, " + std::to_string(cluster_tiles(s, t, 192)) + " of 192" +
      (unsplit64 ? ", " + std::to_string(cluster_tiles(s, t, 64)) + " of 64, one wave: K of " +
                      std::to_string(ceil_div(uint64_t(s.k), t.bk)) + " k-blocks is short enough to run unsplit"
                : std::string()) +
      ")" +
      (fitted ? "; split-K over N of " + std::to_string(s.n) + ": " +
                    (along_m ? "one tile of " + std::to_string(bn) + " columns covers it, cluster 2x1 -> 1x2 sharing B"
                             : "one pair of " + std::to_string(bn) + "-column tiles covers it") +
                    ", not tiles of 128 partly past it"
       : along_m ? "; cluster 2x1 -> 1x2: the pair shares B (" + std::to_string(s.n) + " rows against A's " + std::to_string(s.m) +
                     ") in as few cluster tiles"
                 : std::string()));
  if (!auto_schedule || bn == 64) return;
  const Sample::DeviceChoice before = d;
  const double estimate = choose_packing(gemm, c, device, d, say);
  const Config packed = d.config;
  choose_narrow_pair(gemm, c, device, d, say);
  choose_long_split(gemm, c, device, d, say);
  // Packing's pick stood: packing either way round may take its place (choose_packing_swapped).
  if (same_choice(packed, d.config)) unpacked = Unpacked{before, estimate};
}

// bn 0 under the automatic schedule, after choose_width (kGemmWaveSwap): the swapped product
// in one wave of unclustered coop-cols tiles, the smallest tile of 128 or 192 rows (area over
// its width's rate, taller ones over kGemmTallRate, all over kGemmCoopColsRate; 256 rows ran
// slower than the waves they replaced) whose tiles all fit the device at once, where the spec
// leaves the swap, coop, cluster and the tile's rows and warpgroups to the defaults, the layout
// is tn with 2-byte inputs in rows a multiple of 32 bytes apart, and the width chosen runs 2 or
// more static waves, or one over at most kGemmOneWaveSwapKblocks k-blocks.
void choose_wave_swap(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d, const Say& say) {
  if (!kGemmWaveSwap || c.named.count("params.swap") || c.named.count("params.coop") || c.named.count("cluster") ||
      !default_tile_shape(c) || GemmMulticast(c.param("multicast")) != GemmMulticast::Auto)
    return;
  const GemmShape s = gemm_kernel_shape(c);
  // Rows of whole 32-byte sectors (kGemmSectorPitch): unclustered tiles over rows off them
  // issue two lines per box row, the cost packing weighs (kGemmUnalignedRows), not measured here.
  if (gemm_tiling(c).swap || s.layout != GemmLayout::TN || ir::scalar_bytes(s.in) != 2 || !rows_aligned(s, kGemmSectorPitch)) return;
  const GemmTiling t = gemm_tiling(d.config);
  const unsigned ctas = t.cluster_m * t.cluster_n * t.cluster_k;
  const GemmScheduleChoice now = gemm_auto_schedule(gemm_kernel_shape(d.config), t, model_sms(device, ctas));
  const uint64_t kblocks = ceil_div(uint64_t(s.k), t.bk);
  if (now.schedule != GemmSchedule::Static || t.swap || t.bm < 128) return;
  // Time in k-blocks of a 128 x 256 tile: waves x the tile's MMAs.
  auto mmas = [](unsigned bm, unsigned bn) { return bm / 128.0 * bn / 256.0 / width_rate(bn) / (bm > 128 ? kGemmTallRate : 1.0); };
  const double waves = now.time / double(kblocks), incumbent = waves * mmas(t.bm, t.bn);
  // One wave already: the swap's gain is its tile's start and epilogue over a short K.
  const bool one_wave = waves < 2;
  if (one_wave && kblocks > kGemmOneWaveSwapKblocks) return;
  struct Pick {
    Config config;
    unsigned bm, bn;
    uint64_t tiles;
    double time;
  };
  std::optional<Pick> best;
  for (unsigned bm : {128u, 192u})
    for (unsigned bn = 128; bn <= 256; bn += 16) {
      // Swapped: the tile's rows are D's columns, its columns D's rows.
      const uint64_t tiles = ceil_div(uint64_t(s.n), bm) * ceil_div(uint64_t(s.m), bn);
      if (tiles > uint64_t(device.sm_count) || (best && mmas(bm, bn) / kGemmCoopColsRate >= best->time)) continue;
      Config v = d.config;
      v.params["swap"] = 1, v.params["coop"] = 1, v.params["bm"] = int64_t(bm), v.params["bn"] = int64_t(bn);
      v.params["consumers"] = 2, v.params["multicast"] = int64_t(GemmMulticast::Off);
      v.cluster = {1, 1, 1};
      if (!gemm.check_config(v).empty() ||
          gemm_auto_schedule(gemm_kernel_shape(v), gemm_tiling(v), device.sm_count).schedule != GemmSchedule::Static)
        continue;
      best = Pick{v, bm, bn, tiles, mmas(bm, bn) / kGemmCoopColsRate};
    }
  if (!best || best->time >= incumbent * (one_wave ? 1.0 : 1.0 - kGemmPackingMargin)) return;
  d.config = best->config;
  say("one wave -> swap 1, coop cols, bm " + std::to_string(best->bm) + ", bn " + std::to_string(best->bn) +
      ", unclustered: D^T = B A^T in " + std::to_string(best->tiles) + " tiles of " + std::to_string(best->bm) + " of B's rows by " +
      std::to_string(best->bn) + " of A's, all in one wave of " + std::to_string(device.sm_count) + " SMs; est. " +
      fixed(best->time / incumbent, 2) + "x the MMA time of " + (one_wave ? std::string("1 wave") : fixed(waves, 0) + " waves") +
      " of " + std::to_string(t.bm) + " x " + std::to_string(t.bn) + " tiles");
}

// splits 0: the count the kernel would take at run time, at one CTA per SM (gemm_workspace).
void choose_splits(GemmSchedule sched, int sm_count, Sample::DeviceChoice& d, const Say& say) {
  const GemmShape s = gemm_kernel_shape(d.config);
  const GemmTiling t = gemm_tiling(d.config);
  const unsigned splits = std::max(1u, gemm_workspace(s, t, sm_count).splits);
  d.config.params["splits"] = int64_t(splits);
  if (sched == GemmSchedule::Auto || sched == GemmSchedule::SplitK)
    d.config.params["schedule"] = int64_t(splits > 1 ? GemmSchedule::SplitK : GemmSchedule::Static);
  const uint64_t tiles = ceil_div(uint64_t(s.m), t.bm) * ceil_div(uint64_t(s.n), t.bn);
  say("splits 0 -> " + std::to_string(splits) + " for " + std::to_string(sm_count) + " SMs (" + std::to_string(tiles) +
      " output tiles, " + std::to_string(ceil_div(uint64_t(s.k), t.bk)) + " k-blocks)" +
      (splits == 1 ? ": the tiles fill the GPU, the kernel is built without split-K" : ""));
}

// schedule auto: the wave model's choice (gemm_auto_schedule) for the config as it stands.
void choose_schedule(const Sample::DeviceFacts& device, Sample::DeviceChoice& d, const Say& say) {
  // Clusters of 4 (packing's 2x2 and 1x4) as the device runs them; pairs as its SM count says
  // (choose_width counts them so too).
  const unsigned ctas = d.config.cluster.x * d.config.cluster.y;
  const int sm_count = ctas > 2 ? model_sms(device, ctas) : device.sm_count;
  const GemmScheduleChoice a = gemm_auto_schedule(gemm_kernel_shape(d.config), gemm_tiling(d.config), sm_count);
  d.config.params["schedule"] = int64_t(a.schedule);
  d.config.params["splits"] = int64_t(a.splits);
  const char* name = a.schedule == GemmSchedule::StreamK ? "stream_k" : a.schedule == GemmSchedule::SplitK ? "split_k" : "static";
  say(std::string("schedule auto -> ") + name + (a.splits > 1 ? " (splits " + std::to_string(a.splits) + ")" : "") + " for " +
      std::to_string(sm_count) + " SMs: " + a.why);
}

// choose_stream_k_tile's case over at least kGemmStreamKSquareMinKblocks k-blocks, where the spec
// also leaves the cluster, coop and the tile's rows and warpgroups to the defaults (tn, 2-byte
// inputs in rows of whole 128-byte lines): 192 x 192 coop-cols tiles in 2x1 pairs with
// multicast, under the wave model's schedule (stream-K or static; not split-K), where the wave
// model's time for them, weighed by tile area, is at most that of 256 in 1x2.
bool choose_stream_k_square(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d,
                            const Say& say) {
  const GemmShape s = gemm_kernel_shape(d.config);
  const GemmTiling t = gemm_tiling(d.config);
  const uint64_t kblocks = ceil_div(uint64_t(s.k), t.bk);
  if (c.named.count("cluster") || c.named.count("params.coop") || !default_tile_shape(c) || s.layout != GemmLayout::TN ||
      ir::scalar_bytes(s.in) != 2 || !rows_aligned(s, 128) || kblocks < kGemmStreamKSquareMinKblocks)
    return false;
  Config v = d.config;
  v.params["bm"] = int64_t(192), v.params["bn"] = int64_t(192), v.params["coop"] = int64_t(1);
  v.cluster = {2, 1, 1};
  v.params["multicast"] = int64_t(GemmMulticast::On);
  GemmTiling pair = t;
  pair.bn = 256, pair.cluster_n = 1, pair.cluster_m = 2;
  const GemmScheduleChoice a = gemm_auto_schedule(s, gemm_tiling(v), device.sm_count),
                           b = gemm_auto_schedule(s, pair, device.sm_count);
  if (a.schedule == GemmSchedule::SplitK || b.schedule == GemmSchedule::SplitK) return false;
  // The wave model's time of each (k-blocks of a cluster) times its CTA's tile area: the
  // square only where its padding and waves cost no more than the pair's.
  const double square_cost = a.time * 192.0 * 192.0, pair_cost = b.time * 128.0 * 256.0;
  if (square_cost > pair_cost) return false;
  v.params["schedule"] = int64_t(a.schedule), v.params["splits"] = int64_t(1);
  if (!gemm.check_config(v).empty()) return false;
  const std::string was = std::to_string(t.bm) + " x " + std::to_string(t.bn) + " in " + xy(d.config.cluster);
  d.config = v;
  say("stream-K tile -> bm 192, bn 192, coop cols in 2x1 with multicast (was " + was + "): " + std::to_string(kblocks) +
      " k-blocks, est. " + fixed(square_cost / pair_cost, 2) + "x the time of 256 in 1x2 by the wave model, and fewer operand bytes per flop; " +
      (a.schedule == GemmSchedule::StreamK ? std::string("stream-K evens out the last wave") : "schedule static for it: " + a.why));
  return true;
}

// Stream-K chosen for a spec that leaves bn to the device, names no cluster or 1x2, and
// has at least kGemmStreamKPairMinN rows of B: 256-column tiles in 1x2 pairs with multicast,
// under the schedule the wave model gives them (stream-K, or static where their waves end
// full enough).
void choose_stream_k_tile(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d,
                          const Say& say) {
  const GemmShape s = gemm_kernel_shape(d.config);
  const GemmTiling t = gemm_tiling(d.config);
  const bool named_pair = c.named.count("cluster") && c.cluster.x == 1 && c.cluster.y == 2 && c.cluster.z == 1;
  if (!t.stream_k || (c.named.count("cluster") && !named_pair) || s.n < kGemmStreamKPairMinN ||
      GemmMulticast(c.param("multicast")) != GemmMulticast::Auto)
    return;
  if (choose_stream_k_square(gemm, c, device, d, say)) return;
  Config v = d.config;
  v.params["bn"] = int64_t(256), v.cluster = {1, 2, 1};
  v.params["multicast"] = int64_t(GemmMulticast::On);
  const GemmScheduleChoice a = gemm_auto_schedule(s, gemm_tiling(v), device.sm_count);
  if (a.schedule == GemmSchedule::SplitK) return;
  v.params["schedule"] = int64_t(a.schedule), v.params["splits"] = int64_t(1);
  if (!gemm.check_config(v).empty()) return;
  const bool same = t.bn == 256 && t.cluster_n == 1 && t.cluster_m == 2;
  const std::string was = std::to_string(t.bn) + " columns in " + xy(d.config.cluster);
  d.config = v;
  say("stream-K tile -> bn 256 in 1x2 with multicast" + (same ? std::string() : " (was " + was + ")") + ": B's " +
      std::to_string(s.n) + " rows take the widest tile, its pair sharing B; " +
      (a.schedule == GemmSchedule::StreamK ? std::string("stream-K evens out the last wave")
                                           : "schedule static for it: " + a.why));
}

// Split-K chosen here with split_reduce auto: the splits go into a cluster of their own,
// (1, 1, splits), a CTA per plane, so that the partials meet in distributed shared memory;
// unless the operands are large (see kGemmSplitInClusterOperandBytes). `requested` is the
// spec's cluster, for the line.
// Split-K through the workspace with split_reduce auto: the partials added atomically
// into one slot per tile where there are kGemmAtomicMinSplits splits or more (and the
// sum need not be deterministic). `why`: why the workspace, for the line.
void workspace_or_atomic(const Gemm& gemm, Sample::DeviceChoice& d, const Say& say, const std::string& why) {
  const unsigned splits = unsigned(d.config.param("splits"));
  Config atomic = d.config;
  atomic.params["split_reduce"] = int64_t(GemmSplitReduce::Atomic);
  if (splits < kGemmAtomicMinSplits || d.config.param("deterministic") != 0 || !gemm.check_config(atomic).empty()) {
    if (!why.empty()) say("split_reduce auto -> workspace: " + why);
    return;
  }
  d.config = atomic;
  say("split_reduce auto -> atomic: " + (why.empty() ? std::string() : why + "; ") + std::to_string(splits) +
      " splits add their partials into one slot per tile in L2, so the tile's last split reads one partial, not " +
      std::to_string(splits - 1));
}

void choose_split_plane(const Gemm& gemm, const ir::Dim3& requested, const Sample::DeviceFacts& device, Sample::DeviceChoice& d,
                        const Say& say) {
  const unsigned splits = unsigned(d.config.param("splits"));
  if (splits <= 1 || d.config.cluster.z != 1 || GemmSplitReduce(d.config.param("split_reduce")) != GemmSplitReduce::Auto ||
      GemmSchedule(d.config.param("schedule")) != GemmSchedule::SplitK)
    return;
  const GemmShape s = gemm_kernel_shape(d.config);
  const uint64_t operands = (uint64_t(s.m) + uint64_t(s.n)) * uint64_t(s.k) * ir::scalar_bytes(s.in);
  Config in_cluster = d.config;
  in_cluster.cluster = {1, 1, splits};
  const GemmTiling ct = gemm_tiling(in_cluster);
  if (operands > kGemmSplitInClusterOperandBytes) {
    workspace_or_atomic(gemm, d, say,
                        "A and B take " + std::to_string(operands >> 20) + " MiB, over " +
                            std::to_string(kGemmSplitInClusterOperandBytes >> 20) + " MiB, where the cluster's multicast pays more");
  } else if (ct.split_in_cluster && gemm_shares_by_rows(s, ct, splits)) {
    // Shares by rows: half the consumers idle in each CTA's fix-up, and 4 or more CTAs per
    // cluster, of which fewer fit at once than the SM count suggests (30 of 4 on an H200
    // with 132 SMs): a second round of clusters can cost more than the workspace saves.
    workspace_or_atomic(gemm, d, say,
                        std::to_string(splits) + " splits of " + std::to_string(ct.bn) + " columns would share by rows in clusters of " +
                            std::to_string(splits) + " CTAs, which may not all fit at once (split_reduce cluster takes them)");
  } else if (!ct.split_in_cluster) {
    workspace_or_atomic(gemm, d, say, "");
  } else {
    // The requested cluster as each plane (its multicast shares operands within the
    // plane) where its clusters of x * y * splits CTAs all fit at once; else a CTA per plane.
    Config planes = d.config;
    planes.cluster = {d.config.cluster.x, d.config.cluster.y, splits};
    const unsigned ctas = planes.cluster.count();
    const GemmTiling pt = gemm_tiling(planes);
    const uint64_t units = cluster_tiles(s, pt, pt.bn);
    const int fit = d.config.cluster.x * d.config.cluster.y > 1 && ctas <= 8 ? device.clusters_that_fit(ctas).value_or(0) : 0;
    const bool whole_planes = fit > 0 && units <= uint64_t(fit) && pt.split_in_cluster && !gemm_shares_by_rows(s, pt, splits) &&
                              gemm.check_config(planes).empty();
    d.config = whole_planes ? planes : in_cluster;
    // How the plane was chosen, where the device said how many clusters fit.
    std::string fit_note;
    if (fit > 0)
      fit_note = " (" + std::to_string(units) + " clusters of " + std::to_string(ctas) + " CTAs" +
                 (whole_planes ? "; " + std::to_string(fit) + " fit at once)" : " would not all fit: " + std::to_string(fit) + " at once)");
    say("split_reduce auto -> cluster: cluster " + xy(requested) + " -> " + xy(d.config.cluster) + "x" + std::to_string(splits) + ", the " +
        std::to_string(splits) + " splits of a tile on the planes of one cluster, partials added through distributed shared memory" +
        fit_note);
  }
}

// Split-K through the workspace (or atomic adds) with the spec's default pair (2x1, sharing
// A) where B is exactly kGemmSplitQuadCols tile columns of 128 wide: the cluster spans all of them
// (4x1, each CTA loading a quarter of A's rows), where the device runs that many clusters of 4
// at once with the same splits: as many CTAs as the pairs, each A tile leaving L2 once.
void choose_split_quad(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d,
                       const Say& say) {
  const GemmShape s = gemm_kernel_shape(d.config);
  const GemmTiling t = gemm_tiling(d.config);
  if (c.named.count("cluster") || GemmMulticast(c.param("multicast")) != GemmMulticast::Auto ||
      GemmSchedule(d.config.param("schedule")) != GemmSchedule::SplitK || t.splits < 2 ||
      GemmSplitReduce(d.config.param("split_reduce")) == GemmSplitReduce::Cluster ||
      d.config.cluster.x != 2 || d.config.cluster.y != 1 || d.config.cluster.z != 1 || t.bn != 128 ||
      ceil_div(uint64_t(s.n), t.bn) != kGemmSplitQuadCols)
    return;
  Config v = d.config;
  v.cluster = {kGemmSplitQuadCols, 1, 1};
  v.params["multicast"] = int64_t(GemmMulticast::On);
  const uint64_t clusters = cluster_tiles(s, gemm_tiling(v), t.bn) * t.splits;
  const int fit = device.clusters_that_fit(kGemmSplitQuadCols).value_or(0);
  if (fit <= 0 || clusters > uint64_t(fit) || !gemm.check_config(v).empty()) return;
  d.config = v;
  say("split quad -> cluster 2x1 -> " + xy(v.cluster) + ": B's " + std::to_string(kGemmSplitQuadCols) + " tile columns in one cluster, " +
      std::to_string(clusters) + " clusters of " + std::to_string(kGemmSplitQuadCols) + " for " + std::to_string(t.splits) +
      " splits (" + std::to_string(fit) + " fit at once), each A tile multicast to all of them");
}
}  // namespace

std::optional<Sample::DeviceChoice> Gemm::for_device(const Config& c, const DeviceFacts& device) const {
  const int sm_count = device.sm_count;
  const GemmSchedule sched = GemmSchedule(c.param("schedule"));
  const bool auto_schedule = sched == GemmSchedule::Auto && c.param("splits") == 1;
  if (sm_count <= 0 || (c.param("splits") != 0 && c.param("bn") != 0 && !auto_schedule)) return std::nullopt;
  DeviceChoice d{c, ""};
  const Say say = [&](const std::string& line) { d.line += (d.line.empty() ? "" : "; ") + line; };
  std::optional<Unpacked> unpacked;  // choose_width's pick before packing, where packing's stood
  if (c.param("bn") == 0 && !(auto_schedule && choose_small_m_swap(*this, c, device, d, say)))
    choose_width(*this, c, device, auto_schedule, d, say, unpacked);
  if (c.param("bn") == 0 && auto_schedule && !gemm_tiling(d.config).swap) {
    const Config width = d.config;
    choose_wave_swap(*this, c, device, d, say);
    if (unpacked && same_choice(width, d.config)) choose_packing_swapped(*this, c, device, *unpacked, d, say);
  }
  if (c.param("splits") == 0) choose_splits(sched, sm_count, d, say);
  if (auto_schedule) choose_schedule(device, d, say);
  if (auto_schedule && c.param("bn") == 0) choose_stream_k_tile(*this, c, device, d, say);
  if (c.param("bn") == 0 && GemmMulticast(d.config.param("multicast")) == GemmMulticast::Auto) choose_multicast(*this, d, sm_count, say);
  choose_split_plane(*this, c.cluster, device, d, say);
  if (c.param("bn") == 0 && auto_schedule) choose_split_quad(*this, c, device, d, say);
  return d;
}

}  // namespace tj::samples
