// The GEMM's default path where M is small and K long (Sample::for_device, under bn 0 and the
// automatic schedule): the swapped product (D^T = B A^T), whose tiles run along B's many rows
// with M across their columns.
#include <algorithm>

#include "samples/gemm.h"
#include "samples/gemm_device_rules.h"

namespace tj::samples::device_rules {

// bn 0 where M is small and B long: the swapped product (D^T = B A^T, kGemmSmallMSwapFill) in pairs
// whose two CTAs cover all of M between them and share B's 128 rows by multicast, so that B
// leaves L2 once; where the spec leaves the swap, the tile's rows and warpgroups, pingpong and
// split_reduce to the defaults, asks for a cluster of at most 2, the layout is tn with 2-byte
// inputs with rows kGemmSmallMSwapPitch bytes apart, M is from kGemmSmallMSwapMinM and half of
// it (in 16-column steps) at most kGemmSmallMSwapMaxCols (kGemmSmallMSwapUnalignedMaxCols where
// the rows are not kGemmAlignedPitch apart), K is at least kGemmLongKblocks, and B's tiles of 128
// rows fill at least kGemmSmallMSwapFill of one wave of pairs without a second. Whether it was
// taken.
bool choose_small_m_swap(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d,
                         const Say& say) {
  if (c.named.count("params.swap") || !default_tile_shape(c)) return false;
  const GemmShape s = gemm_kernel_shape(c);
  const GemmTiling t = gemm_tiling(c);
  if (t.swap || s.layout != GemmLayout::TN || ir::scalar_bytes(s.in) != 2) return false;
  const uint64_t half = ceil_div(ceil_div(uint64_t(s.m), 2), 16) * 16, pairs = ceil_div(uint64_t(s.n), 128);
  const uint64_t clusters = uint64_t(std::max(0, device.clusters_that_fit(2).value_or(device.sm_count / 2)));
  const uint64_t max_cols = rows_aligned(s) ? kGemmSmallMSwapMaxCols : kGemmSmallMSwapUnalignedMaxCols;
  if (uint64_t(s.m) < kGemmSmallMSwapMinM || half > max_cols || !rows_aligned(s, kGemmSmallMSwapPitch) ||
      ceil_div(uint64_t(s.k), t.bk) < kGemmLongKblocks || pairs > clusters || double(pairs) < kGemmSmallMSwapFill * double(clusters))
    return false;
  Config v = c;
  v.params["swap"] = 1, v.params["bm"] = 128, v.params["bn"] = int64_t(half);
  v.params["multicast"] = int64_t(GemmMulticast::On);
  v.cluster = {2, 1, 1};
  if (!gemm.check_config(v).empty()) return false;
  d.config = v;
  say("small M -> swap 1, bm 128, bn " + std::to_string(half) + ", cluster " + xy(c.cluster) + " -> 2x1 with multicast: D^T = B A^T in " +
      std::to_string(pairs) + " pairs of 128 of B's rows by " + std::to_string(half) + " of A's (one wave of " + std::to_string(clusters) +
      "), each pair covering all " + std::to_string(s.m) + " rows of A and reading its B tile once for both");
  return true;
}

}  // namespace tj::samples::device_rules
