// Packing, one of the GEMM's device choices: after choose_width, the width and cluster of
// the lowest estimated time (unclustered, or in clusters of 4 where rows are unaligned), and
// over a long K its give-way at a narrow N to two column tiles in pairs, or one split along K,
// or to 2x1 pairs split in 2.
#include <algorithm>
#include <optional>
#include <vector>

#include "samples/gemm.h"
#include "samples/gemm_device_rules.h"

namespace tj::samples::device_rules {

// The long split's first case (kGemmLongSplit): 128 columns in pairs over a long K that the wave
// model would run stream-K in less than one wave.
bool long_split_over_stream_k(const GemmShape& s, const GemmTiling& t, const Sample::DeviceFacts& device) {
  return t.bn == 128 && t.cluster_m * t.cluster_n <= 2 && ceil_div(uint64_t(s.k), uint64_t(t.bk)) >= kGemmLongKblocks &&
         cluster_tiles(s, t, t.bn) * t.cluster_m * t.cluster_n < uint64_t(device.sm_count) &&
         gemm_auto_schedule(s, t, device.sm_count).schedule == GemmSchedule::StreamK;
}

// bn 0 after choose_width, unless it took the narrow tile or 64 columns (kGemmPackingMargin):
// the width and cluster of the lowest estimated time among the widths in the spec's pair
// (both pairs where the spec names no cluster), unclustered (aligned rows) or in clusters of 4
// (unaligned rows, no cluster named, a device that says how many fit: 2x2, and 1x4 at 256
// columns, weighed with kGemmQuadGain), taken where it beats the width chosen for the spec's
// cluster by the margin. A
// k-block costs its MMAs (the width over its rate) or, with unaligned rows, the TMA rows each
// CTA issues over kGemmUnalignedRows, whichever is more.
double choose_packing(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d, const Say& say,
                      bool either_way) {
  if (c.cluster.z != 1 || c.cluster.count() > 2 || GemmMulticast(c.param("multicast")) != GemmMulticast::Auto) return 1.0;
  const GemmShape s = gemm_kernel_shape(c);
  const bool aligned = rows_aligned(s);
  const uint64_t kblocks = ceil_div(uint64_t(s.k), uint64_t(c.param("bk")));
  // Rows of whole 32-byte sectors over a short K: tall pairs weighed too (kGemmSectorPitch).
  const bool sectors = !aligned && rows_aligned(s, kGemmSectorPitch) && kblocks < kGemmTallMinKblocks;
  std::vector<ir::Dim3> clusters;
  if (!c.named.count("cluster"))
    clusters = {{1, 2, 1}, {2, 1, 1}};
  else if (c.cluster.count() == 2)
    clusters = {c.cluster};
  if (aligned || c.cluster.count() == 1) clusters.push_back({1, 1, 1});
  struct Candidate {
    unsigned bm, bn;
    ir::Dim3 cluster;
    double time;  // the wave model's, in k-blocks of 256 columns
    bool swap;    // D^T = B A^T: the tile's rows on N, its columns on M
  };
  // The widths: every kGemmPackingStep columns from 256 down to kGemmMinPackedBn where B is K-major
  // (tn: the tile's last chunk may be narrower than 128 bytes of D), else 256, 192 and 128.
  std::vector<unsigned> widths = {256, 192, 128};
  if (s.layout == GemmLayout::TN) {
    widths.clear();
    for (unsigned bn = 256; bn >= kGemmMinPackedBn; bn -= kGemmPackingStep) widths.push_back(bn);
  }
  // The wide tile too with B K-major (tn; nn's verify on the GPU but no run has timed them as a default).
  if (s.layout == GemmLayout::TN) widths.insert(widths.begin(), kGemmWideBn);
  // Tiles of kGemmTallRows rows (one more consumer warpgroup) where the spec leaves the rows
  // and warpgroups to the defaults, the operands' rows are unaligned (fewer TMA rows per
  // flop is what they gain) and K has at least kGemmTallMinKblocks k-blocks; B K-major (tn:
  // nn's 192-row tiles are compile-verified and tuning candidates, not yet run as a default).
  const GemmTiling given = gemm_tiling(c);
  const bool tall = s.layout == GemmLayout::TN && given.bm == 128 && given.consumers == 2 && !given.pingpong && given.warp_specialized &&
                    !c.named.count("params.bm") && !c.named.count("params.consumers") && !aligned &&
                    (sectors || kblocks >= kGemmTallMinKblocks);
  // `candidate`: only static schedules, the model's surest estimate. A k-block costs its MMAs
  // (rows / 128 x the width over its rate; taller tiles read fewer operand bytes per flop,
  // kGemmTallRate) or, with unaligned rows, the TMA rows each CTA issues.
  auto estimate = [&](unsigned bm, unsigned bn, const ir::Dim3& cluster, bool candidate, bool swap) -> std::optional<Candidate> {
    Config v = d.config;
    v.params["bn"] = int64_t(bn), v.cluster = cluster;
    if (swap) v.params["swap"] = 1;
    if (bm != given.bm) v.params["bm"] = int64_t(bm), v.params["consumers"] = int64_t(bm / 64);
    if (cluster.count() == 1) v.params["multicast"] = int64_t(GemmMulticast::Off);
    if (!gemm.check_config(v).empty()) return std::nullopt;
    const GemmTiling t = gemm_tiling(v);
    const GemmScheduleChoice a = gemm_auto_schedule(gemm_kernel_shape(v), t, model_sms(device, cluster.count()));
    if (a.schedule == GemmSchedule::SplitK || (candidate && a.schedule != GemmSchedule::Static)) return std::nullopt;
    const double mmas = bm / 128.0 * bn / 256.0 / width_rate(bn) / (bm > 128 ? kGemmTallRate : 1.0);
    const double rows = double(t.bm / cluster.x + bn / cluster.y);
    // Tall tiles paired along M ran slower than along N at as many TMA rows (kGemmTallAlongM).
    const double along_m = bm > 128 && cluster.y > 1 && cluster.x == 1 ? kGemmTallAlongM : 1.0;
    // Clusters of 4 ran faster than their TMA rows say (kGemmQuadGain).
    const double quad = cluster.count() == 4 ? 1.0 - kGemmQuadGain : 1.0;
    // Rows of whole sectors over a short K: tall tiles in pairs along N cost their MMAs only.
    const bool mmas_only = aligned || (sectors && bm > 128 && cluster.x == 2 && cluster.y == 1);
    return Candidate{bm, bn, cluster, quad * along_m * a.time * (mmas_only ? mmas : std::max(mmas, rows / kGemmUnalignedRows)), swap};
  };
  const unsigned chosen = unsigned(d.config.param("bn"));
  const std::optional<Candidate> incumbent = estimate(given.bm, chosen, c.cluster, false, false);
  if (!incumbent) return 1.0;
  std::optional<Candidate> best, best_rows;  // best_rows: of the spec's rows
  // A cluster's pick: the fastest tile, where a width that is not a multiple of 64 counts
  // only when kGemmFineMargin ahead of the multiple of 64 above it in the same cluster (it
  // narrows that tile), and taller tiles only kGemmTallMargin ahead of the best of 128 rows.
  // Either way round (`either_way`) where the spec leaves the swap to the defaults, the
  // inputs are 2-byte rows of B K-major (tn: A is K-major too, so the swap only trades their
  // roles), unaligned (the rows measured) and the long split would not take the incumbent
  // (swapped, it ran 1.08x slower there).
  std::vector<bool> ways = {false};
  if (either_way && !c.named.count("params.swap") && !given.swap && s.layout == GemmLayout::TN && ir::scalar_bytes(s.in) == 2 &&
      !aligned && !(kGemmLongSplit && long_split_over_stream_k(s, gemm_tiling(d.config), device)))
    ways.push_back(true);
  auto consider = [&](const ir::Dim3& cluster, bool swap) {
    std::optional<Candidate> pick;
    for (unsigned bm : {given.bm, kGemmTallRows}) {
      // Over rows of whole sectors and a K under kGemmTallMinKblocks: in 2x1 pairs only.
      if (bm != given.bm && (!tall || cluster.y > 2 || (sectors && (cluster.x != 2 || cluster.y != 1))))
        continue;
      for (unsigned bn : widths) {
        if (bm != given.bm && bn < kGemmTallMinBn) continue;
        if (bn > 256 && (bm != given.bm || cluster.x != 1 || cluster.y != 2 || swap)) continue;
        if (cluster.y > 2 && bn != kGemmQuadAlongMBn) continue;
        const std::optional<Candidate> e = estimate(bm, bn, cluster, true, swap);
        if (!e) continue;
        if (bn % 64 != 0)
          if (const std::optional<Candidate> wider = estimate(bm, (bn + 63) / 64 * 64, cluster, true, swap);
              wider && e->time >= wider->time * (1.0 - kGemmFineMargin))
            continue;
        if (bm == given.bm && (!best_rows || e->time < best_rows->time)) best_rows = e;
        if (bm != given.bm && pick && e->time >= pick->time * (1.0 - kGemmTallMargin)) continue;
        if (!pick || e->time < pick->time) pick = e;
      }
    }
    if (pick && (!best || pick->time < best->time)) best = pick;
  };
  for (const bool swap : ways)
    for (const ir::Dim3& cluster : clusters) consider(cluster, swap);
  // Clusters of 4 only where the device says how many it runs (30, not 33, on an H200): 2x2,
  // and 1x4 (four tiles along M sharing B, each CTA loading a 64-row slice of it) with
  // kGemmQuadAlongMBn columns.
  if (!aligned && !c.named.count("cluster") && device.clusters_that_fit(4).value_or(0) > 0)
    for (const bool swap : ways)
      for (const ir::Dim3& quad : {ir::Dim3{1, 4, 1}, ir::Dim3{2, 2, 1}}) consider(quad, swap);  // ties: 1x4
  // Over rows of whole sectors and a short K, a tall pair takes only the place of a 2x2 pick
  // (kGemmSectorPitch): elsewhere the tiles of the spec's rows decide.
  const bool quad_pick = best_rows && best_rows->cluster.x == 2 && best_rows->cluster.y == 2 &&
                         best_rows->time < incumbent->time * (1.0 - kGemmPackingMargin);
  if (best && best->bm != given.bm && sectors && !quad_pick) best = best_rows;
  if (!best || best->time >= incumbent->time * (1.0 - kGemmPackingMargin)) return 1.0;
  // A pair along M (1x2, sharing B) that packing takes gives way to four along M at its tile
  // (each CTA loading a quarter of B's tile) where K is long enough, the device says how many
  // fit and the model rates them no slower (kGemmQuadAlongMPairs).
  bool quad_along_m = false;
  if (kGemmQuadAlongMPairs && best->cluster.x == 1 && best->cluster.y == 2 && !c.named.count("cluster") &&
      ceil_div(uint64_t(s.k), given.bk) >= kGemmQuadAlongMMinKblocks && device.clusters_that_fit(4).value_or(0) > 0)
    if (const std::optional<Candidate> quad = estimate(best->bm, best->bn, {1, 4, 1}, true, best->swap); quad && quad->time <= best->time)
      best = quad, quad_along_m = true;
  d.config.params["bn"] = int64_t(best->bn);
  if (best->swap) d.config.params["swap"] = 1;
  if (best->bm != given.bm) d.config.params["bm"] = int64_t(best->bm), d.config.params["consumers"] = int64_t(best->bm / 64);
  d.config.cluster = best->cluster;
  if (best->cluster.count() == 1 && c.cluster.count() > 1) d.config.params["multicast"] = int64_t(GemmMulticast::Off);
  const std::string ratio = fixed(best->time / incumbent->time, 2);
  const bool moved = best->cluster.x != c.cluster.x || best->cluster.y != c.cluster.y;
  const std::string rows = best->bm != given.bm ? ", bm " + std::to_string(given.bm) + " -> " + std::to_string(best->bm) +
                                                       ", consumers " + std::to_string(given.consumers) + " -> " +
                                                       std::to_string(best->bm / 64)
                                                 : std::string();
  say("packing -> bn " + std::to_string(best->bn) + rows + (best->swap ? ", swap 1 (D^T = B A^T: the tile's rows on N)" : "") +
      (moved ? ", cluster " + xy(c.cluster) + " -> " + xy(best->cluster) : " in " + xy(c.cluster)) +
      (best->cluster.count() == 1 && c.cluster.count() > 1 ? " without multicast" : "") + ": est. " + ratio + "x the time of " +
      std::to_string(chosen) + " columns in " + xy(c.cluster) + ", the wave model's static waves" +
      (aligned                                          ? ""
       : sectors && best->bm != given.bm                ? " (rows of whole 32-byte sectors over a short K: a tall pair, by its MMAs, in the place of 2x2)"
                                                        : " with the TMA rows of unaligned operand rows") +
      (quad_along_m ? "; four along M rather than a pair, each CTA loading a quarter of B's tile" : ""));
  return best->time / incumbent->time;
}

bool same_choice(const Config& a, const Config& b) { return a.params == b.params && a.cluster.str() == b.cluster.str(); }

void choose_packing_swapped(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, const Unpacked& unpacked,
                            Sample::DeviceChoice& d, const Say& say) {
  if (!kGemmPackingSwap) return;
  Sample::DeviceChoice e = unpacked.choice;
  std::string line;
  // Against packing's own pick, whose estimate may be lower after its last step (four along M).
  if (choose_packing(gemm, c, device, e, [&](const std::string& l) { line = l; }, true) >= unpacked.packed ||
      !gemm_tiling(e.config).swap)
    return;
  d.config = e.config;
  say("either way round, " + line + " (no later rule of the width took the shape)");
}

// kGemmNarrowPair: more than two column tiles across N (packing's static pick) give way to
// two, of half of N rounded up to 16 columns, in 2x1 pairs sharing A, where the pairs fit one
// wave of those the device runs at once; the wave model then schedules them (split-K or
// stream-K where they leave SMs idle). Where one tile covers N (kGemmNarrowOneTile), that tile
// in 1x2 pairs instead, where the wave model splits it.
void choose_narrow_pair(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d, const Say& say) {
  // Only where the spec leaves the tile's rows, warpgroups and cluster to the defaults, multicast auto.
  if (!kGemmNarrowPair || GemmMulticast(c.param("multicast")) != GemmMulticast::Auto) return;
  for (const char* p : {"cluster", "params.bm", "params.consumers", "params.pingpong", "params.warp_specialized", "params.swap"})
    if (c.named.count(p)) return;
  const GemmShape s = gemm_kernel_shape(d.config);
  const GemmTiling t = gemm_tiling(d.config);
  const uint64_t kblocks = ceil_div(uint64_t(s.k), uint64_t(t.bk));
  if (s.layout != GemmLayout::TN || t.swap || kblocks < kGemmNarrowPairMinKblocks) return;
  const uint64_t tiles_n = ceil_div(uint64_t(s.n), uint64_t(t.bn));
  const unsigned half = unsigned(ceil_div(ceil_div(uint64_t(s.n), 2), 16) * 16);
  const uint64_t picked_cols = ceil_div(tiles_n, uint64_t(t.cluster_n)) * t.cluster_n * t.bn;
  if (tiles_n <= 2 || half < kGemmMinPackedBn || half > 256 || 2 * half > picked_cols) return;
  if (gemm_auto_schedule(s, t, model_sms(device, t.cluster_m * t.cluster_n)).schedule != GemmSchedule::Static) return;
  const uint64_t rows = ceil_div(uint64_t(s.m), 128);
  Config v = d.config;
  v.params["bm"] = int64_t(128), v.params["consumers"] = int64_t(2);
  // The pair shares its operand: multicast on, also where auto would drop a one-wave pair over
  // aligned rows (5434x363x17984: 0.86x of the time with it, H100).
  v.params["multicast"] = int64_t(GemmMulticast::On);
  const std::string tile_change =
      t.bm != 128 ? ", bm " + std::to_string(t.bm) + " -> 128, consumers " + std::to_string(t.consumers) + " -> 2" : std::string();
  const std::string was = std::to_string(tiles_n) + " column tiles of " + std::to_string(t.bn) + " read each A row " +
                          std::to_string(ceil_div(tiles_n, uint64_t(t.cluster_n))) + " times over " + std::to_string(kblocks) + " k-blocks";
  auto cluster_change = [&](const ir::Dim3& to) {
    return d.config.cluster.str() == to.str() ? " in " + xy(to) : ", cluster " + xy(d.config.cluster) + " -> " + xy(to);
  };
  const unsigned one = unsigned(ceil_div(uint64_t(s.n), 16) * 16);
  if (kGemmNarrowOneTile && one <= 256) {
    Config w = v;
    w.params["bn"] = int64_t(one), w.cluster = {1, 2, 1};
    const GemmScheduleChoice a = gemm_auto_schedule(s, gemm_tiling(w), device.sm_count);
    if (gemm.check_config(w).empty() && a.schedule == GemmSchedule::SplitK) {
      say("narrow one tile -> bn " + std::to_string(one) + tile_change + cluster_change(w.cluster) + ": " + was + "; one of " +
          std::to_string(one) + " (N " + std::to_string(s.n) + ") in pairs along M sharing B reads it once, " +
          std::to_string(a.splits) + " splits of K over " + std::to_string(rows) + " row tiles as the wave model picks");
      d.config = w;
      return;
    }
  }
  v.params["bn"] = int64_t(half), v.cluster = {2, 1, 1};
  const int fit = device.clusters_that_fit(2).value_or(device.sm_count / 2);
  if (!gemm.check_config(v).empty()) return;
  const uint64_t pairs = cluster_tiles(s, gemm_tiling(v), half);
  if (pairs > uint64_t(std::max(0, fit))) return;
  say("narrow pair -> bn " + std::to_string(half) + tile_change + cluster_change(v.cluster) + ": " + was + "; two of " +
      std::to_string(half) + " (" + std::to_string(2 * half) + " columns for N " + std::to_string(s.n) +
      ") in pairs sharing it read it once, " + std::to_string(pairs) + " pairs of the " + std::to_string(fit) +
      " the device runs at once, the schedule left to the wave model");
  d.config = v;
}

// kGemmLongSplit: packing's narrow static width over a long K gives way to the narrowest width
// of at least 128 columns whose tiles in 2x1 pairs, split in 2 (workspace or cluster, as
// choose_split_plane decides), fill at most one wave of the pairs the device runs at once.
void choose_long_split(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d, const Say& say) {
  const GemmShape s = gemm_kernel_shape(d.config);
  const GemmTiling t = gemm_tiling(d.config);
  if (!kGemmLongSplit || c.named.count("cluster") || s.layout != GemmLayout::TN || t.bm != 128 || t.consumers != 2 ||
      t.bn > 128 || ceil_div(uint64_t(s.k), t.bk) < kGemmLongKblocks ||
      GemmMulticast(c.param("multicast")) != GemmMulticast::Auto)
    return;
  // 128 columns (no packing's width): where the wave model would run them stream-K in less
  // than one wave.
  const bool over_stream_k = long_split_over_stream_k(s, t, device);
  if (t.bn == 128 && !over_stream_k) return;
  // Narrower: packing's static width only (split-K's fitted pair, kGemmSplitFit, stays).
  if (!over_stream_k && gemm_auto_schedule(s, t, model_sms(device, t.cluster_m * t.cluster_n)).schedule != GemmSchedule::Static) return;
  // Against packing's static width, an odd count of 128-row tiles is left to packing (1100 x
  // 1280 x 12288 ran 0.92x at 224 columns in 2 splits against packing's 96).
  if (!over_stream_k && ceil_div(uint64_t(s.m), 128) % 2 != 0) return;
  const uint64_t pairs = uint64_t(std::max(0, device.clusters_that_fit(2).value_or(device.sm_count / 2)));
  Config v = d.config;
  v.cluster = {2, 1, 1};
  for (unsigned bn = 128; bn <= 256; bn += 16) {
    v.params["bn"] = int64_t(bn);
    if (!gemm.check_config(v).empty() || 2 * cluster_tiles(s, gemm_tiling(v), bn) > pairs) continue;
    const GemmScheduleChoice a = gemm_auto_schedule(s, gemm_tiling(v), device.sm_count);
    if (a.schedule != GemmSchedule::SplitK || a.splits != 2) return;
    say("long split -> bn " + std::to_string(bn) + " in 2x1, split-K 2: " + std::to_string(cluster_tiles(s, gemm_tiling(v), bn)) +
        " pairs of 128x" + std::to_string(bn) + " tiles in 2 splits fill one wave of " + std::to_string(pairs) + " where " +
        std::to_string(t.bn) + "-column tiles " + (over_stream_k ? "would run stream-K in less than one wave" : "read more operand rows per flop") +
        " over " + std::to_string(ceil_div(uint64_t(s.k), t.bk)) + " k-blocks");
    d.config.params["bn"] = int64_t(bn);
    d.config.cluster = v.cluster;
    return;
  }
}

}  // namespace tj::samples::device_rules
