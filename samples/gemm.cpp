#include "samples/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "codegen/passes/verify_tiles.h"
#include "dsl/dsl.h"

namespace tj::samples {

using namespace tj::dsl;

namespace {

const std::vector<std::string> kInTypes = {"bf16", "f16"};
const std::vector<std::string> kOutTypes = {"bf16", "f16", "f32"};
const std::vector<std::string> kLayouts = {"tn", "nn"};
const std::vector<std::string> kActs = {"none", "relu", "gelu", "silu"};
const std::vector<std::string> kSchedules = {"auto", "static", "stream_k", "split_k", "dynamic"};
const std::vector<std::string> kMulticasts = {"off", "on", "auto"};
const std::vector<std::string> kSplitReduces = {"auto", "workspace", "cluster", "atomic"};
const std::vector<std::string> kCoops = {"rows", "cols"};
constexpr unsigned kMaxAutoStages = 8;  // what `stages 0` may pick (a config may name up to 16)

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::vector<ParamSpec> Gemm::params() const {
  return {{"m", 4096, 1, 1 << 20, "rows of A, C and D"},
          {"n", 4096, 1, 1 << 20, "columns of B, C and D"},
          {"k", 4096, 1, 1 << 20, "columns of A, rows of B"},
          {"dtype", 0, 0, 1, "input element type of A and B", kInTypes},
          {"out", 0, 0, 2, "element type of C and D (accumulation is f32)", kOutTypes},
          {"layout", 0, 0, 1, "tn: B is N x K row-major (K contiguous); nn: B is K x N row-major", kLayouts},
          {"lda", 0, 0, 1 << 21, "elements from one row of A to the next (>= k, a multiple of 16 bytes); 0: k rounded up to 16 bytes"},
          {"ldb", 0, 0, 1 << 21, "elements from one row of B to the next (>= k with layout tn, >= n with nn; a multiple of 16 bytes); 0: that rounded up to 16 bytes"},
          {"ldd", 0, 0, 1 << 21,
           "elements from one row of D (and C, the residual) to the next (>= n, a multiple of 16 bytes); 0: n rounded up to "
           "16 bytes. D is stored in whole 16 bytes: where n is not a multiple of 16 bytes, each row's padding up to the next "
           "16-byte boundary is overwritten, the rest is not"},
          {"bm", 128, 64, 256, "tile rows (M) per CTA: a multiple of 64 x consumers"},
          {"bn", 0, 0, 512,
           "tile columns (N) per CTA: a multiple of 8 up to 256 with layout tn (the last epilogue chunk of a width that is "
           "not a multiple of 64 is narrower), else of 64; 0: chosen for the device that runs it (256 where no device is "
           "known): 256 or 192, whichever leaves less of the last wave of tiles idle; where 256-column tiles would need "
           "split-K, 128 or 64, or with bm, consumers and split_reduce left to the defaults the narrow tile, 64x128 of one "
           "MMA warpgroup in 1x2 clusters without multicast, or the small tile, 64x64 of one in 2x2 clusters (tn); for "
           "small M over a long B (tn, aligned rows), swap 1 with 2x1 pairs that cover M; then, with multicast auto, "
           "any width from 256 down to 80 in 16-column steps (tn; else 256, 192 or 128), or 320 in 1x2, in the spec's "
           "pair or the other one (no cluster named), unclustered (aligned rows) or, for unaligned rows, in 192-row "
           "tiles or clusters of 4 (2x2, or 1x4 at 256), where the wave model puts them 5% ahead, a width that is not a "
           "multiple of 64 only 9% ahead of the one it narrows (`tilejit run` prints the choice)"},
          {"bk", 64, 32, 256, "K per pipeline stage: 32 (64-byte-swizzled rows) or a multiple of 64"},
          {"stages", 0, 0, 16, "pipeline stages in shared memory (2..16; 0: as many as fit, at most 8)"},
          {"consumers", 2, 1, 3,
           "consumer warpgroups (each owns bm / consumers rows of the tile, a multiple of 64, or all of them with pingpong "
           "or coop cols)"},
          {"coop", 0, 0, 1,
           "how the cooperative consumers share a tile: rows (each bm / consumers rows, all bn columns) or cols (each all "
           "bm rows and bn / consumers columns, a multiple of 8: with 2 consumers, 192 rows by up to 256 columns, 256 by "
           "up to 192, or 128 by up to 384; layout tn, not with pingpong or split_reduce cluster)",
           kCoops},
          {"pingpong", 0, 0, 1,
           "1: the 2 consumers take alternate tiles, each a whole bm x bn accumulator, and issue their main loops in "
           "turns, so that one's epilogue overlaps the other's MMAs; 0: both share each tile (cooperative)"},
          {"group", 8, 1, 64, "rasterization: rows of cluster tiles walked together"},
          {"warp_specialized", 1, 0, 1,
           "1: a producer warpgroup and `consumers` MMA warpgroups; 0: one warpgroup loads and computes (the ladder's first steps)"},
          {"persistent", 1, 0, 1, "1: as many clusters as fit walk the tiles; 0: one cluster per cluster tile (per tile and split with split-K)"},
          {"multicast", 2, 0, 2,
           "on: a cluster row shares A and a column B through TMA multicast (not with warp_specialized 0); off: every CTA "
           "loads its own; auto: on, except with warp_specialized 0, and where bn 0 picks the tile width for a known device: there a 2-CTA cluster whose tiles are one wave, or that runs "
           "stream-K, with operand rows a multiple of 128 bytes runs unclustered, and 64-column tiles take the pair along N "
           "(`tilejit run` prints the choice)",
           kMulticasts},
          {"split_issue", 1, 0, 1,
           "1: each k-block's MMAs go out in two groups, the first K step, then the wait for the previous k-block, then "
           "the rest; 0: one group, then the wait (warp-specialized, up to 256 columns)"},
          {"swap", 0, 0, 1,
           "1: the MMA computes D^T = B A^T (layout tn), each tile stored transposed into D: bm, bn, the cluster and the "
           "schedule then describe that product (bm of B's rows, n, by bn of A's, m), so that the 64-row side of the "
           "tile falls on N and the 16-column steps on M; not with pingpong or split_reduce cluster"},
          {"edge", 1, 0, 1,
           "1: where the last tile row (column) holds fewer than half a tile, or a cluster's CTA lies past m (n), the "
           "edge's tiles move back to end at m (n), so that no TMA box reaches mostly past A or B (their rows and columns "
           "before the edge are stored twice, with the same values); applies with beta 0, no residual and a schedule "
           "other than stream_k; 0: those tiles' boxes run past the edge (filled with zeros)"},
          {"mma_depth", 0, 0, 4,
           "k-blocks of MMAs each consumer keeps in flight: it waits for the one `mma_depth` k-blocks back before "
           "giving its stage back (1: the previous one; more keeps narrow tiles' short MMAs queued; needs more stages "
           "than this; split_issue applies at 1). 0: 2 for tiles of at most 128x64 elements (not split in the cluster), else 1"},
          {"prefetch", 0, 0, 16,
           "k-blocks ahead of each load the producer brings into L2 (tma_prefetch of the same boxes, before it waits for "
           "a free stage), so that more of the operands' DRAM reads are in flight than the stages hold; 0: none "
           "(warp-specialized). Each prefetched box costs the TMA unit what its load does: on an H100, d 4 and 8 ran "
           "1.2-2.9x slower than 0 on every shape tried (docs/gemm-perf-notes.md); never chosen by the default path"},
          {"pdl", 1, 0, 1,
           "1: programmatic dependent launch: a launch's CTAs start (barrier init, cluster sync) while the kernel before "
           "it in the stream finishes, and wait for it to complete before touching memory; 0: plain stream order"},
          {"epilogue_chunk", 0, 0, 128,
           "bytes of D's rows per epilogue chunk (each goes out by TMA store through one of two shared buffers of bm "
           "rows): 128 or 64; 0: 128, or 64 where 128 leaves fewer than 4 pipeline stages and 64 fits one more "
           "(stages 0), or where only 64 fits the stages named (not split-K in the cluster)"},
          {"epilogue_buffers", 0, 0, 2,
           "epilogue chunk buffers: 2 (a chunk is written while the one before it is stored) or 1 (each chunk waits "
           "for the store before it to read the buffer, freeing the room of a pipeline stage); 0: 2, or 1 with coop "
           "cols where 2 leave fewer than 4 pipeline stages and 1 fits one more (stages 0)"},
          {"stage_release", 0, 0, 2,
           "when a consumer gives a pipeline stage back: 1, once the next k-block's first MMAs are issued and the "
           "stage's have completed (the tensor cores never wait between a warpgroup's k-blocks; mma_depth and "
           "split_issue apply); 2, as soon as its own MMAs have completed, waited for before the next k-block's data "
           "(the producer refills the stage without waiting for that data; the other consumers keep the tensor cores "
           "busy); 0: 2 for coop cols (at mma_depth 1), else 1"},
          {"epilogue_wait", 0, 0, 2,
           "the store each epilogue chunk waits for (beta 0, two buffers): 1, the chunk before it, waited for after "
           "the chunk is written (one barrier per chunk); 2, the one two chunks back, waited for before (two "
           "barriers, two stores in flight); 0: 1"},
          {"bias", 0, 0, 1, "1: add a bias vector (n f32, one per column of D) in the epilogue (beta 0)"},
          {"col_scale", 0, 0, 1, "1: multiply each column of alpha * A * B by its own f32 scale (n f32) before the bias (beta 0)"},
          {"act", 0, 0, 3, "the epilogue's activation after the bias: relu, gelu (tanh form) or silu (beta 0)", kActs},
          {"residual", 0, 0, 1,
           "1: add R, an m x n matrix in D's type, after the activation: D = act(...) + R (beta 0; R is loaded by TMA "
           "through the map C)"},
          {"splits", 1, 0, int64_t(kMaxSplits),
           "split-K: each output tile's K is cut into this many ranges run by different clusters (or by the planes of one "
           "cluster, see split_reduce), the last to finish adds "
           "the f32 partials (a workspace) and writes the tile; 1: no split; 0: as many as fill the GPU's SMs (at most "
           "k-blocks / 4), chosen at run time. For few tiles and a long K"},
          {"owner_wait", 0, 0, 100,
           "split-K: microseconds the owner of a tile (split 0) waits for the other splits' partials before it stores "
           "its own and counts in like them (0: one look). On the H200 6 gained 2-3% on four shapes and lost 4.6% at "
           "1024x1024x8192 (docs/performance-log.md)"},
          {"schedule", 0, 0, 4,
           "how tiles reach clusters: static (a persistent grid, whole tiles in rasterized order); stream_k (the tiles of "
           "the last, partial wave, with the full wave before it or all tiles when they do not fill one, have their "
           "k-blocks cut into equal shares, one per cluster; a tile shared by several clusters is added up from f32 "
           "partials and written by the last of them); split_k (every tile's K cut into `splits` ranges); dynamic (whole "
           "tiles, each cluster claiming its next one at run time: an atomic counter on sm_90a, cluster launch control on "
           "sm_100a); auto (where "
           "the device is known, `tilejit run`: whichever a wave model of its SMs predicts fastest, printed with why; "
           "static otherwise). An explicit splits other than 1 means split_k",
           kSchedules},
          {"split_reduce", 0, 0, 3,
           "split-K: where a tile's partial sums meet. cluster: the tile's splits run on the planes of one cluster along "
           "z (cluster [x, y, splits]) and add each other's partials through distributed shared memory, each plane "
           "writing its share of the tile: bn / splits columns, or where those are narrower than a 128-byte chunk of D, "
           "whole chunks of one MMA warpgroup's rows (no workspace, nothing through global memory); workspace: f32 "
           "partials in global memory, added by the split that finishes last; atomic: f32 partials added into one slot "
           "per tile by atomic adds in L2 (red.global.add), which the split that finishes last reads and clears (one "
           "partial read instead of splits - 1; the workspace holds one slot per tile; stream-K's shared tiles too); "
           "auto: cluster where the cluster has splits "
           "planes, the shares are whole chunks either way and 4 or more stages still fit, else workspace "
           "(and, where the device is known and auto picks split-K, the splits go into a cluster [1, 1, splits] when A "
           "and B take at most 40 MiB)",
           kSplitReduces},
          {"deterministic", 0, 0, 1,
           "1: split-K and stream-K add a tile's partials in a fixed order (bitwise the same result from run to run, "
           "one more partial read per shared tile); 0: the last contributor adds the others' to its own"},
          {"stream_k_tail", 0, 0, 1,
           "stream-K: 0, the last partial wave's tiles and the full wave before them share their k-blocks out in equal "
           "runs, one per cluster (the Stream-K hybrid); 1, the last wave's tiles alone, each cut into clusters / tiles "
           "equal K ranges (at least 2 of 4 k-blocks or more, else as 0), so that the ranges of one index run the same "
           "k-blocks at the same time. Only with schedule stream_k or auto"}};
}

double gemm_epilogue_apply(const GemmEpilogue& e, double x, double scale, double bias, double residual) {
  if (e.col_scale) x *= scale;
  if (e.bias) x += bias;
  switch (e.act) {
    case GemmAct::None: break;
    case GemmAct::Relu: x = std::max(x, 0.0); break;
    case GemmAct::Gelu: x = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); break;
    case GemmAct::Silu: x = x / (1.0 + std::exp(-x)); break;
  }
  return e.residual ? x + residual : x;
}

std::vector<RealParamSpec> Gemm::real_params() const {
  return {{"alpha", 1.0, -1e30, 1e30, "D = alpha * A * B + beta * C"},
          {"beta", 0.0, -1e30, 1e30, "beta = 0 does not read C"}};
}

GemmShape gemm_shape(const Config& c) {
  GemmShape s;
  s.m = c.param("m"), s.n = c.param("n"), s.k = c.param("k");
  s.in = c.param("dtype") == 1 ? ir::Scalar::F16 : ir::Scalar::BF16;
  const int64_t o = c.param("out");
  s.out = o == 0 ? ir::Scalar::BF16 : o == 1 ? ir::Scalar::F16 : ir::Scalar::F32;
  s.layout = c.param("layout") == 1 ? GemmLayout::NN : GemmLayout::TN;
  s.lda = c.param("lda"), s.ldb = c.param("ldb"), s.ldd = c.param("ldd");
  s.alpha = c.real("alpha"), s.beta = c.real("beta");
  s.epilogue.bias = c.param("bias") == 1, s.epilogue.col_scale = c.param("col_scale") == 1;
  s.epilogue.act = GemmAct(c.param("act"));
  s.epilogue.residual = c.param("residual") == 1;
  return s;
}

GemmShape gemm_kernel_shape(const Config& c) {
  GemmShape s = gemm_shape(c);
  if (c.param("swap") == 1) std::swap(s.m, s.n), std::swap(s.lda, s.ldb);
  return s;
}

GemmTiling gemm_tiling(const Config& c) {
  GemmTiling t;
  t.bm = unsigned(c.param("bm")), t.bn = unsigned(c.param("bn")), t.bk = unsigned(c.param("bk"));
  if (t.bn == 0) t.bn = kGemmDefaultBn;  // automatic: for_device decides where a device is known
  t.stages = unsigned(c.param("stages")), t.consumers = unsigned(c.param("consumers"));
  t.group = unsigned(c.param("group"));
  t.cluster_n = c.cluster.x, t.cluster_m = c.cluster.y, t.cluster_k = c.cluster.z;
  t.warp_specialized = c.param("warp_specialized") == 1, t.persistent = c.param("persistent") == 1;
  // auto: on unless for_device decided, and never for one warpgroup (check_config says why).
  const GemmMulticast multicast = GemmMulticast(c.param("multicast"));
  t.multicast = multicast == GemmMulticast::On || (multicast == GemmMulticast::Auto && t.warp_specialized);
  t.split_issue = c.param("split_issue") == 1;
  t.prefetch = unsigned(c.param("prefetch"));
  t.edge = c.param("edge") == 1;
  t.swap = c.param("swap") == 1;
  t.pingpong = c.param("pingpong") == 1;
  t.split_cols = c.param("coop") == 1;
  t.pdl = c.param("pdl") == 1;
  t.splits = unsigned(c.param("splits"));
  t.owner_wait_us = unsigned(c.param("owner_wait"));
  t.stream_k = GemmSchedule(c.param("schedule")) == GemmSchedule::StreamK, t.deterministic = c.param("deterministic") == 1;
  t.stream_k_tail = c.param("stream_k_tail") == 1;
  t.atomic_sum = GemmSplitReduce(c.param("split_reduce")) == GemmSplitReduce::Atomic;
  t.dynamic = GemmSchedule(c.param("schedule")) == GemmSchedule::Dynamic;
  if (!t.warp_specialized) t.consumers = 1;
  const unsigned chunk = unsigned(c.param("epilogue_chunk"));
  t.chunk_bytes = chunk == 64 ? 64 : 128;
  const GemmShape s = gemm_kernel_shape(c);
  // As many stages as fit (at most kMaxAutoStages), or the config's.
  auto stages_of = [&](GemmTiling u) {
    if (u.stages != 0) return u.stages;
    for (u.stages = 2; u.stages < kMaxAutoStages; ++u.stages) {
      GemmTiling more = u;
      more.stages = u.stages + 1;
      if (smem_bytes(s, more) > 232448) break;
    }
    return u.stages;
  };
  const GemmSplitReduce reduce = GemmSplitReduce(c.param("split_reduce"));
  if (reduce == GemmSplitReduce::Cluster) t.split_in_cluster = true;
  if (reduce == GemmSplitReduce::Auto && gemm_split_in_cluster_refusal(s, t, c.cluster.z).empty()) {
    GemmTiling in_cluster = t;
    in_cluster.split_in_cluster = true;
    // The shares received take shared memory from the pipeline: not at fewer than 4
    // stages, nor where the config's own stage count would then not fit.
    in_cluster.stages = stages_of(in_cluster);
    t.split_in_cluster = in_cluster.stages >= 4 && smem_bytes(s, in_cluster) <= 232448;
  }
  // The epilogue's buffers: two of 128-byte chunks, or what the config names. With stages
  // 0, where that leaves fewer than kGemmMinChunkStages stages: 64-byte chunks, then (coop
  // cols, whose consumers each have buffers of their own) one buffer of 128- or 64-byte
  // chunks, each taken where it fits more stages than the choice before it (on the H200,
  // 192x192 tiles ran 1.02x faster with 4 stages than with 3; 128x192 ran 1.4-2% slower
  // with 5 than with 4). A config that names its stages (a tuning candidate's, chosen so)
  // takes 64-byte chunks where only they fit them.
  const unsigned buffers = unsigned(c.param("epilogue_buffers"));
  if (buffers != 0) t.chunk_buffers = buffers;
  if (c.param("epilogue_wait") != 0) t.epilogue_lag = unsigned(c.param("epilogue_wait"));
  t.release_early = c.param("stage_release") == 2;
  t.stages = stages_of(t);
  if (chunk == 0 && !t.split_in_cluster && c.param("stages") != 0) {
    GemmTiling half = t;
    half.chunk_bytes = 64;
    if (smem_bytes(s, t) > 232448 && smem_bytes(s, half) <= 232448) t = half;
  } else if (!t.split_in_cluster && c.param("stages") == 0) {
    struct Buffers {
      unsigned bytes, count;
    };
    const bool one = buffers == 1 || (buffers == 0 && t.split_cols), two = buffers != 1;
    for (const Buffers& b : {Buffers{64, 2}, Buffers{128, 1}, Buffers{64, 1}}) {
      if (t.stages >= kGemmMinChunkStages) break;
      if ((chunk != 0 && b.bytes != chunk) || !(b.count == 1 ? one : two)) continue;
      GemmTiling other = t;
      other.chunk_bytes = b.bytes, other.chunk_buffers = b.count, other.stages = 0;
      if (stages_of(other) > t.stages) t = other, t.stages = stages_of(other);
    }
  }
  // Automatic: tiles of at most 128 x 64 elements (a k-block's MMAs of the whole CTA take
  // at most 256 tensor-core cycles) keep 2 k-blocks in flight (1.01-1.02x over 1 on one-wave
  // short-K shapes at 128 x 64); not under split-K in the cluster, whose units may have fewer
  // k-blocks. Wider tiles keep 1 (2 was 2.5-6.8% slower at 128 and 256 columns).
  const bool short_mmas = uint64_t(t.bm) * t.bn <= 128 * 64;
  t.mma_depth = c.param("mma_depth") != 0 ? unsigned(c.param("mma_depth")) : short_mmas && !t.split_in_cluster ? 2 : 1;
  // Automatic: consumers that split the columns release each stage once their own MMAs
  // complete; elsewhere 1, where it measured no slower (docs/gemm-perf-notes.md has both).
  if (c.param("stage_release") == 0 && t.mma_depth == 1 && t.warp_specialized && !t.pingpong && !t.swap)
    t.release_early = t.split_cols;
  return t;
}

bool gemm_shares_by_rows(const GemmShape& s, const GemmTiling& t, unsigned planes) {
  return t.bn % (planes * (t.chunk_bytes / unsigned(ir::scalar_bytes(s.out)))) != 0;
}

std::string gemm_split_in_cluster_refusal(const GemmShape& s, const GemmTiling& t, unsigned planes) {
  const unsigned chunk = t.chunk_bytes / unsigned(ir::scalar_bytes(s.out));
  if (t.splits < 2 || t.splits != planes)
    return "a tile's splits are the cluster's planes along z: splits " + std::to_string(t.splits) + " with " +
           std::to_string(planes) + " along z";
  if (uint64_t(t.cluster_n) * t.cluster_m * planes > 8)
    return "a cluster of " + std::to_string(t.cluster_n) + "x" + std::to_string(t.cluster_m) + "x" + std::to_string(planes) +
           " is over 8 CTAs";
  if (t.stream_k || t.dynamic) return std::string("schedule ") + (t.stream_k ? "stream_k" : "dynamic") + " runs whole tiles or shares of its own";
  if (t.pingpong) return "pingpong runs each tile on one warpgroup";
  if (t.split_cols) return "coop cols stores each warpgroup's own columns, whole";
  if (t.swap) return "swap stores each warpgroup's chunks transposed, whole";
  if (!gemm_shares_by_rows(s, t, planes)) return {};
  // Else the tile's (warpgroup, chunk) pieces dealt out to the planes, each plane's in
  // one warpgroup's rows (dsl/split_k.h).
  if (s.beta != 0 || s.epilogue.residual)
    return std::string("bn / ") + std::to_string(planes) + " columns are narrower than a chunk of " + std::to_string(chunk) +
           ", and shares by rows with C or the residual loaded into the chunk buffers are not race-checked yet: use a bn of " +
           std::to_string(planes) + " or more whole chunks";
  const unsigned chunks = t.bn / chunk, pieces = t.tile_groups() * chunks;
  if (t.bn % chunk != 0 || pieces % planes != 0 || chunks % (pieces / planes) != 0)
    return "each of the " + std::to_string(planes) + " splits writes whole chunks of " + std::to_string(chunk) +
           " columns (" + std::to_string(t.chunk_bytes) + " bytes of D), bn / " + std::to_string(planes) + " of them or an equal part of one warpgroup's: bn = " +
           std::to_string(t.bn) + " with " + std::to_string(t.tile_groups()) + " MMA warpgroups does not split so";
  return {};
}

std::vector<ConfigProblem> Gemm::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  const GemmShape s = gemm_shape(c);
  const GemmTiling t = gemm_tiling(c);
  const uint64_t in = ir::scalar_bytes(s.in), ob = ir::scalar_bytes(s.out);
  auto need = [&](bool ok, const std::string& field, const std::string& msg) {
    if (!ok) out.push_back({field, msg});
  };
  // TMA reads and writes rows whose starts are 16 bytes apart; a row of any length.
  auto pitch_ok = [&](const char* name, int64_t ld, int64_t row, const char* matrix, uint64_t bytes) {
    const std::string field = std::string("params.") + name, per16 = std::to_string(16 / bytes);
    if (ld == 0) return;
    need(ld >= row, field, std::string(name) + " = " + std::to_string(ld) + " is shorter than a row of " + matrix + " (" +
                               std::to_string(row) + " elements): use " + std::to_string(row) + " or more, or 0");
    need(uint64_t(ld) * bytes % 16 == 0, field, std::string(name) + " = " + std::to_string(ld) + " puts " + matrix +
                                                    "'s rows " + std::to_string(uint64_t(ld) * bytes) +
                                                    " bytes apart; TMA needs a multiple of 16 bytes: a multiple of " + per16 + ", or 0");
  };
  pitch_ok("lda", s.lda, s.k, "A", in);
  pitch_ok("ldb", s.ldb, s.b_row(), "B", in);
  pitch_ok("ldd", s.ldd, s.n, "D", ob);
  if (t.swap) {
    need(s.layout == GemmLayout::TN, "params.swap",
         "swap runs B A^T with both operands K-major (layout tn); with nn B's rows are N-major: use layout tn, or swap 0");
    need(!t.pingpong, "params.swap", "swap stores the cooperative consumers' chunks transposed; pingpong is not built for it: use pingpong 0, or swap 0");
  }
  const unsigned row_groups = t.split_cols ? 1 : t.tile_groups();  // warpgroups that share a tile's rows
  need(t.bm % (64 * row_groups) == 0, "params.bm",
       "bm = " + std::to_string(t.bm) + " must be a multiple of 64 x the warpgroups that share a tile's rows (" +
           std::to_string(64 * row_groups) + ")");
  if (t.split_cols) {
    need(t.warp_specialized && t.consumers >= 2 && !t.pingpong, "params.coop",
         "coop cols shares a tile's columns between the cooperative consumer warpgroups: set warp_specialized 1, "
         "consumers 2 or 3 and pingpong 0, or coop rows");
    need(s.layout == GemmLayout::TN, "params.coop",
         "coop cols gives each consumer its share of B's rows, K-major with layout tn (nn's B is N-major): use layout "
         "tn, or coop rows");
    need(t.bn % (8 * t.consumers) == 0, "params.bn",
         "coop cols cuts bn = " + std::to_string(t.bn) + " into " + std::to_string(t.consumers) +
             " equal shares of a multiple of 8 columns: use a bn that is a multiple of " + std::to_string(8 * t.consumers));
  }
  const GemmSchedule sched = GemmSchedule(c.param("schedule"));
  need(sched != GemmSchedule::SplitK || t.splits != 1, "params.splits",
       "schedule split_k with splits 1 splits nothing: give the ranges per tile (0: chosen at run time), or schedule static");
  need(sched != GemmSchedule::Static || t.splits == 1, "params.splits",
       "schedule static runs whole tiles: splits " + std::to_string(t.splits) + " needs schedule split_k (or auto)");
  if (t.stream_k) {
    need(t.splits == 1, "params.schedule", "schedule stream_k cuts the tail's K itself: use splits 1 with it, or schedule split_k");
    need(t.persistent, "params.schedule",
         "schedule stream_k shares the tail's k-blocks between the clusters of a persistent grid: set persistent 1");
  }
  if (t.dynamic) {
    need(t.splits == 1, "params.splits", "schedule dynamic claims whole tiles: use splits 1 with it, or schedule split_k");
    need(t.persistent, "params.persistent", "schedule dynamic claims tiles for the clusters of a persistent grid: set persistent 1");
    need(!t.pingpong, "params.pingpong", "pingpong alternates a static walk's tiles between its warpgroups: use schedule static with it, or pingpong 0");
  }
  if (t.pingpong) {
    need(t.warp_specialized && t.consumers == 2, "params.pingpong",
         "pingpong alternates tiles between 2 consumer warpgroups: set warp_specialized 1 and consumers 2, or pingpong 0");
    need(t.splits == 1 && !t.stream_k, "params.pingpong",
         "pingpong runs each tile on one warpgroup, split-K's and stream-K's fix-ups count both on every tile: use splits 1 "
         "and schedule static, or pingpong 0");
    need(t.bn <= 256, "params.pingpong", "pingpong tiles take B from shared memory in one wgmma, at most 256 columns (bn = " +
                                             std::to_string(t.bn) + "): use bn <= 256, or pingpong 0");
  }
  // Tiles of any multiple of 8 columns (wgmma's N step) up to one wgmma's 256 with B K-major
  // (tn; the wave model packs tiles closer to whole waves with them), else of 64 (B's N-major
  // panels).
  const bool fine = s.layout == GemmLayout::TN && t.acc_cols() <= 256;
  need(t.bn % (fine ? 8 : 64) == 0 && t.bn > 0, "params.bn",
       "bn = " + std::to_string(t.bn) + " must be a multiple of " + (fine ? "8" : "64") +
           (fine ? std::string() : std::string(" (") + (s.layout == GemmLayout::NN ? "layout nn" : "over 256 columns") +
                                       "; multiples of 8 up to 256 with layout tn)"));
  need(c.param("epilogue_chunk") % 64 == 0, "params.epilogue_chunk",
       "epilogue_chunk = " + std::to_string(c.param("epilogue_chunk")) + " must be 64 or 128 bytes (0: chosen)");
  need(t.bk == 32 || t.bk % 64 == 0, "params.bk", "bk = " + std::to_string(t.bk) + " must be 32 or a multiple of 64 (64- or 128-byte rows of 16-bit elements)");
  need(c.cluster.count() <= 8, "cluster", "the GEMM takes a cluster [x (along N), y (along M), z (splits in the cluster)] of at most 8 CTAs");
  need(c.cluster.z == 1 || t.split_in_cluster, "cluster",
       "a cluster of " + std::to_string(c.cluster.z) + " along z holds a tile's splits (split-K in the cluster): set schedule split_k with splits " +
           std::to_string(c.cluster.z) + " and split_reduce auto or cluster, or a cluster [x, y]");
  need(t.warp_specialized || uint64_t(t.bm) * t.bn / 128 <= 128, "params.consumers",
       "one MMA warpgroup holding a " + std::to_string(t.bm) + "x" + std::to_string(t.bn) + " accumulator (" +
           std::to_string(t.bm * t.bn / 128) + " registers per thread) makes ptxas spill to local memory: use consumers 2, or a smaller tile");
  // One warpgroup refills a stage once its own MMAs have read it; a multicast load refills it
  // in every CTA of its mask, whose MMAs may still read it (no CTA hands stages to another).
  need(!(t.multicast && !t.warp_specialized && c.cluster.x * c.cluster.y > 1), "params.multicast",
       "one warpgroup (warp_specialized 0) refills a stage as soon as its own MMAs have read it, but a multicast load "
       "refills it in the other CTAs of the cluster too, which may still be reading it: use multicast off (or auto), "
       "or warp_specialized 1");
  const unsigned cx = t.multicast ? c.cluster.x : 1, cy = t.multicast ? c.cluster.y : 1;
  // Each CTA of a multicast cluster loads a slice of the tile; TMA writes a swizzled slice at
  // a 128-byte aligned address, in the pattern of the whole tile (the swizzle follows the
  // address bits): a K-major slice takes any rows of 128 bytes, an even count of 64-byte rows,
  // a multiple of 4 of 32-byte ones. B's N-major tiles (nn) slice in 8-row steps.
  const unsigned k_row = t.bk * ir::scalar_bytes(s.in), k_step = k_row % 128 == 0 ? 1 : k_row % 64 == 0 ? 2 : 4;
  const unsigned b_step = s.layout == GemmLayout::NN ? 8 : k_step;
  auto rows_word = [](unsigned step) { return step == 1 ? std::string("a whole number") : "a multiple of " + std::to_string(step); };
  need(t.bm % (k_step * cx) == 0, "cluster",
       "each of the " + std::to_string(cx) + " CTAs of a cluster row loads bm / " + std::to_string(cx) + " rows of A: that must be " + rows_word(k_step));
  const unsigned brows = s.layout == GemmLayout::NN ? t.bk : t.bn;
  need(brows % (b_step * cy) == 0, "cluster",
       "each of the " + std::to_string(cy) + " CTAs of a cluster column loads " + std::to_string(brows) + " / " + std::to_string(cy) +
           " rows of B: that must be " + rows_word(b_step));
  // A CTA's share of a tile over 256 rows goes in two (or more) TMA boxes of equal height.
  auto boxes_fit = [](unsigned rows, unsigned step) {
    if (rows == 0) return true;  // a cluster wider than the tile: refused above
    const unsigned boxes = (rows + 255) / 256;
    return rows % boxes == 0 && rows / boxes % step == 0;
  };
  need(boxes_fit(t.bm / cx, k_step), "params.bm",
       "each CTA's " + std::to_string(t.bm / cx) + " rows of A do not split into TMA boxes of at most 256 rows, " + rows_word(k_step) +
           " each: grow the cluster or change the tile");
  need(boxes_fit(brows / cy, b_step), s.layout == GemmLayout::NN ? "params.bk" : "params.bn",
       "each CTA's " + std::to_string(brows / cy) + " rows of B do not split into TMA boxes of at most 256 rows, " + rows_word(b_step) +
           " each: grow the cluster or change the tile");
  if (t.warp_specialized) {
    // What setmaxnreg gives a consumer for its whole accumulator, and what ptxas compiles one
    // wgmma within: the launch's count (65536 / threads) for its 64 x (at most 256) columns,
    // with kGemmLaunchOverheadRegisters beside them. One consumer of 128 rows holds two
    // 64-row accumulators (m64 wgmmas on each), within the same budget.
    const unsigned acc_regs = t.acc_rows() * t.acc_cols() / 128, budget = gemm_consumer_registers(t.consumers);
    need(acc_regs + codegen::kMmaRoleOverheadRegisters <= budget, "params.bn",
         "a " + std::to_string(t.acc_rows()) + "x" + std::to_string(t.acc_cols()) + " accumulator per consumer warpgroup needs " +
             std::to_string(acc_regs) + " registers per thread plus about " + std::to_string(codegen::kMmaRoleOverheadRegisters) +
             " more; a consumer of " + std::to_string(t.consumers) + " has " + std::to_string(budget) + ": use bm x bn of at most " +
             std::to_string((budget - codegen::kMmaRoleOverheadRegisters) * 128 * t.tile_groups()) + " elements" +
             (t.pingpong ? " (with pingpong each consumer holds a whole tile)" : ""));
    const unsigned launched = gemm_launch_registers(t.threads()), instr = std::min(t.acc_cols(), 256u) / 2;
    need(instr + kGemmLaunchOverheadRegisters <= launched, "params.bn",
         "one wgmma of 64x" + std::to_string(std::min(t.acc_cols(), 256u)) + " needs " + std::to_string(instr) +
             " accumulator registers plus about " + std::to_string(kGemmLaunchOverheadRegisters) +
             " more, and ptxas compiles it within the launch's " + std::to_string(launched) + " per thread (" +
             std::to_string(t.threads()) + " threads): use bn of at most " +
             std::to_string((launched - kGemmLaunchOverheadRegisters) * 2 / 16 * 16) + " with " + std::to_string(t.consumers) +
             " consumers");
  }
  if (s.epilogue.any() && s.beta != 0)
    for (const char* f : {"bias", "col_scale", "act", "residual"})
      if (c.param(f) != 0)
        need(false, std::string("params.") + f,
             std::string(f) + " is part of the fused epilogue, which runs with beta 0 (beta " + number(s.beta) +
                 " adds C): set beta 0, or drop " + f);
  if (GemmSplitReduce(c.param("split_reduce")) == GemmSplitReduce::Cluster) {
    const std::string why = gemm_split_in_cluster_refusal(s, t, c.cluster.z);
    need(why.empty(), "params.split_reduce",
         "split_reduce cluster: " + why + ": use split_reduce auto or workspace, or a cluster [x, y, splits]");
  }
  {
    const GemmSchedule sched = GemmSchedule(c.param("schedule"));
    need(!t.stream_k_tail || sched == GemmSchedule::StreamK || sched == GemmSchedule::Auto, "params.stream_k_tail",
         "stream_k_tail 1 shapes stream-K's last wave, and schedule " + kSchedules[size_t(sched)] +
             " runs none: use schedule stream_k or auto, or stream_k_tail 0");
  }
  need(!(t.atomic_sum && t.deterministic), "params.split_reduce",
       "split_reduce atomic adds a tile's partials in the order they reach L2, which deterministic 1 rules out: use "
       "split_reduce workspace with it, or deterministic 0");
  need(t.splits <= kMaxSplits, "params.splits",
       "splits = " + std::to_string(t.splits) + ": split-K cuts each tile's K into 1 to " + std::to_string(kMaxSplits) +
           " ranges (1: no split, 0: chosen at run time)");
  const GemmWorkspace ws = gemm_workspace(gemm_kernel_shape(c), t, 0);
  need(ws.workspace_floats * 4 <= (uint64_t(1) << 40), "params.splits",
       "splits = " + std::to_string(t.splits) + " needs a split-K workspace of " + std::to_string(ws.workspace_floats * 4 >> 30) +
           " GiB (f32 partials of every tile and split): use fewer splits, or none for a problem this large");
  const uint64_t smem = smem_bytes(s, t);
  need(c.param("stages") != 1 || !t.warp_specialized, "params.stages",
       "a warp-specialized pipeline needs at least 2 stages (0 picks as many as fit; 1 works with warp_specialized 0)");
  need(t.warp_specialized || t.prefetch == 0, "params.prefetch",
       "prefetch " + std::to_string(t.prefetch) + " is issued by the producer warpgroup; warp_specialized 0 has none (use prefetch 0)");
  need(!t.warp_specialized || t.mma_depth < t.stages, "params.mma_depth",
       "mma_depth " + std::to_string(t.mma_depth) + " keeps that many stages' MMAs in flight besides the one being read: " +
           "it needs more than " + std::to_string(t.mma_depth) + " stages, and has " + std::to_string(t.stages));
  need(!t.release_early || c.param("mma_depth") <= 1, "params.stage_release",
       "stage_release 2 waits for each k-block's MMAs before the next k-block's, keeping none in flight: mma_depth " +
           std::to_string(c.param("mma_depth")) + " cannot apply (use mma_depth 0 or 1, or stage_release 1)");
  need(smem <= 232448, "params.stages", std::to_string(t.stages) + " stages of " + std::to_string(t.bm) + "x" + std::to_string(t.bk) + " + " + std::to_string(t.bn) + "x" + std::to_string(t.bk) + " plus the " + std::to_string(t.bm) + "x" + std::to_string(t.bn) + " output tile need " + std::to_string(smem) + " bytes of shared memory; a CTA has 232448: use fewer stages or a smaller tile");
  return out;
}

unsigned gemm_auto_split_cap(uint64_t kblocks) {
  return unsigned(std::max<uint64_t>(1, std::min<uint64_t>(kMaxSplits, kblocks / 4)));
}

GemmWorkspace gemm_workspace(const GemmShape& s, const GemmTiling& t, int sm_count) {
  if (t.stream_k) {
    // As declare_stream_k sizes it for one CTA per SM: two slots per cluster, CTA and MMA
    // warpgroup (atomic: one per stream-K tile), a counter per stream-K tile; none when the
    // tiles fill whole waves.
    const uint64_t ctas = uint64_t(t.cluster_m) * t.cluster_n, workers = sm_count > 0 ? uint64_t(sm_count) / ctas : 0;
    const uint64_t tiles = ceil_div(ceil_div(uint64_t(s.m), t.bm), t.cluster_m) * ceil_div(ceil_div(uint64_t(s.n), t.bn), t.cluster_n);
    if (workers == 0 || tiles % workers == 0) return {};
    // stream_k_tail: the last wave's tiles alone where they split in 2+ ranges of 4+ k-blocks.
    const uint64_t rem = tiles % workers, tail_splits = workers / rem, kblocks = ceil_div(uint64_t(s.k), t.bk);
    const bool tail = t.stream_k_tail && tail_splits >= 2 && kblocks / tail_splits >= uint64_t(dsl::kStreamKMinShare);
    const uint64_t sk_tiles = tail ? rem : tiles < workers ? tiles : rem + workers;
    return {(t.atomic_sum ? sk_tiles : workers * 2) * ctas * t.bm * t.bn, sk_tiles * ctas * t.tile_groups(), 1};
  }
  if (t.splits == 1 || t.split_in_cluster) return {};
  // The tile grid padded to whole clusters, as the kernel numbers tiles.
  const uint64_t tiles = ceil_div(ceil_div(uint64_t(s.m), t.bm), t.cluster_m) * t.cluster_m *
                         ceil_div(ceil_div(uint64_t(s.n), t.bn), t.cluster_n) * t.cluster_n;
  unsigned splits = t.splits;
  if (splits == 0) {
    // The kernel runs min(cap, clusters / cluster tiles) splits; at one CTA per SM
    // that is at most sm_count / tiles. (More CTAs per SM would want more splits:
    // the kernel then stays at what the workspace holds.)
    const uint64_t fit = sm_count > 0 ? uint64_t(sm_count) / tiles : 0;
    splits = unsigned(std::min<uint64_t>(gemm_auto_split_cap(ceil_div(uint64_t(s.k), t.bk)), fit));
    if (splits <= 1) return {};
  }
  return {tiles * (t.atomic_sum ? 1 : splits) * t.bm * t.bn, tiles * t.tile_groups(), splits};
}

ir::Kernel Gemm::build(const Config& c) const { return build_gemm_kernel(gemm_kernel_shape(c), gemm_tiling(c)); }

std::unique_ptr<Instance> Gemm::instantiate(const Config& c, uint64_t seed) const {
  return make_gemm_instance(gemm_shape(c), build(c), seed, gemm_tiling(c).swap);
}

std::optional<ir::Dim3> Gemm::persistent_grid(const Config& c, int max_active_clusters) const {
  const GemmShape s = gemm_kernel_shape(c);
  const GemmTiling t = gemm_tiling(c);
  // Work units: cluster tiles x the splits that run (at most one per k-block; with
  // splits 0 the kernel takes as many as this grid holds, up to its cap).
  const uint64_t kblocks = ceil_div(uint64_t(s.k), t.bk);
  const uint64_t splits = t.splits == 0 ? gemm_auto_split_cap(kblocks) : std::min<uint64_t>(t.splits, kblocks);
  // Split-K in the cluster: a cluster per cluster tile, its planes the splits.
  const uint64_t units = ceil_div(ceil_div(uint64_t(s.m), t.bm), c.cluster.y) * ceil_div(ceil_div(uint64_t(s.n), t.bn), c.cluster.x) *
                         (t.split_in_cluster ? 1 : splits);
  const uint64_t fit = t.persistent ? uint64_t(std::max(1, max_active_clusters)) : units;
  // Stream-K shares the tail's k-blocks with every cluster that fits, however few the tiles.
  if (t.stream_k) return ir::Dim3{unsigned(std::max<uint64_t>(1, std::min<uint64_t>(fit, 0x7fffffffu / c.cluster.x))), 1, 1};
  const uint64_t clusters = std::max<uint64_t>(1, std::min<uint64_t>({units, fit, 0x7fffffffu / c.cluster.x}));
  return ir::Dim3{unsigned(clusters), 1, 1};
}

}  // namespace tj::samples
