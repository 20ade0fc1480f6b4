// Private to the GEMM's device choices (gemm_device.cpp, gemm_packing.cpp, gemm_small_m.cpp): the helpers
// the rules share and the rules that live in their own file. Not installed, not for users.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "samples/gemm.h"

namespace tj::samples::device_rules {

// Adds a line to what for_device says it decided.
using Say = std::function<void(const std::string&)>;
// "XxY" of a cluster (its planes along z left out), as the choices' lines name it.
std::string xy(const ir::Dim3& c);
// A tile width's rate against 256 columns on the H200 (see gemm_device.cpp).
double width_rate(unsigned bn);
// Cluster tiles of t's bm and cluster with `bn` columns per CTA.
uint64_t cluster_tiles(const GemmShape& s, const GemmTiling& t, unsigned bn);
// Whether A's and B's rows start a multiple of `pitch` bytes apart (kGemmAlignedPitch: each
// 128-byte TMA box row is then one line).
bool rows_aligned(const GemmShape& s, uint64_t pitch = kGemmAlignedPitch);
// The SMs the wave model counts for clusters of `ctas`: for more than 2, as many as the
// device runs at once where it says (30 clusters of 4 on a 132-SM H200: 120); else all.
int model_sms(const Sample::DeviceFacts& device, unsigned ctas);
// Whether the spec leaves the tile's rows and warpgroups and split_reduce to the defaults and
// asks for a cluster of at most 2: where a tile rule of the default path may replace the tile.
bool default_tile_shape(const Config& c);

// Small M, long K (gemm_small_m.cpp): the swapped product in pairs covering all of M; whether
// it was taken, in place of choose_width.
bool choose_small_m_swap(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d,
                         const Say& say);

// Whether the long split takes 128 columns that the wave model would run stream-K in less than
// one wave over a long K, before packing (gemm_packing.cpp).
bool long_split_over_stream_k(const GemmShape& s, const GemmTiling& t, const Sample::DeviceFacts& device);
// Packing (gemm_packing.cpp): after choose_width, the width and cluster of the lowest
// estimated time, unclustered or in clusters of 4; `either_way` weighs the swapped product too.
// Its estimate of the pick's time over choose_width's (1 where it left the width).
double choose_packing(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d, const Say& say,
                      bool either_way = false);
// What packing started from, where its pick stood through the width's later rules.
struct Unpacked {
  Sample::DeviceChoice choice;  // choose_width's, before packing
  double packed;                // packing's estimate of its pick against it
};
// kGemmPackingSwap (gemm_packing.cpp): packing again from choose_width's pick either way
// round, taken only where it comes out swapped and estimated faster than packing's own pick.
void choose_packing_swapped(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, const Unpacked& unpacked,
                            Sample::DeviceChoice& d, const Say& say);
// Whether two configs ask for the same kernel and launch (params and cluster).
bool same_choice(const Config& a, const Config& b);
// kGemmNarrowPair (gemm_packing.cpp): packing's pick over a narrow N and a long K gives way to
// two column tiles in pairs along N, or (kGemmNarrowOneTile) to one in pairs along M split along K.
void choose_narrow_pair(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d, const Say& say);
// kGemmLongSplit (gemm_packing.cpp): packing's narrow static width over a long K gives way to
// 2x1 pairs split in 2.
void choose_long_split(const Gemm& gemm, const Config& c, const Sample::DeviceFacts& device, Sample::DeviceChoice& d, const Say& say);

}  // namespace tj::samples::device_rules
