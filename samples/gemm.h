// gemm: D = alpha * A * B + beta * C on the tensor cores, written with the DSL's
// tiles. A is M x K row-major; B is N x K row-major ("tn": K contiguous, what the
// MMA reads natively) or K x N row-major ("nn": N contiguous, read transposed);
// C and D are M x N row-major. bf16 or f16 in, f32 accumulate, bf16/f16/f32 out.
//
// The kernel is persistent and warp-specialized: one producer warpgroup streams
// A and B tiles through a `stages`-deep pipeline with TMA (multicast across the
// cluster: A along a cluster row, B along a cluster column), and one or two
// consumer warpgroups run wgmma on them into register accumulators, then write
// the tile through shared memory with TMA stores. Tiles are handed out by a
// static persistent schedule with grouped rasterization.
//
// Split-K (`splits` > 1) for problems with fewer output tiles than SMs and a long
// K: each tile's K is cut into `splits` ranges run by different clusters at the
// same time; each writes its f32 partial to a workspace, and the one that
// finishes last adds them up and runs the epilogue (one launch, no waiting).
#pragma once

#include <cstdint>
#include <string>

#include "dsl/ir/kernel.h"
#include "dsl/ir/types.h"
#include "generators/sample.h"

namespace tj::samples {

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

enum class GemmLayout : uint8_t { TN, NN };

// What the epilogue does after alpha * A * B, fused into the kernel (beta 0 only):
// x *= col_scale[j] (one f32 per column of D), x += bias[j], then the activation:
// relu max(x, 0); gelu (tanh form) x / 2 (1 + tanh(0.7978845608 (x + 0.044715 x^3)));
// silu x / (1 + e^-x) (tanh and e^x in the fast .approx forms); then, with residual,
// + R[i, j]: an m x n matrix in D's type, loaded by TMA through the map C.
enum class GemmAct : uint8_t { None, Relu, Gelu, Silu };
struct GemmEpilogue {
  bool bias = false, col_scale = false, residual = false;
  GemmAct act = GemmAct::None;
  bool any() const { return bias || col_scale || residual || act != GemmAct::None; }
};
// The epilogue applied to one value x of alpha * A * B, in double (the host reference);
// `residual` is R's element (ignored without one).
double gemm_epilogue_apply(const GemmEpilogue& e, double x, double scale, double bias, double residual);

// The problem.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  ir::Scalar in = ir::Scalar::BF16;   // BF16 or F16
  ir::Scalar out = ir::Scalar::BF16;  // BF16, F16 or F32
  GemmLayout layout = GemmLayout::TN;
  double alpha = 1.0, beta = 0.0;
  GemmEpilogue epilogue = {};
  // Elements from one row of A, B or D to the next (C and the residual R share D's); 0:
  // the row's extent rounded up to 16 bytes, what TMA needs (dense where it is a multiple).
  int64_t lda = 0, ldb = 0, ldd = 0;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  int64_t b_row() const { return layout == GemmLayout::TN ? k : n; }  // elements in a row of B
  int64_t a_pitch() const { return pitch(lda, k, in); }
  int64_t b_pitch() const { return pitch(ldb, b_row(), in); }
  int64_t d_pitch() const { return pitch(ldd, n, out); }

 private:
  static int64_t pitch(int64_t ld, int64_t row, ir::Scalar t) {
    const int64_t per16 = 16 / int64_t(ir::scalar_bytes(t));
    return ld ? ld : (row + per16 - 1) / per16 * per16;
  }
};

// How tiles reach clusters (the spec's `schedule`): Auto is resolved by for_device where
// the device is known (static without one); SplitK cuts every tile's K (`splits`);
// Dynamic claims each next tile at run time (for_each_tile(dynamic(group))).
enum class GemmSchedule : uint8_t { Auto, Static, StreamK, SplitK, Dynamic };
// Whether a cluster's CTAs share A and B through TMA multicast (the `multicast` parameter).
enum class GemmMulticast : uint8_t { Off, On, Auto };

// Where split-K's partials meet (the `split_reduce` parameter).
enum class GemmSplitReduce : uint8_t { Auto, Workspace, Cluster, Atomic };

// Stream-K's cost beyond its share of k-blocks, in k-blocks of one cluster, and the gain
// below which auto stays static. Set from per-unit timelines on the H200
// (docs/performance-log.md, 2026-12-02): a shared tile's pieces cost their k-blocks at
// the whole tiles' rate plus about 11 us (the piece that stores its partial) and 8 us
// (the owner that adds it), ~28 k-blocks of 128x256 per cluster; with the slower whole
// tiles of the stream-K phase, makespans fit 33-41 over 4096^3, 4224^2 x 4096 and 5120^3.
inline constexpr double kGemmStreamKFixup = 36.0, kGemmStreamKMargin = 0.02;
// Split-K's cost of each partial beyond the first, in k-blocks of one cluster (stored by
// one CTA, added by the tile's last), and the rate of 128-column tiles against 256
// (more operand bytes per flop). Set from the H200 (docs/performance-log.md): 1024x1024x8192
// and 256x4096x8192 ran 0.74x / 0.80x cuBLAS at 256 columns in 4 splits and 0.89x / 0.95x
// at 128 in 2, the same k-blocks per CTA; and 256 columns in 2 splits ran 0.887-0.973x
// of 128 columns unsplit on five shapes of 24-32 cluster tiles with K 8192 (a partial
// costs 5-12 k-blocks there).
inline constexpr double kGemmSplitKPartial = 8.0, kGemmRate128 = 0.95;
// Packing's narrowest width (choose_packing, tn), and the rate model below 128 columns:
// a tile's time per element grows as 1 + kGemmNarrowBytesCost x (1 / bn - 1 / 128) over
// 128's (the operand bytes per flop at bm 128), fitted to 128 and 192 columns' rates.
inline constexpr unsigned kGemmMinPackedBn = 80;
// Packing's step between widths (tn): 16 columns. And whether it weighs the swapped product
// (D^T = B A^T) beside the unswapped where its own pick stood through the width's later rules
// and the one-wave swap (choose_packing_swapped): on the H100, same process, against the pick it
// replaced at 33 shapes, 0.68-0.99x of the time at 30, 1.01x at two, 1.10x at one of four
// k-blocks; where it preempted those rules, 1.03-1.10x at six of seven (docs/gemm-perf-notes.md).
inline constexpr unsigned kGemmPackingStep = 16;
inline constexpr bool kGemmPackingSwap = true;
inline constexpr double kGemmNarrowBytesCost = 13.5;
// Elements a tile's first column is a multiple of (16 bytes of bf16 and f16, 32 of f32):
// TMA's innermost coordinate into D, and into B with layout nn.
inline constexpr int32_t kGemmColumnAlign = 8;
// A width that is not a multiple of 64 is a candidate only where the wave model puts it
// this far ahead of the multiple of 64 above it in the same cluster (the tile it narrows).
// From the H200 (same process, the default path against the previous choice,
// docs/performance-log.md): estimated 0.66-0.906x of that width, such widths ran 1.005-1.18x
// faster than the previous choice on fourteen shapes; estimated 0.913-0.94x, 0.95-1.04x (224
// against 256 at 5000^2 x 1000, 240 against 256 at 3584x2048x4096, 112 against 128 in 2x2
// at 1536x1000x3000 slower; 176 against 192 at 4224^2 x 4096 faster).
inline constexpr double kGemmFineMargin = 0.09;
// split_reduce auto puts split-K's splits into a cluster of their own, (1, 1, splits),
// where A and B together take at most this many bytes; above, it keeps the workspace and
// the requested cluster, whose multicast shares operands. From the H200 (same process,
// cluster 1x2 with the workspace against 1x1x2, docs/performance-log.md): 1.02-1.18x on
// five shapes with 8-40 MiB of operands, 0.965x at 256x4096x8192 (68 MiB). Clusters of
// 4 (1x2x2) fit only 30 at once there, so a plane of one CTA.
inline constexpr uint64_t kGemmSplitInClusterOperandBytes = uint64_t(40) << 20;
// Split-K through the workspace in at least this many splits: split_reduce auto adds the
// partials atomically into one slot per tile (split_reduce atomic) instead of leaving them
// to the tile's last split, which reads splits - 1 of them alone. From the H200 (same
// process, the default path against split_reduce atomic, docs/performance-log.md): atomic
// 1.04x (4 splits) to 1.68x (22 splits) on seven shapes with 4 to 22 splits, 1.53x and
// 1.78x against the workspace forced at 8 and 22 splits; 0.97x at 2 splits (256x4096x8192,
// 1000x1000x16384), where the last split reads one partial anyway.
inline constexpr unsigned kGemmAtomicMinSplits = 4;
// Where split-K would take few tiles (fewer 256-column tiles than half the clusters),
// 64-column tiles unsplit instead when they fill more than half the clusters in one wave
// and K is at most this many k-blocks: each CTA then runs its tile's whole K with no
// partial to exchange, which pays while K is short. From the H200 (same process, default
// path with split-K 2 in the cluster at 128 columns against bn 64 static, cluster 1x2,
// docs/performance-log.md): bn 64 1.10x at 1024^2 x 2048 (32 k-blocks), 1.17x at 1024^3
// (16), 1.11x at 512x2048x2048 (32); 0.92x at 1024^2 x 4096 (64).
inline constexpr uint64_t kGemmNarrowMaxKblocks = 32;
// Where split-K would take few tiles, and 64 x 128 tiles in pairs along M fill more than
// half the clusters of 2 in one wave, with 128-byte-aligned operand rows and A and B within
// kGemmSplitInClusterOperandBytes: bm 64, bn 128, one MMA warpgroup (its m64n128 wgmmas read
// each operand byte of a k-block once; two warpgroups of 64 x 64 read B twice), in 1x2
// clusters without multicast (the pair reads the same B columns at the same time on one GPC
// and L2 serves them together; multicast's coupled pipelines cost ~20% here), all of K per
// tile. From the H200 (same process against the default path then, split-K 2 in the cluster
// at 128 columns, or 64-column tiles of two warpgroups; at mma_depth 2): 1.01x at 1024^2 x
// 8192, 1.10x at 1024^2 x 4096, 1.05x at 2048x512x8192, 1.21x at 512x2048x4096, 1.04x at 1024^2
// x 2048 (1.07x at 512x2048x2048 with depth 3); at depth 3, 0.965x at 256x4096x8192 (68 MiB of
// operands, left to split-K) and 0.86x at 1000^3 (unaligned rows: the 64-column rule above
// with multicast along N).
// Where split-K would take few tiles and the narrow tile does not apply (unaligned rows, or its
// pairs too few for splits of 4), kGemmSmallTile x kGemmSmallTile tiles of one MMA warpgroup
// in 2x2 clusters with multicast, where those clusters fit one wave of the clusters of 4 the
// device runs at once (30 on a 132-SM H100 or H200): more CTAs than 128-row tiles, each with
// fewer operand rows per k-block, with fewer splits or none. From the H100 (each config
// against cuBLAS in its own process, per-rep medians, docs/performance-log.md), against the
// default then (128 x 128 in split-K): 0.62 -> 0.79 (188x1408x1608), 0.76 -> 0.92
// (308x816x2680), 0.57 -> 0.77 (172x568x1000), 0.62 -> 0.80 (128x3072x2048), 0.86 -> 0.86
// (320x640x6000); slower where the clusters did not fit one wave (384x1536x3000 0.71 -> 0.59,
// 136x2904x3320 0.59 -> 0.51, 500x1200x4000) and where the narrow tile's splits ran (aligned
// 256x1024x2048 0.91 -> 0.76, 256x768x4096 0.98 -> 0.79), so neither takes it. Clusters of
// 4x2 ran 0.807 / 0.818 against 2x2's 0.793 / 0.920; 12 stages against 8 slower everywhere.
// Over K of 16-42 k-blocks; at 94 (320x640x6000) no faster, so only up to
// kGemmSmallTileMaxKblocks, where few-tile long-K shapes keep split-K in pairs or quads.
inline constexpr unsigned kGemmSmallTile = 64;
inline constexpr uint64_t kGemmSmallTileMaxKblocks = 64;
// The small tile's narrower width (in place of kGemmSmallTile columns, either way round: swapped,
// 48 of M's rows on the MMA's N side, as cuBLAS runs 188x1408x1608). Its CTAs are bound by the
// operand bytes they read: 48 columns read an eighth fewer rows per k-block each, and where M
// leaves most of a square tile's A rows empty, swapped tiles read fewer in all. It gives way where
// the square tile's clusters leave enough of the wave idle for its schedule to split K and its
// own do not: each CTA then runs over twice the k-blocks (docs/gemm-perf-notes.md).
inline constexpr unsigned kGemmSmallTileNarrowCols = 48;
// Small M, long B: the swapped product in pairs covering all of M (choose_small_m_swap) where
// B's 128-row tiles fill at least this much of one wave of pairs. From the H100 (each config
// against cuBLAS in its own process, per-rep medians, docs/performance-log.md): 320x7168x12288
// 0.617 (192 columns unclustered over 3 row tiles, B read three times) -> 0.989 (swap, 128 x 160
// in 2x1; 0.888 unclustered or in 1x2), 256x8192x8192 0.921 -> 1.000 (128 x 128 in 2x1), both
// filling 0.85-0.97 of the pairs; 384x6144x8192 (0.73 of them) 0.935 -> 0.828. On nine random
// shapes (M 148-344, N 6856-7992, K 8464-16488) it lost at five: halves of M under 128 columns
// (0.70-0.82 against 0.81-1.04) and unaligned rows (344x7552x16488 0.58 against 0.83), where
// packing's tall tiles and quads had been chosen. Hence aligned rows (but see
// kGemmSmallMSwapPitch) and halves from 128 columns only; so restricted, on seven new random
// shapes (M 247-375, K a multiple of 64) it ran 1.03x-1.25x of the previous default (0.761 ->
// 0.945 of cuBLAS at 273x7072x15360, 0.845 -> 1.009 at 247x6832x13760). M from kGemmSmallMSwapMinM (halves of 128 columns at least 121 rows full;
// the random draw was M 241-384), halves up to kGemmSmallMSwapMaxCols (not measured past 192).
inline constexpr double kGemmSmallMSwapFill = 0.8;
inline constexpr uint64_t kGemmSmallMSwapMinM = 241, kGemmSmallMSwapMaxCols = 192;
// Rows a multiple of 32 bytes apart but not of 128 (H100, default path against default path,
// the rule with these rows against without): on eleven shapes (one from the issue's class,
// ten random: M 273-362, N 6905-8270, K 8624-17584, a multiple of 16 not of 64) the swap ran
// 1.04-1.23x where its halves were at most 144-160 columns (7 of 7: 283x7992x9056 1.23,
// 300x7572x9184 1.14) and 0.88-1.03x at 176-192 (329x7891x17360 0.88, 362x6905x8624 0.92): those
// rows take halves up to kGemmSmallMSwapUnalignedMaxCols. Rows 16 bytes past a multiple of 32
// ran 0.58x (344x7552x16488) and stay out.
inline constexpr uint64_t kGemmSmallMSwapPitch = 32, kGemmSmallMSwapUnalignedMaxCols = 160;
// One wave, swapped (choose_wave_swap): where the default's tiles run more than one static
// wave, the swapped product in unclustered tiles whose two consumers split the columns (coop
// cols), sized so that every tile runs in the first wave: swapped, the tile's columns run
// along M in steps of 16 rows, so one wave can be cut close to M (cuBLAS runs 820x5904x688 as
// 124 swapped tiles of 192 x 208). Taken where the MMAs' estimate (tile area over its width's
// rate, per wave) beats the incumbent's by kGemmPackingMargin, over rows a multiple of 32 bytes
// apart (kGemmSectorPitch) and with no cost for TMA rows: unclustered swapped tiles over such
// rows ran faster than that cost says (docs/gemm-perf-notes.md).
inline constexpr bool kGemmWaveSwap = true;
// A coop-cols tile's rate against the row split's at the same size: at 820x5904x688 (H100) the
// swapped 192 x 208 ran 1.21x the default where the MMAs' estimate says 1.27x.
inline constexpr double kGemmCoopColsRate = 0.96;
// Where the default's tiles already run in one wave, the swap is taken over at most
// kGemmOneWaveSwapKblocks k-blocks wherever its tile's estimate is below the incumbent's (no
// margin). From the H100 (same process, swapped against the default, per-rep medians): 6-18%
// faster at 10 of 11 one-wave shapes over 4-31 k-blocks, even where the estimate said 3-4% (the
// unclustered tile's start and epilogue weigh over a short K), 0.2% slower at 345x4350x1712;
// over 41-60 k-blocks 1.05x slower (303x7231x2896) to 15% faster, where the default's
// multicast halves its L2 traffic.
inline constexpr uint64_t kGemmOneWaveSwapKblocks = 40;
inline constexpr unsigned kGemmNarrowRows = 64, kGemmNarrowCols = 128;
// Split-K's regime with N of at most 256 columns (tn, 2-byte inputs, the spec leaving the tile,
// cluster and multicast to the defaults): one pair covers N exactly, in 8-column steps, rather
// than tiles of 128 columns whose last one is partly or wholly past N: up to 128 columns one
// tile of N's width in 1x2 pairs along M sharing B (where M has two row tiles or more), else
// two of half of N in 2x1 pairs sharing A; it takes the place of the narrow tile's splits too
// (not of its unsplit wave, nor of the small tile). The splits stay the wave model's. From the H100 (same process, per-rep medians,
// the fitted pair against the default of the time): 0.66-0.96x of its time on ten random shapes
// (N 88-232, K 8024-19448), 0.74-0.92x on five more, among them 338x192x18144 (0.81x); N of
// 320-448 in two tiles of 160-224 ran 1.03-1.09x slower, so N over 256 keeps 128 columns.
inline constexpr bool kGemmSplitFit = true;
inline constexpr int32_t kGemmSplitFitMaxN = 256;
// The narrow tile unsplit gives way where 128-row tiles of kGemmNarrowCols columns, in the
// spec's pair, would split K in at least this many (the pairs then fill at most 2/3 of the
// wave), over a K of at least kGemmNarrowYieldMinKblocks. From the H200 (same process, 128 x
// 128 in 3 splits against the narrow tile static, per-rep medians): 1.19x at 2304x256x8192,
// 1.27x at 1280x512x8192, 1.27x at 768x768x8192, 1.23x at 2816x256x8192, 1.13x at
// 1408x512x8192; at K 4096 0.94x (896x768) and 1.02x (1408x512). In 2 splits (each
// config against cuBLAS in its own process) 0.78-1.11x, so those keep the narrow tile.
inline constexpr uint64_t kGemmNarrowYieldSplits = 3;
// The narrow tile unsplit narrows from kGemmNarrowCols in 16-column steps (tn, down to
// kGemmMinPackedBn) where its pairs still fit one wave, taking the width whose tile the rate
// model (kGemmNarrowBytesCost) puts this far ahead of 128 columns' (all tiles run at once, so
// the time is one tile's). From the H200 at 256x2560x3072 (40 pairs of 128 columns on 66
// clusters; each config against cuBLAS in its own process, ours' median TFLOP/s): 80 columns
// (64 pairs) 410.8 against 128's 367.1 (1.12x; the model says 1.50x), 96 386.0 (1.05x; 1.29x),
// 112 368.3 (1.00x; 1.13x). Then the rule against 128 columns, same process, per-rep medians:
// 1.35x (256x2560x3072, 80), 1.21x (2000x384x3072, 96), 1.19x (512x1536x4096), 1.21x
// (256x3072x4096), 1.19x (384x2048x4096, edge moved), 1.07x (384x2048x8192), 1.09x
// (256x2560x6144), 1.17x (512x1536x6144); but 0.86x at 768x1024x4096 and x6144 and 1.00x at
// x3072, whose last 96-column tile holds 64 (hence narrow_width's whole last column).
inline constexpr double kGemmNarrowWidthGain = 1.2;
inline constexpr uint64_t kGemmNarrowYieldMinKblocks = 128;
// The narrow tile also where its pairs fill the clusters in at least this many splits of K
// (split-K with the workspace): each partial half a 128-row tile's, and fewer of them. From
// the H200 (same process, against 128 columns of two warpgroups in split-K): 1.27x at
// 384x512x8192 (5 splits against 11), 1.09x at 256x1024x8192 (4 against 8); 0.90x at
// 640x512x12288 (3 against 6) and 0.87x at 768x512x12288 (2 against 5).
inline constexpr uint64_t kGemmNarrowMinSplits = 4;

// multicast auto, where bn 0 picks the tile width on a known device: a 2-CTA cluster
// whose tiles fill at most one wave of clusters, with operand rows a multiple of
// kGemmAlignedPitch bytes, runs unclustered (1x1, no multicast): tying each pair's
// pipelines together costs more there than sharing loads saves. Where rows are not so
// aligned (each 128-byte TMA box row then spans two lines) multicast stays, and 64-column
// tiles take the pair along N (2x1), sharing A's 128 rows instead of B's 64. From the
// H200 (same process, the default path against the variant, docs/performance-log.md):
// unclustered 1.04-1.20x on twelve one-wave shapes with K 512-2048 and 1.006-1.026x at
// K 4096-8192; more than one wave, 0.989-1.016x (kept clustered); at K 1000 or 2000 the
// clustered default ran up to 1.33x faster than without multicast, and 2x1 gained
// 1.07-1.17x at 64 columns. Stream-K keeps its pair too (see kGemmStreamKPairMinN).
inline constexpr uint64_t kGemmAlignedPitch = 128;
// Where schedule auto takes stream-K for a spec that leaves bn to the device (and names no
// cluster, or 1x2) and B has at least this many rows: 256-column tiles in 1x2 pairs sharing
// B by multicast, under the schedule the wave model gives them (stream-K, or static where
// their waves end full enough): the widest tile in a pair reads the fewest operand bytes per
// flop. Narrower B keeps the width chosen and the spec's pair with multicast. Per-rep
// medians against cuBLAS (docs/performance-log.md), the previous default (unclustered: 192
// or 256 columns) -> the pair. H200: 0.834 -> 0.913 (7183x2376x13824), 0.892 -> 0.911
// (4999x3696x12352), 0.913 -> 0.950 (4608x2304x8192), 0.893 -> 0.894 (2392x5744x13952),
// 0.957 -> 0.973 (5120^3). H100: 0.702 -> 0.890, 0.807 -> 0.846, 0.791 -> 0.940, 0.752 ->
// 0.862, 0.915 -> 0.970 on those, 0.764 -> 0.950 (7547x7688x14528); where 256 in 1x2 runs
// static, 5187x3736x13760: 0.735-0.768 -> 0.946-0.962. Under 2048 rows of B, the pair of the
// width chosen (192 in 2x1) at 4981x1512x10496: H100 0.741-0.751 -> 0.862-0.866, H200 0.878 ->
// 0.876; 256 in 2x1 at 8576x512x8192: H100 1.049 -> 1.040. Unclustered stream-K ran 0.945-0.971
// against 0.860-0.875 for the 2x1 pair at 5187x3736x13760 on the H200 (192 columns), where 256
// in 1x2 now runs static (not yet timed on the H200).
inline constexpr int64_t kGemmStreamKPairMinN = 2048;
// ... and where that stream-K runs over at least this many k-blocks (tn, 2-byte inputs in rows
// of whole 128-byte lines, a spec that leaves the tile's rows, warpgroups, coop and cluster to
// the defaults): cuBLAS's tile there instead, 192 x 192 with the two consumers splitting the
// columns (coop cols) in 2x1 pairs sharing A, under the wave model's schedule, where that
// model's time for it weighed by tile area is no more than the 256-column pair's (padding and
// waves decide it: the two tiles ran at about the same rate per area where they pad alike). A
// tile 1.125x the area of 128 x 256 reads fewer operand bytes per flop (at 2392x5744x13952,
// ncu: 476 MB from DRAM against 840 MB for 256 in 1x2, as cuBLAS's 444 MB). H100, same process,
// the square over the pair (per-rep medians) at the sixteen long-K shapes measured, the area
// test fitted to them: 1.01-1.14x at eight it takes (2392x5744x13952 1.124, 2408x6086x15552
// 1.141), 0.926 at one (5698x2822x11968); 0.84-1.07x at the seven it leaves to the pair
// (5103x5053x16128 0.842, 4999x3696x12352 1.071).
inline constexpr uint64_t kGemmStreamKSquareMinKblocks = 128;
// ... except tiles narrower than 128 columns over at least this many k-blocks: there the
// pair keeps multicast (along N, sharing A's rows, where that makes no more cluster tiles),
// each CTA's L2 reads for a flop being highest at narrow widths. From the H200 (same process):
// 80 columns at 1000x1280x16384 ran 1.18x faster in 2x1 with multicast than unclustered
// (1.08x in 1x2); 96-160 columns at K 1024-2048 ran 1.08-1.10x faster unclustered.
inline constexpr uint64_t kGemmLongKblocks = 128;
// Where packing takes a width under 128 columns (static, one wave) over at least
// kGemmLongKblocks k-blocks and the spec names no cluster: the narrowest width from 128 up
// whose tiles in 2x1 pairs, split in 2, still fit one wave of pairs, if schedule auto splits
// it so (choose_long_split). Each CTA then reads (bm + bn / 2) operand rows for 2x the
// outputs per k-block, over half the k-blocks: fewer L2 reads per flop, which the wave model
// does not weigh (it rates both alike). From the H200 (same process, the split tile against
// packing's, per-rep medians): 1.11x at 1000x1280x16384 (160 against 80), 1.05x at
// 1024x1120x16384, 1.06x at 1000x1280x8192, 1.33x at 1200x1000x16384 (192 against 80), 1.01x
// at 900x1400x12288 (192 against 96); 0.54x at 1100x1280x12288 at 192 columns, whose split
// tiles made 70 cluster units on 66 clusters (two waves, which the rule excludes). The rule
// against packing's choice, same process: 1.10x (1000x1280x16384, 160), 1.14x (1024x1120x16384,
// 144), 1.03x (1000x1280x8192), 1.06x (900x1400x12288, 176), 1.35x (1200x1000x16384, 176);
// 0.92x at 1100x1280x12288 (224), whose 9 tile rows leave a pair's CTA past m: odd tile rows
// are left to packing. Likewise where no packing width was taken and 128-column tiles would
// run stream-K in less than one wave (odd tile rows included): on the H100, 1917x680x13088
// ran 0.908 of cuBLAS at 176 columns in 2 splits against 0.618 for stream-K at 128 (per-rep
// medians, one process each).
inline constexpr bool kGemmLongSplit = true;
// Split-K through the workspace or atomic adds, in the default 2x1 pair, where B is this many
// 128-column tiles wide: a 4x1 cluster spans them (choose_split_quad), where the device runs
// the tiles' clusters for every split at once. Per-rep medians against cuBLAS, the pair -> 4x1
// (one process each): H200 0.888 -> 0.899 (640x512x12288), 0.921 -> 0.992 (896x512x12000),
// 0.996 -> 1.018 (1280x512x8192); H100 0.883 -> 0.938 (640x512x12288), 0.907 -> 0.980
// (768x512x12288). With fewer splits than the pair (1024x512x8192: 3 against 4, since 32
// clusters of 4 would not fit) 0.959 -> 0.880 on the H200: not taken.
inline constexpr unsigned kGemmSplitQuadCols = 4;

// bn 0 with schedule and multicast auto (but not the narrow tile, nor 64 columns): the tile's
// width (256, 192 or 128 columns) and its cluster (the spec's pair, or where the spec names
// none both pairs, 2x1 and 1x2; unclustered where operand rows are 128-byte aligned, 2x2 where
// they are not) chosen together by the wave model (static waves of the clusters the device runs
// at once), each k-block costing the width's MMAs over its rate or, with unaligned rows, the
// rows each CTA's TMA loads issue (bm / cluster x of A, bn / cluster y of B) over
// kGemmUnalignedRows, whichever is more: each 128-byte box row then spans two lines, and the
// loads bound the rate. A candidate replaces the width chosen for the spec's cluster only when
// estimated kGemmPackingMargin faster. From the H200 (same process, the default path against
// the variant, docs/performance-log.md): aligned, 256 unclustered 1.45x at 1152x3584x4096 (one
// wave against two of 192 in 1x2), 128 unclustered 1.38x at 2304x896x2048 (one wave, against
// 192), 128 1.10x at 1280x8192x2048 (5 waves against 3 of 256); unaligned, 1x2 1.21x over 2x1
// at 8192x1280x1000 (256 rows against 320), unclustered 0.63-0.73x (384), 2x2 1.39x at
// 1536x1000x3000 (128 columns: 128 rows against 192 in 2x1) and 1.25x at 2048x2560x3000 (192:
// 160 against 224 in 1x2), but slower where 4-CTA clusters took more waves.
inline constexpr double kGemmPackingMargin = 0.05, kGemmUnalignedRows = 250.0;
// Clusters of 4 against that model: 256-column tiles in 1x4 and 2x2 ran about 5% faster than
// their rows and waves predict, relative to pairs and tall tiles, over the unaligned shapes of
// one call on the H200 (18, each config against cuBLAS; 15 in the fit: docs/performance-log.md):
// each operand line leaves L2 once for up to four SMs. Packing weighs them at (1 -
// kGemmQuadGain) of the model's time. 1x4 (four tiles along M sharing B) only at
// kGemmQuadAlongMBn columns, each CTA loading a 64-row slice of B: it ran at or above 2x2 of
// 256 columns on all of those shapes (1.30x at 8192x1280x1000, where 2x2 takes a fourth
// wave), while 192 columns in 1x4 ran 0.70x of 1x2 at 1000x3000^2.
inline constexpr double kGemmQuadGain = 0.05;
inline constexpr unsigned kGemmQuadAlongMBn = 256;
// Where packing picks a pair along M (1x2) it takes four along M (1x4) at the same tile when K
// has at least kGemmQuadAlongMMinKblocks k-blocks and the model rates them no slower (the same
// waves: kGemmQuadGain decides). On an H100 against the pair (or the unclustered tile the pair
// gave way to), default path to default path: 1.05-1.20x ours' TFLOP/s on 8 of 10 shapes
// (4342x328x9472 1.20, B's 112-row tiles in slices of 28), 0.90x and 0.97x on the two with 19
// and 27 k-blocks; one other with 27 gained 1.05x (docs/performance-log.md).
inline constexpr bool kGemmQuadAlongMPairs = true;
inline constexpr unsigned kGemmQuadAlongMMinKblocks = 32;
// The wide tile packing weighs (128 x kGemmWideBn, two m64n160 wgmmas per consumer with A
// from registers, 3 stages) with layout tn, in 1x2 only (ptxas spills it unclustered; in 1x2
// each CTA loads 160 of B's rows), at kGemmWideRate of 128x256's rate per flop (0.91x cuBLAS
// against 0.94x at 8192^3). `tilejit tune` found it 1.10x the 1x4 choice at 8192x1280x1000 on
// the H200 (four tile columns exactly, two waves against three); same process against the
// previous choice: 1.108 there and at 2048x2560x3000, 1.039 at 5000^2 x 1000, 1.005-1.014 at
// 2000x2560x1024, 1280x4096x2048 and 1280x8192x2048.
inline constexpr unsigned kGemmWideBn = 320;
inline constexpr double kGemmWideRate = 0.97;
// Packing's taller tiles: kGemmTallRows rows in kGemmTallRows / 64 consumer warpgroups (192 x
// 192 as cuBLAS runs at 3000^3), their rate per flop against 128 rows at the same width
// (fewer operand bytes per flop: 192x192 ran 1.02x faster than 128x256 at 6144^3 on the H200,
// 8 waves against 9), taken only kGemmTallMargin ahead of the best 128-row tile, with unaligned
// operand rows and a K of at least kGemmTallMinKblocks k-blocks. Same process on the H200,
// against the 128-row choice: 1.11x at 3000^3 (192x192), 1.06x at 3000x1000x5000 (192x128);
// at K 1000 1.08x at 8192x1280x1000 but 0.88x at 5000^2 x 1000 and 0.95x at 2048x896x1000,
// where the model had put them 4-9% ahead.
// Their widths start at kGemmTallMinBn: 192x112 in 2x2 ran 0.69x the 128x128 choice at
// 2000x1000x6000 (1.05x at 2200^3).
inline constexpr unsigned kGemmTallRows = 192, kGemmTallMinKblocks = 32, kGemmTallMinBn = 128;
// 192x192 in 1x2 clusters ran 0.98x of 2x1 (the same TMA rows per CTA) at 3000^3,
// 7000x3000x2200 and 1500x3000x5000, same process: the model's cost of pairs along M.
inline constexpr double kGemmTallAlongM = 1.02;
inline constexpr double kGemmTallRate = 1.03, kGemmTallMargin = 0.05;
// Operand rows a multiple of kGemmSectorPitch bytes (not of 128) over fewer than
// kGemmTallMinKblocks k-blocks: where packing would take a 2x2
// cluster, a tall tile in a 2x1 pair takes its place when the wave model, costing the pair by
// its MMAs, puts it ahead (a 128-byte box row of such an operand touches four 32-byte sectors,
// as an aligned one does: 192x176 unclustered ran 1.004-1.020x cuBLAS at 4362x2968xK for K
// 1792, 1824 and 1840, against 0.71-0.74x at K 16 bytes past those; and clusters of 4 run on
// 120 of 132 SMs). On an H100, default path to default path, each build in its own process:
// 1.005-1.21x on 14 of 15 such shapes (2128x3904x1424 1.21, 820x5904x688 1.08, 4362x2968x1824
// 1.07), 0.97x on one; in place of pairs (1x2) and 1x4 the same tall pairs ran 0.94-1.08x,
// no better on the whole, so not there (docs/performance-log.md).
inline constexpr uint64_t kGemmSectorPitch = 32;
// Over a long K and a narrow N, packing's pick of more than two column tiles gives way to two
// (bn = N / 2 rounded up to 16) in 2x1 pairs that share A by multicast, scheduled by the wave
// model (split-K or stream-K over the idle SMs), where those two compute no more of D's columns
// than the pick, the pairs fit one wave and K has at least kGemmNarrowPairMinKblocks k-blocks.
// Narrow tiles read A once per column tile for few MACs, and packing's
// model, which costs each CTA's rows over its own rate, does not see A read three or four
// times. H100, same process, the default against the pair in 2x1 (in 2x2 much the same:
// 0.82-0.92): 0.82-0.93x of the time at five shapes of 104-231 k-blocks (3870x412x6640 0.822,
// 5013x224x12720 0.846, 3794x392x14768 0.877, 5353x384x14288 0.932, 3426x289x13136 0.934);
// slower where the pair computes more columns (4342x328x9472, 1.13) and over 52-99 k-blocks
// (4766x438x3488 1.03, 4492x422x3296 1.06, 4746x288x6336 1.07) (docs/performance-log.md).
// Fresh shapes (narrow_pair_val.txt, narrow_few_val.txt, H100), the pair's speed over the
// pick's: 1.04-1.36x at ten of eighteen with 62-88 pair CTAs (0.90-0.98x at the other eight).
// With fewer (34-56), which the wave model splits: in 3 splits 0.93-1.75x (11 of 13 faster), in 2
// 0.89-1.54x (geometric mean 0.995 over 15; the pick's worst, 3187x408x15552, 0.65x the pair).
// Over rows of 128-byte multiples (narrow_aligned_ab.txt, fourteen random shapes) the pair or
// the one tile below ran 1.04-1.50x the pick's speed at thirteen, 0.97x at 5157x450x10112.
inline constexpr bool kGemmNarrowPair = true;
inline constexpr uint64_t kGemmNarrowPairMinKblocks = 100;

// Where one column tile covers N (N rounded up to 16 at most 256), the narrow pair gives way to
// that tile in 1x2 pairs along M sharing B, split along K as the wave model picks (3 splits at
// 37-44 row tiles): the pair's stream-K shares every tile, the split none of A's rows. H100, same
// process, the pair's time over the split's: 1.07-1.20x at eight random shapes of N 168-253 and
// 112-308 k-blocks (narrow_one_tile_split.txt), 1.03-1.17x at ten fresh ones of N 169-254 and
// 128-267 k-blocks (narrow_one_tile_val.txt; docs/performance-log.md).
// (Packing, which this replaces, sees N of at most 256 only from 33 row tiles on a 132-SM
// device: fewer run two tiles of 128 in 2x1 split-K from the start.)
inline constexpr bool kGemmNarrowOneTile = true;

// Epilogue chunks of 64 bytes instead of 128 where 128 would leave fewer pipeline stages than this.
inline constexpr unsigned kGemmMinChunkStages = 4;

// How the kernel tiles it. The cluster is (cluster_n CTAs along N) x (cluster_m along M).
struct GemmTiling {
  unsigned bm = 128, bn = 256, bk = 64;
  unsigned stages = 4;
  unsigned consumers = 2;  // consumer warpgroups; each owns bm / consumers rows (all bm with pingpong)
  unsigned cluster_n = 1, cluster_m = 1;
  unsigned cluster_k = 1;  // planes along the cluster's z: split-K in the cluster's splits (1 without)
  unsigned group = 8;      // rasterization: cluster rows of tiles walked together
  bool warp_specialized = true;  // false: one warpgroup loads and computes (consumers is then 1)
  bool persistent = true;        // false: one cluster per cluster tile
  bool multicast = true;         // false: in a cluster, each CTA still loads its own tiles
  bool split_issue = true;       // each k-block's MMAs in two groups around the wait for the previous (see gemm_kernel.cpp)
  bool edge = true;              // the edge's tiles end at m and n where that is safe (gemm_kernel.cpp, row_origin)
  unsigned mma_depth = 1;        // k-blocks of MMAs a consumer keeps in flight (main_loop)
  unsigned prefetch = 0;         // k-blocks ahead of each load the producer prefetches into L2 (0: none)
  // Each consumer waits for its own k-block's MMAs and gives the stage back at once (main_loop):
  // the producer refills it without waiting for the next k-block's data to arrive; the other
  // consumers' MMAs keep the tensor cores busy meanwhile. Off: a stage goes back once the
  // next k-block's first MMAs are issued (mma_depth, split_issue).
  bool release_early = false;
  unsigned splits = 1;           // split-K: K ranges per output tile (1: none, 0: chosen at run time), at most kMaxSplits
  bool stream_k = false;         // the Stream-K hybrid (dsl/split_k.h): the tail's tiles' K shared by every cluster
  bool deterministic = false;    // split-K and stream-K add a tile's partials in a fixed order
  bool stream_k_tail = false;    // stream-K: the last wave's tiles alone, in equal K splits (SplitK::split_stream_k_tail)
  bool atomic_sum = false;       // split-K and stream-K add a tile's partials into one slot by atomic adds (split_reduce atomic)
  unsigned owner_wait_us = 0;    // split-K: how long a tile's owner waits for the others' partials (dsl/split_k.h)
  // Split-K in the cluster: a tile's `splits` splits are the cluster's planes along z
  // (cluster_k = splits), which add each other's partials through distributed shared
  // memory, each writing a share of the tile's columns (dsl/split_k.h, KPartition::Cluster).
  bool split_in_cluster = false;
  bool dynamic = false;          // whole tiles claimed at run time, in rasterized order (schedule dynamic)
  // Ping-pong: the 2 consumers take alternate tiles, each a whole bm x bn accumulator,
  // and issue their main loops in turns, so that one's epilogue runs while the other's
  // MMAs keep the tensor cores busy. Off: both own half of one tile's rows (cooperative).
  bool pingpong = false;
  // Cooperative consumers that split the tile's columns (coop cols): each owns all bm rows
  // and bn / consumers columns (its MMAs read the whole A tile and its share of B's rows),
  // storing them through chunk buffers of its own. Off: each owns bm / consumers rows.
  bool split_cols = false;
  bool pdl = true;  // programmatic dependent launch (KernelBuilder::dependent_launch)
  unsigned chunk_bytes = 128;  // bytes of D's rows per epilogue chunk: 128 or 64
  // Epilogue chunk buffers (per row set): 2, a chunk written while the one before it is
  // stored, or 1, each chunk waiting for the store before it to read the buffer (the room
  // of a pipeline stage where coop cols gives each consumer buffers of its own).
  unsigned chunk_buffers = 2;
  // Which store a chunk waits for before its buffer is written (beta 0): 1, the chunk's
  // leader waits after the write for the previous chunk's store to read its buffer (one
  // barrier a chunk: each store's read is waited for one chunk later); 2, the leader waits
  // before the write for the store two chunks back (two barriers a chunk: two stores in
  // flight). With one buffer, or where a tile's first chunk reuses the last one's buffer,
  // that chunk waits for the store before it either way.
  unsigned epilogue_lag = 1;
  // The MMA computes D^T = B A^T (tn only): tiles of bm of B's rows by bn of A's, each
  // stored transposed into D (store_accumulator_transposed). The tiling, cluster and
  // schedule then describe that problem (gemm_kernel_shape).
  bool swap = false;
  // Warpgroups that own an accumulator of one tile: the consumers, or 1 with pingpong.
  unsigned tile_groups() const { return warp_specialized && !pingpong ? consumers : 1; }
  // Rows and columns of a tile in one warpgroup's accumulator.
  unsigned acc_rows() const { return split_cols ? bm : bm / tile_groups(); }
  unsigned acc_cols() const { return split_cols ? bn / consumers : bn; }
  // Chunk buffers' sets of bm rows: one per consumer where each stores whole rows of its own.
  unsigned chunk_row_sets() const { return pingpong || split_cols ? consumers : 1; }
  unsigned threads() const { return warp_specialized ? 128 * (consumers + 1) : 128; }
};

// Why split-K in the cluster cannot run t's split with `planes` planes along the cluster's
// z (empty: it can): it needs splits = planes (2 or more), a cluster of at most 8 CTAs, a
// cooperative or one-warpgroup kernel without stream-K, and shares of whole epilogue
// chunks (128 bytes of D's rows): bn / splits columns of every MMA warpgroup's rows, or
// else an equal number of one warpgroup's chunks per plane (bn 128 with 2 warpgroups in
// 4 splits: one chunk each). Shared memory is checked with the rest of the config.
std::string gemm_split_in_cluster_refusal(const GemmShape& s, const GemmTiling& t, unsigned planes);
// Split-K in the cluster: whether `planes` shares of bn columns are narrower than a chunk of
// D (128 bytes), so that the planes share the tile by rows (dsl/split_k.h, share_plan).
bool gemm_shares_by_rows(const GemmShape& s, const GemmTiling& t, unsigned planes);

// Registers per thread of the producer warpgroup, and of each MMA warpgroup:
// what the producer gives back, at most 240.
inline constexpr unsigned kGemmProducerRegisters = 40;
unsigned gemm_consumer_registers(unsigned consumers);
// Registers per thread a launch of `threads` gets, within which ptxas allocates the whole
// kernel (setmaxnreg moves them at run time only), and what a wgmma needs there beside its
// accumulator: a 64x208 f32 accumulator (104) asked for 138 with 512 threads (128).
unsigned gemm_launch_registers(unsigned threads);
inline constexpr unsigned kGemmLaunchOverheadRegisters = 32;

constexpr unsigned kMaxSplits = 32;

// bn 0 (automatic) without a device: 256 columns.
constexpr unsigned kGemmDefaultBn = 256;
// bn 0 on a device of `sm_count` SMs: 256 or 192 columns, whichever gives fewer idle
// tile slots in the last wave, weighed by the narrower tile's slower rate (t's bm and
// cluster; 4224^2 x 4096 at 1x2: 6 waves of 192 against 5 of 256, +8% measured).
unsigned gemm_auto_bn(const GemmShape& s, const GemmTiling& t, int sm_count);

// schedule auto on a device of `sm_count` SMs, one CTA per SM (t's tile and cluster):
// split-K where splits 0 would split (the tiles fill at most half the clusters and K is
// long); else static when the cluster tiles fill whole waves or stream-K would gain under
// kGemmStreamKMargin of static's time in the wave model; stream-K otherwise (split-K's
// time counts kGemmSplitKPartial per partial beyond the first). `why` says it
// in a line; `splits` is split-K's count (1 otherwise); `time` the model's estimate, in
// k-blocks of one cluster's tile (for comparing tile widths: times bn / rate).
struct GemmScheduleChoice {
  GemmSchedule schedule;
  std::string why;
  unsigned splits = 1;
  double time = 0;
};
GemmScheduleChoice gemm_auto_schedule(const GemmShape& s, const GemmTiling& t, int sm_count);
// v with `digits` decimals, as the device choices' lines print their estimates.
std::string fixed(double v, int digits);

// Split-K's global memory as the kernel sizes its workspace parameters for a launch
// of one CTA per SM (0, 0, 1 without split-K; the runtime allocates it, api/workspace.h):
// `workspace_floats` f32 partials, one slot of (bm / consumers) x bn per (tile,
// split, MMA warpgroup; atomic_sum: per tile and MMA warpgroup) over the tile grid padded to whole clusters, for `splits`
// splits per tile; `counters` u32 tile counters (one per tile and MMA warpgroup),
// zeroed once: the kernel leaves them at 0. Explicit splits: that many. splits 0
// (automatic): as many as the device's `sm_count` CTAs can run at once beside
// each other (the kernel never runs more than the workspace holds), at most
// min(32, k-blocks / 4); 1 (nothing to allocate) when the tiles fill the SMs.
struct GemmWorkspace {
  uint64_t workspace_floats = 0, counters = 0;
  unsigned splits = 1;
};
GemmWorkspace gemm_workspace(const GemmShape& s, const GemmTiling& t, int sm_count);
// The most splits split-K runs for a problem of `kblocks` k-blocks: min(32, kblocks / 4), at least 1.
unsigned gemm_auto_split_cap(uint64_t kblocks);

// Shared memory the kernel uses (tiles, alignment and barriers), bytes.
uint64_t smem_bytes(const GemmShape& s, const GemmTiling& t);
// The columns of a warpgroup's accumulator (bn, or its share with coop cols) past its whole
// epilogue chunks (128 or 64 bytes of D each): 0, or the narrower last chunk of each tile,
// which the kernel stores through a buffer and the maps D_tail and C_tail of its own.
unsigned gemm_tail_cols(const GemmShape& s, const GemmTiling& t);
// The kernel itself (samples/gemm_kernel.cpp).
// s: the problem as the kernel runs it (gemm_kernel_shape: with t.swap, the transposed one).
ir::Kernel build_gemm_kernel(const GemmShape& s, const GemmTiling& t);

// The problem the config names, and the one its kernel runs: the same, or with `swap` the
// transposed product D^T = B A^T (m and n, lda and ldb exchanged; D's pitch stays D's).
GemmShape gemm_shape(const Config& c);
GemmShape gemm_kernel_shape(const Config& c);
GemmTiling gemm_tiling(const Config& c);

// The kernel's parameters, in order: tensor maps "A", "B", "D", "C" (C shares D's
// box and swizzle; it reads C when beta != 0, or the residual R), then i32 "m", "n", "k", f32 "alpha", "beta", the epilogue's f32*
// "col_scale" and "bias" where it has them (n floats each), then split-K's
// workspace parameters f32* "workspace" and u32* "counters", which the runtime binds
// (with splits 1 they hold nothing and are null).
class Gemm final : public Sample {
 public:
  std::string name() const override { return "gemm"; }
  std::string summary() const override {
    return "D = alpha*A*B + beta*C with wgmma, TMA multicast, a warp-specialized pipeline and a persistent schedule";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<RealParamSpec> real_params() const override;
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
  std::optional<ir::Dim3> persistent_grid(const Config& c, int max_active_clusters) const override;
  // splits 0 resolved on the host for the device's SMs: the kernel is then built for that
  // S (1: the plain kernel, which a split-capable one running S = 1 trails by 5-8%).
  std::optional<DeviceChoice> for_device(const Config& c, const DeviceFacts& device) const override;
  // Tuning (samples/gemm_tuning.cpp): tiles, clusters and rasterization groups.
  std::vector<Config> tuning_candidates(const Config& c) const override;
  std::vector<Config> device_tuning_candidates(const Config& c, const DeviceFacts& device) const override;
  std::string problem_class(const Config& c) const override;
  std::vector<std::string> tuned_fields() const override;
};

// Device buffers, tensor maps and the cuBLAS-checked reference for one GEMM
// (samples/gemm_host.cpp). `kernel` is the built kernel: the tensor maps are
// encoded with its declared boxes and swizzles; split-K's workspace is the runtime's.
// `swapped`: the kernel computes D^T = B A^T (GemmTiling::swap): its A map reads B and its
// m is the problem's n.
std::unique_ptr<Instance> make_gemm_instance(const GemmShape& shape, const ir::Kernel& kernel, uint64_t seed, bool swapped = false);

}  // namespace tj::samples
