// What `tilejit tune` tries for a GEMM, and which problems one tuned config serves.
#include <algorithm>
#include <cmath>
#include <optional>

#include "dsl/ir/ir.h"
#include "samples/gemm.h"
#include "samples/gemm_device_rules.h"

namespace tj::samples {

namespace {

struct Tile {
  int64_t bm, bn;
};

// Ordered likeliest first, from the H200 at 8192^3 bf16 (TFLOP/s): 128x256 with a
// cluster of 1x2 ~755, 2x1 ~740, 1x1 ~700, 2x2 ~676; 256x128 ~650; 128x128 ~545.
// A sweep cut short by --max-seconds has then measured the usual winners.
constexpr Tile kTiles[] = {{128, 256}, {256, 128}, {128, 128}};
// Tiles wider than one wgmma (two m64n160 per warpgroup sharing A from registers, 3
// stages), tried last with the two clusters that keep ptxas from spilling them. On the
// H200 (this session, one run each) 128x320 with A from shared memory ran at 0.91x
// cuBLAS at 8192^3 against 0.94x for 128x256, and from registers 0.915x (2x1: 0.923x)
// against 0.942x; at 4224x4224x4096 it won (0.912x against 0.841x), so it stays a candidate.
constexpr Tile kWideTile = {128, 320};
// 192 x 192 in three consumer warpgroups (4 stages with 64-byte epilogue chunks): on the
// H200 1.11x the 128-row choice at 3000^3; 0.98-1.07x 128x256 on the large squares.
constexpr Tile kTallTile = {kGemmTallRows, 192};
// Ping-pong tiles: each consumer owns a whole tile of these, 128 accumulator registers.
constexpr Tile kPingpongTiles[] = {{128, 128}, {64, 256}};
constexpr ir::Dim3 kClusters[] = {{1, 2, 1}, {2, 1, 1}, {1, 1, 1}, {2, 2, 1}};
constexpr ir::Dim3 kQuadAlongM = {1, 4, 1};
constexpr int64_t kGroups[] = {8, 16};
constexpr int64_t kSplits[] = {2, 4, 8};
// Split-K with atomic partial sums (split_reduce atomic): the last split reads one partial
// whatever the count, so more splits pay than with a slot per split.
constexpr int64_t kAtomicSplits[] = {4, 8, 16};
// Split-K candidates are tried when the problem has at most this many 128x256 tiles:
// fewer tiles than SMs on any current GPU (132 on the H200; the sweep measures
// which split count wins, so the bound only keeps the sweep short for large problems).
constexpr uint64_t kSplitMaxTiles = 160;
// The small-M swapped candidate's widest tile: all of M in one MMA warpgroup's accumulator.
constexpr int64_t kSmallMWholeCols = 256;
// 128-row tiles of one MMA warpgroup (two 64-row accumulators, as cuBLAS runs 128 x 80 at
// 1000x1280x16384): on the H200, same process against two warpgroups of the same tile,
// 1.025-1.053x at 128 x 80 over K 8192-16384 and 1.04-1.05x at 128 x 128 in 2 splits, but
// 0.94-0.99x on short-K or multi-wave shapes and in 6 splits, so a candidate, not a default.
constexpr Tile kOneWarpgroupTiles[] = {{128, 80}, {128, 128}};

// The power of two nearest to n in ratio (round(log2 n)): 5000 -> 4096, 6000 -> 8192.
int64_t pow2_bucket(int64_t n) {
  const int e = int(std::lround(std::log2(double(std::max<int64_t>(n, 1)))));
  return int64_t(1) << e;
}

// c with every tuned field set (so a candidate does not inherit a spec's hand-picked one),
// stages 0 made the count that fits; nullopt where check_config refuses it.
std::optional<Config> tuned_config(const Gemm& gemm, const Config& c, const Tile& tile, const ir::Dim3& cluster, int64_t group,
                                   int64_t bk, int64_t stages, int64_t splits, int64_t pingpong, int64_t consumers,
                                   int64_t multicast, GemmSplitReduce reduce, int64_t swap) {
  Config k = c;
  k.params["split_reduce"] = int64_t(reduce), k.params["swap"] = swap;
  k.params["bm"] = tile.bm, k.params["bn"] = tile.bn, k.params["bk"] = bk;
  k.params["stages"] = stages, k.params["consumers"] = consumers, k.params["group"] = group;
  k.params["warp_specialized"] = 1, k.params["persistent"] = 1, k.params["multicast"] = multicast;
  k.params["splits"] = splits, k.params["split_issue"] = 1, k.params["pingpong"] = pingpong;
  k.cluster = cluster;
  k.params["stages"] = int64_t(gemm_tiling(k).stages);  // 0: as many as fit, named so the table and DB show it
  if (!gemm.check_config(k).empty()) return std::nullopt;
  return k;
}

}  // namespace

std::vector<Config> Gemm::tuning_candidates(const Config& c) const {
  std::vector<Config> out;
  auto candidate = [&](const Tile& tile, const ir::Dim3& cluster, int64_t group, int64_t bk, int64_t stages, int64_t splits = 1,
                       int64_t pingpong = 0, int64_t consumers = 2, int64_t multicast = 1,
                       GemmSplitReduce reduce = GemmSplitReduce::Auto, int64_t swap = 0) {
    std::optional<Config> k = tuned_config(*this, c, tile, cluster, group, bk, stages, splits, pingpong, consumers, multicast, reduce, swap);
    if (k) out.push_back(std::move(*k));
  };
  // Tiles x clusters x groups, each with as many stages of bk 64 as fit...
  for (const Tile& tile : kTiles)
    for (const ir::Dim3& cluster : kClusters)
      for (int64_t group : kGroups) candidate(tile, cluster, group, 64, 0);
  // ...ping-pong tiles with the three clusters that feed them best...
  for (const Tile& tile : kPingpongTiles)
    for (const ir::Dim3& cluster : {kClusters[0], kClusters[1], kClusters[2]}) candidate(tile, cluster, kGroups[0], 64, 0, 1, 1);
  // ...then the pipeline's depth, per tile with the likeliest cluster and group: one stage
  // fewer than fit, and bk 32 (half the K per stage, up to twice the stages). Last, so a
  // sweep cut short has measured the usual winners first (on the H200 at 4096^3-8192^3
  // both ran slower than the full-depth bk 64: 3 stages of 128x256 0.90x cuBLAS against
  // 0.98x with 4; bk 32 x 8 stages 0.82-0.84x against 0.91-0.93x).
  const size_t full_depth = out.size();
  for (const Tile& tile : kTiles) {
    auto most = std::find_if(out.begin(), out.begin() + full_depth, [&](const Config& k) {
      return k.param("bm") == tile.bm && k.param("bn") == tile.bn;
    });
    if (most != out.begin() + full_depth && most->param("stages") > 2)
      candidate(tile, kClusters[0], kGroups[0], 64, most->param("stages") - 1);
    candidate(tile, kClusters[0], kGroups[0], 32, 0);
  }
  // ptxas spills 12 bytes of the wide tile's consumers without a cluster (at 232
  // registers; none with 1x2, 2x1 or 2x2): a spilling kernel is not a candidate.
  for (const ir::Dim3& cluster : {kClusters[0], kClusters[1]}) candidate(kWideTile, cluster, kGroups[0], 64, 3);
  // ...the tall tile (three consumer warpgroups of 64 rows; packing's for unaligned rows) in pairs...
  for (const ir::Dim3& cluster : {kClusters[1], kClusters[0]}) candidate(kTallTile, cluster, kGroups[0], 64, 0, 1, 0, 3);
  // ...and alone, where `schedule auto` takes stream-K over a ragged last wave (on the H200,
  // each against cuBLAS in its own process: 0.955 of cuBLAS at 4608x2304x8192 against the
  // default path's 0.905)...
  candidate(kTallTile, kClusters[2], kGroups[0], 64, 0, 1, 0, 3);
  // ...the operands swapped (D^T = B A^T, layout tn: the tile's 64-row side along N, its
  // 16-column steps along M; cuBLAS puts either operand there), 128x256 and 128x128 in
  // pairs either way and alone...
  for (const Tile& tile : {kTiles[0], kTiles[2]})
    for (const ir::Dim3& cluster : {kClusters[0], kClusters[1], kClusters[2]})
      candidate(tile, cluster, kGroups[0], 64, 0, 1, 0, 2, 1, GemmSplitReduce::Auto, 1);
  // ...and 128x256 in clusters of four along M (B shared, each CTA loading a 64-row slice):
  // 0.898 of cuBLAS at 3000x1000x5000 against the default path's 0.797 (packing weighs it,
  // but rates the tall tile ahead there).
  candidate(kTiles[0], kQuadAlongM, kGroups[0], 64, 0);
  // ...then split-K, for problems with fewer output tiles than SMs and a long K (at
  // least 4 k-blocks of 64 per split): 128x256 and 128x128 tiles, clusters 1x1 and 1x2.
  const uint64_t m = uint64_t(c.param("m")), n = uint64_t(c.param("n")), kblocks = (uint64_t(c.param("k")) + 63) / 64;
  // ...small M: the swapped product in a pair whose two CTAs cover all of M (the default
  // path's choose_small_m_swap, there for aligned rows and halves of 128-192 columns only)...
  if (m > 128 && m <= 512) {
    const int64_t half = int64_t((m + 1) / 2 + 15) / 16 * 16;
    candidate(Tile{128, half}, kClusters[1], kGroups[0], 64, 0, 1, 0, 2, 1, GemmSplitReduce::Auto, 1);
  }
  if (((m + 127) / 128) * ((n + 255) / 256) <= kSplitMaxTiles)
    for (int64_t splits : kSplits)
      if (kblocks >= uint64_t(4 * splits))
        for (const Tile& tile : {kTiles[0], kTiles[2]})
          for (const ir::Dim3& cluster : {kClusters[2], kClusters[0]}) candidate(tile, cluster, kGroups[0], 64, 0, splits);
  // ...and with atomic partial sums, in more splits (128x256 and 128x128, 1x1 and 1x2)...
  if (((m + 127) / 128) * ((n + 255) / 256) <= kSplitMaxTiles)
    for (int64_t splits : kAtomicSplits)
      if (kblocks >= uint64_t(4 * splits))
        for (const Tile& tile : {kTiles[0], kTiles[2]})
          for (const ir::Dim3& cluster : {kClusters[2], kClusters[0]})
            candidate(tile, cluster, kGroups[0], 64, 0, splits, 0, 2, 1, GemmSplitReduce::Atomic);
  // ...the narrow tile (64 x 128 of one MMA warpgroup, no multicast) so too, in pairs and alone...
  if (((m + 127) / 128) * ((n + 255) / 256) <= kSplitMaxTiles)
    for (int64_t splits : kAtomicSplits)
      if (kblocks >= uint64_t(4 * splits))
        for (const ir::Dim3& cluster : {kClusters[0], kClusters[2]})
          candidate(Tile{kGemmNarrowRows, kGemmNarrowCols}, cluster, kGroups[0], 64, 0, splits, 0, 1, 0, GemmSplitReduce::Atomic);
  // ...and split-K in the cluster: the splits on the planes of a cluster of their own
  // (1x1xS), partials through distributed shared memory (where the shares fit: check_config).
  if (((m + 127) / 128) * ((n + 255) / 256) <= kSplitMaxTiles)
    for (int64_t splits : {2, 4})
      if (kblocks >= uint64_t(4 * splits))
        for (const Tile& tile : {kTiles[0], kTiles[2]})
          candidate(tile, ir::Dim3{1, 1, unsigned(splits)}, kGroups[0], 64, 0, splits);
  // ...the small tile (kGemmSmallTile rows of one MMA warpgroup in 2x2 clusters with
  // multicast, the default path's for few tiles over a short K; tn, as it was measured):
  // kGemmSmallTileNarrowCols wide either way round, unsplit, then square, unsplit and in 2 splits...
  if (c.param("layout") == 0 && ((m + 127) / 128) * ((n + 255) / 256) <= kSplitMaxTiles)
    for (int64_t swap : {0, 1})
      candidate(Tile{kGemmSmallTile, kGemmSmallTileNarrowCols}, ir::Dim3{2, 2, 1}, kGroups[0], 64, 0, 1, 0, 1, 1,
                GemmSplitReduce::Auto, swap);
  if (c.param("layout") == 0 && ((m + 127) / 128) * ((n + 255) / 256) <= kSplitMaxTiles)
    for (int64_t splits : {1, 2})
      if (kblocks >= uint64_t(4 * splits))
        candidate(Tile{kGemmSmallTile, kGemmSmallTile}, ir::Dim3{2, 2, 1}, kGroups[0], 64, 0, splits, 0, 1, 1);
  // ...and the narrow tile unsplit (kGemmNarrowRows: 64 x 128 of one MMA warpgroup), in
  // pairs without multicast and alone.
  if (((m + 127) / 128) * ((n + 255) / 256) <= kSplitMaxTiles)
    for (const ir::Dim3& cluster : {kClusters[0], kClusters[2]})
      candidate(Tile{kGemmNarrowRows, kGemmNarrowCols}, cluster, kGroups[0], 64, 0, 1, 0, 1, 0);
  // ...and 128-row tiles of one MMA warpgroup, in pairs either way and alone.
  if (((m + 127) / 128) * ((n + 255) / 256) <= kSplitMaxTiles)
    for (const Tile& tile : kOneWarpgroupTiles)
      for (const ir::Dim3& cluster : {kClusters[1], kClusters[0], kClusters[2]}) candidate(tile, cluster, kGroups[0], 64, 0, 1, 0, 1);
  return out;
}

// Tiles sized to the device's waves, as cuBLAS sizes them (on the H200: 72 columns of 192-row
// tiles at 6177x280x16616, 1.13x the default path; 112 in 2x1 at 1979x888x13512, 1.11x): for
// each way round (tn: columns along N, or the swapped product's along M), 128 and 192 rows
// and pairs either way, the width in 8-column steps (64-256; 192 at most for 192 rows) of the
// least static time by the wave model, tile area over its rate per wave, among the widths
// that cover the columns in each count of tiles; then, for small M, all of M in each swapped
// tile (below). Measured, like every candidate.
std::vector<Config> Gemm::device_tuning_candidates(const Config& c, const DeviceFacts& device) const {
  std::vector<Config> out = tuning_candidates(c);
  if (c.param("layout") != 0 || device.sm_count <= 0) return out;
  // What tells two candidates apart here: a fixed one of the same tile is not tried again.
  auto key = [](const Config& k) {
    return std::to_string(k.param("swap")) + " " + std::to_string(k.param("bm")) + "x" + std::to_string(k.param("bn")) + " " +
           k.cluster.str() + " " + std::to_string(k.param("splits")) + " " + std::to_string(k.param("pingpong"));
  };
  std::vector<std::string> keys;
  for (const Config& k : out) keys.push_back(key(k));
  for (int64_t swap : {0, 1})
    for (int64_t bm : {int64_t(128), int64_t(kGemmTallRows)})
      for (const ir::Dim3& cluster : {kClusters[1], kClusters[0]}) {
        const int64_t extent = swap ? c.param("m") : c.param("n");
        std::optional<Config> best;
        double best_time = 0;
        int64_t last = 0;
        for (int64_t tiles = (extent + 255) / 256; tiles <= extent; ++tiles) {
          const int64_t bn = ((extent + tiles - 1) / tiles + 7) / 8 * 8;
          if (bn < 64) break;
          if (bn == last || (bm > 128 && bn > 192)) continue;
          last = bn;
          std::optional<Config> k = tuned_config(*this, c, Tile{bm, bn}, cluster, kGroups[0], 64, 0, 1, 0, bm / 64, 1,
                                                 GemmSplitReduce::Auto, swap);
          if (!k) continue;
          const GemmScheduleChoice a =
              gemm_auto_schedule(gemm_kernel_shape(*k), gemm_tiling(*k), device_rules::model_sms(device, cluster.count()));
          if (a.schedule != GemmSchedule::Static) continue;
          const double time = a.time * double(bm) / 128 * double(bn) / 256 / device_rules::width_rate(unsigned(bn)) /
                              (bm > 128 ? kGemmTallRate : 1.0);
          if (!best || time < best_time) best = std::move(k), best_time = time;
        }
        if (!best || std::find(keys.begin(), keys.end(), key(*best)) != keys.end()) continue;
        keys.push_back(key(*best));
        out.push_back(std::move(*best));
      }
  // Small M: the swapped product with all of M in one tile's columns (M in 8-column steps),
  // 64 of B's rows per tile for one MMA warpgroup, pairs along N sharing A's tile by multicast,
  // unsplit and in the most splits whose clusters fit one wave (cuBLAS runs 64 x 136 so in 3
  // splits at 134x2672x14648, where 128-row tiles over M leave half their rows empty).
  const int64_t m = c.param("m"), kblocks = (c.param("k") + 63) / 64;
  if (m <= kSmallMWholeCols) {
    const int64_t bn = std::max<int64_t>(16, (m + 7) / 8 * 8), pairs = ((c.param("n") + 63) / 64 + 1) / 2;
    const int64_t fit = device.clusters_that_fit(2).value_or(device.sm_count / 2);
    for (int64_t splits : {int64_t(1), std::min(fit / pairs, kblocks / 4)}) {
      if (splits < 1) continue;  // more pairs than fit at once: none split
      std::optional<Config> k = tuned_config(*this, c, Tile{kGemmNarrowRows, bn}, kClusters[0], kGroups[0], 64, 0, splits, 0, 1, 1,
                                             GemmSplitReduce::Auto, 1);
      if (!k || std::find(keys.begin(), keys.end(), key(*k)) != keys.end()) continue;
      keys.push_back(key(*k));
      out.push_back(std::move(*k));
    }
  }
  return out;
}

// Which config wins depends on the element types (bytes per tile, hence stages and
// shared memory), the layout (B's loads), the number of output tiles against the SMs (M,
// N) and the depth of the main loop (K). Each extent is bucketed to its nearest power of
// two, so one tuning run serves the shapes around it (wave counts within a factor of
// ~1.4 either way) instead of one exact shape, and the DB stays small. beta != 0 adds a
// read of C to every tile's epilogue, so it is a class of its own.
std::string Gemm::problem_class(const Config& c) const {
  const std::vector<ParamSpec> ps = params();
  auto choice = [&](const std::string& name) {
    for (const ParamSpec& p : ps)
      if (p.name == name) return p.choices.at(size_t(c.param(name)));
    ir::internal_error("gemm has no parameter '" + name + "'");
  };
  std::string out = choice("dtype") + ">" + choice("out") + " " + choice("layout") + " m" +
                    std::to_string(pow2_bucket(c.param("m"))) + " n" + std::to_string(pow2_bucket(c.param("n"))) +
                    " k" + std::to_string(pow2_bucket(c.param("k")));
  if (c.real("beta") != 0) out += " +C";
  if (c.param("residual") == 1) out += " +R";  // R comes in through C's path: C's traffic
  return out;
}

// Everything that says how the kernel is built; the problem (m, n, k, types, layout,
// alpha, beta) stays the spec's. The first four are the ones the candidates vary.
std::vector<std::string> Gemm::tuned_fields() const {
  return {"params.bm",     "params.bn",        "cluster",          "params.group",      "params.bk",
          "params.stages", "params.consumers", "params.warp_specialized", "params.persistent", "params.multicast",
          "params.splits", "params.split_issue", "params.pingpong", "params.split_reduce", "params.swap"};
}

}  // namespace tj::samples
