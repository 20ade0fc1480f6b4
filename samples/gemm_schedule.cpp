// The GEMM's `schedule auto`: a wave model of the device that picks static or stream-K
// (samples/gemm.h).
#include <algorithm>
#include <cstdio>

#include "samples/gemm.h"

namespace tj::samples {

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

GemmScheduleChoice gemm_auto_schedule(const GemmShape& s, const GemmTiling& t, int sm_count) {
  const uint64_t ctas = uint64_t(t.cluster_m) * t.cluster_n;
  const uint64_t clusters = std::max<uint64_t>(1, uint64_t(std::max(sm_count, 1)) / ctas);
  const uint64_t tiles = ceil_div(ceil_div(uint64_t(s.m), t.bm), t.cluster_m) * ceil_div(ceil_div(uint64_t(s.n), t.bn), t.cluster_n);
  const uint64_t kblocks = ceil_div(uint64_t(s.k), t.bk), waves = ceil_div(tiles, clusters);
  const std::string what = std::to_string(tiles) + " cluster tiles on " + std::to_string(clusters) + " clusters (" +
                           fixed(double(tiles) / double(clusters), 2) + " waves)";
  // Fewer tiles than half the clusters and a long K: split-K, as splits 0 picks its count
  // (measured faster than stream-K there: one partial per unit instead of two per cluster).
  GemmTiling split = t;
  split.splits = 0;
  if (const unsigned splits = gemm_workspace(s, split, sm_count).splits; splits > 1)
    return {GemmSchedule::SplitK,
            what + ": split-K, each tile's " + std::to_string(kblocks) + " k-blocks in " + std::to_string(splits) +
                " ranges run by different clusters",
            splits, double(ceil_div(tiles * splits, clusters) * kblocks) / double(splits) + double(splits - 1) * kGemmSplitKPartial};
  if (tiles % clusters == 0) return {GemmSchedule::Static, what + ": whole waves, no tail", 1, double(waves * kblocks)};
  // Time in k-blocks of one cluster: static runs whole waves; stream-K spreads the same
  // k-blocks evenly and pays for the partials of the tiles that clusters share.
  const double static_time = double(waves * kblocks);
  const double stream_time = double(tiles * kblocks) / double(clusters) + kGemmStreamKFixup;
  const uint64_t shared = tiles < clusters ? tiles : tiles % clusters + clusters;
  const std::string model = "static " + std::to_string(waves) + (waves == 1 ? " wave of " : " waves of ") + std::to_string(kblocks) + " k-blocks, the last " +
                            fixed(100.0 * double(tiles % clusters) / double(clusters), 0) + "% busy; stream-K est. " +
                            fixed(stream_time / static_time, 2) + "x of its time";
  // The narrow tile (bm 64, one MMA warpgroup) on fewer tiles than clusters: stream-K would
  // share every tile, each with its fix-up; 0.81-0.82x of one static wave at 2304x256x8192 on
  // the H200 (same process, two calls; docs/performance-log.md). Wider tiles keep the model's
  // choice: under stream-K 192 columns ran 1.07x as fast as static at 3072x768x12288, 128
  // columns 0.92-0.98x at 1000x1280x16384 (two calls): no rule for them yet.
  if (tiles < clusters && t.bm < 128)
    return {GemmSchedule::Static, what + ": " + model + "; the narrow tile on fewer tiles than clusters stays static", 1, static_time};
  if (stream_time <= static_time * (1.0 - kGemmStreamKMargin))
    return {GemmSchedule::StreamK,
            what + ": " + model + " (the k-blocks of the last " + std::to_string(shared) + " tiles shared by every cluster)", 1,
            stream_time};
  return {GemmSchedule::Static, what + ": " + model + ", too little to gain", 1, static_time};
}

}  // namespace tj::samples
