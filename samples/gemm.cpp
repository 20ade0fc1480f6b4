#include "samples/gemm.h"

#include <algorithm>

#include "dsl/dsl.h"

namespace tj::samples {

using namespace tj::dsl;

namespace {

const std::vector<std::string> kInTypes = {"bf16", "f16"};
const std::vector<std::string> kOutTypes = {"bf16", "f16", "f32"};
const std::vector<std::string> kLayouts = {"tn", "nn"};

constexpr unsigned kProducerRegs = 40;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Registers per thread for the consumer warpgroups: what the producer gives back, at most 240.
unsigned consumer_regs(unsigned consumers) {
  return std::min(240u, (65536u - 128u * kProducerRegs) / (128u * consumers) / 8u * 8u);
}

uint64_t smem_bytes(const GemmShape& s, const GemmTiling& t) {
  const uint64_t in = ir::scalar_bytes(s.in), out = ir::scalar_bytes(s.out);
  return uint64_t(t.stages) * (t.bm + t.bn) * t.bk * in + uint64_t(t.bm) * t.bn * out + 1024 /* alignment, barriers */;
}

}  // namespace

std::vector<ParamSpec> Gemm::params() const {
  return {{"m", 4096, 1, 1 << 20, "rows of A, C and D"},
          {"n", 4096, 1, 1 << 20, "columns of B, C and D"},
          {"k", 4096, 1, 1 << 20, "columns of A, rows of B"},
          {"dtype", 0, 0, 1, "input element type of A and B", kInTypes},
          {"out", 0, 0, 2, "element type of C and D (accumulation is f32)", kOutTypes},
          {"layout", 0, 0, 1, "tn: B is N x K row-major (K contiguous); nn: B is K x N row-major", kLayouts},
          {"bm", 128, 64, 256, "tile rows (M) per CTA: a multiple of 64 x consumers"},
          {"bn", 256, 64, 256, "tile columns (N) per CTA: a multiple of 64"},
          {"bk", 64, 64, 256, "K per pipeline stage: a multiple of 64"},
          {"stages", 0, 0, 8, "pipeline stages in shared memory (2..8; 0: as many as fit, at most 6)"},
          {"consumers", 2, 1, 2, "consumer warpgroups (each owns bm / consumers rows of the tile)"},
          {"group", 8, 1, 64, "rasterization: rows of cluster tiles walked together"}};
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
  s.alpha = c.real("alpha"), s.beta = c.real("beta");
  return s;
}

GemmTiling gemm_tiling(const Config& c) {
  GemmTiling t;
  t.bm = unsigned(c.param("bm")), t.bn = unsigned(c.param("bn")), t.bk = unsigned(c.param("bk"));
  t.stages = unsigned(c.param("stages")), t.consumers = unsigned(c.param("consumers"));
  t.group = unsigned(c.param("group"));
  t.cluster_n = c.cluster.x, t.cluster_m = c.cluster.y;
  if (t.stages == 0) {
    const GemmShape s = gemm_shape(c);
    t.stages = 2;
    while (t.stages < 6 && smem_bytes(s, GemmTiling{t.bm, t.bn, t.bk, t.stages + 1, t.consumers, t.cluster_n, t.cluster_m, t.group}) <= 232448)
      ++t.stages;
  }
  return t;
}

std::vector<ConfigProblem> Gemm::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  const GemmShape s = gemm_shape(c);
  const GemmTiling t = gemm_tiling(c);
  const uint64_t in = ir::scalar_bytes(s.in), ob = ir::scalar_bytes(s.out);
  auto need = [&](bool ok, const std::string& field, const std::string& msg) {
    if (!ok) out.push_back({field, msg});
  };
  need(s.k * in % 16 == 0, "params.k", "rows of A (k = " + std::to_string(s.k) + " elements) must be a multiple of 16 bytes for TMA: use a k that is a multiple of " + std::to_string(16 / in));
  if (s.layout == GemmLayout::NN)
    need(s.n * in % 16 == 0, "params.n", "rows of B (n = " + std::to_string(s.n) + ") must be a multiple of 16 bytes for TMA: use an n that is a multiple of " + std::to_string(16 / in));
  need(s.n * ob % 16 == 0, "params.n", "rows of D (n = " + std::to_string(s.n) + " x " + std::to_string(ob) + " bytes) must be a multiple of 16 bytes for TMA: use an n that is a multiple of " + std::to_string(16 / ob));
  need(t.bm % (64 * t.consumers) == 0, "params.bm", "bm = " + std::to_string(t.bm) + " must be a multiple of 64 x consumers (" + std::to_string(64 * t.consumers) + ")");
  need(t.bn % 64 == 0, "params.bn", "bn = " + std::to_string(t.bn) + " must be a multiple of 64");
  need(t.bk % 64 == 0, "params.bk", "bk = " + std::to_string(t.bk) + " must be a multiple of 64 (one 128-byte panel of 16-bit elements)");
  need(c.cluster.z == 1 && c.cluster.count() <= 8, "cluster", "the GEMM takes a cluster [x (along N), y (along M)] of at most 8 CTAs");
  need(t.consumers == 2 || uint64_t(t.bm) * t.bn / 128 <= 64, "params.consumers",
       "one consumer warpgroup holding a " + std::to_string(t.bm) + "x" + std::to_string(t.bn) + " accumulator (" +
           std::to_string(t.bm * t.bn / 128) + " registers per thread) makes ptxas spill to local memory: use consumers 2, or bm x bn <= 8192");
  const unsigned cx = c.cluster.x, cy = c.cluster.y;
  need(t.bm % (8 * cx) == 0, "cluster", "each of the " + std::to_string(cx) + " CTAs of a cluster row loads bm / " + std::to_string(cx) + " rows of A: that must be a multiple of 8");
  const unsigned brows = s.layout == GemmLayout::NN ? t.bk : t.bn;
  need(brows % (8 * cy) == 0, "cluster", "each of the " + std::to_string(cy) + " CTAs of a cluster column loads " + std::to_string(brows) + " / " + std::to_string(cy) + " rows of B: that must be a multiple of 8");
  need(t.bm / cx <= 256 && brows / cy <= 256, "params.bm", "a TMA box has at most 256 rows: grow the cluster or shrink the tile");
  const uint64_t smem = smem_bytes(s, t);
  need(c.param("stages") != 1, "params.stages", "a pipeline needs at least 2 stages (0 picks as many as fit)");
  need(smem <= 232448, "params.stages", std::to_string(t.stages) + " stages of " + std::to_string(t.bm) + "x" + std::to_string(t.bk) + " + " + std::to_string(t.bn) + "x" + std::to_string(t.bk) + " plus the " + std::to_string(t.bm) + "x" + std::to_string(t.bn) + " output tile need " + std::to_string(smem) + " bytes of shared memory; a CTA has 232448: use fewer stages or a smaller tile");
  return out;
}

ir::Kernel Gemm::build(const Config& c) const {
  const GemmShape s = gemm_shape(c);
  const GemmTiling t = gemm_tiling(c);
  const unsigned cx = c.cluster.x, cy = c.cluster.y;
  const bool nn = s.layout == GemmLayout::NN;
  const int32_t bm = int32_t(t.bm), bn = int32_t(t.bn), bk = int32_t(t.bk), stages = int32_t(t.stages);
  const int32_t rows_per_consumer = bm / int32_t(t.consumers);

  KernelBuilder k("gemm");
  k.threads(t.threads());
  if (cx * cy > 1) k.cluster(cx, cy);

  // Shared tiles: A (M x K) and B (N x K, or K x N read N-major) per stage, one output tile.
  SharedTile a = k.shared_tile(s.in, "a", t.bm, t.bk, t.stages);
  SharedTile b = nn ? k.shared_tile(s.in, "b", t.bk, t.bn, t.stages, ir::Major::MN) : k.shared_tile(s.in, "b", t.bn, t.bk, t.stages);
  SharedTile d = k.shared_tile(s.out, "d", t.bm, t.bn, 1);
  // The CTAs of a cluster row share A's tile: each loads a slice and multicasts it
  // along the row; B's slices go down the cluster column.
  TileMap amap = k.tile_map("A", a, t.bm / cx);
  TileMap bmap = k.tile_map("B", b, (nn ? t.bk : t.bn) / cy);
  TileMap dmap = k.tile_map("D", d, unsigned(rows_per_consumer));
  TileMap cmap = k.tile_map("C", d, unsigned(rows_per_consumer));
  i32 m = k.param<int32_t>("m"), n = k.param<int32_t>("n"), kk = k.param<int32_t>("k");
  f32 alpha = k.param<float>("alpha"), beta = k.param<float>("beta");

  // full[s]: stage s's A and B landed (the producer's arrival + the bytes);
  // empty[s]: every consumer warp of every CTA this CTA's loads reach released it.
  auto full = k.mbarriers("full", t.stages, 1);
  auto empty = k.mbarriers("empty", t.stages, t.consumers * 4 * (cx + cy - 1));
  auto c_full = k.mbarriers("c_full", t.consumers, 1);
  Accumulator acc = k.accumulator("acc", unsigned(rows_per_consumer), t.bn);

  const uint32_t stage_bytes = uint32_t((uint64_t(t.bm) + t.bn) * t.bk * ir::scalar_bytes(s.in));
  i32 tiles_m = (m + bm - 1) / bm, tiles_n = (n + bn - 1) / bn, kblocks = (kk + bk - 1) / bk;
  const ir::TileSchedule schedule = static_persistent(t.group);

  k.role("producer", 1, kProducerRegs, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      Var<int32_t> it = var(i32(0), "it");
      for_each_tile(schedule, tiles_m, tiles_n, [&](i32 tm, i32 tn) {
        for_(0, kblocks, [&](i32 kb) {
          i32 st = it % stages;
          if_(it >= stages, [&] { wait(empty[st]); });
          arrive_expect_tx(full[st], u32(stage_bytes));
          std::optional<u32> row_mask, col_mask;
          if (cx > 1) row_mask = mask_row();
          if (cy > 1) col_mask = mask_col();
          tma_load_tile(stage(a, st), amap, tm * bm, kb * bk, full[st], cluster_ctaid_x(), row_mask);
          if (nn) tma_load_tile(stage(b, st), bmap, kb * bk, tn * bn, full[st], cluster_ctaid_y(), col_mask);
          else tma_load_tile(stage(b, st), bmap, tn * bn, kb * bk, full[st], cluster_ctaid_y(), col_mask);
          it = it + 1;
        });
      });
    });
  });

  k.role("consumer", t.consumers, consumer_regs(t.consumers), [&](i32 wg) {
    // Gives stage `st` back to every producer whose loads land here (this CTA's
    // row and column of the cluster), once per warp.
    auto release = [&](const i32& st) {
      if_(lane_id() == 0, [&] {
        if (cx * cy == 1) {
          arrive(empty[st]);
          return;
        }
        for_(0, int32_t(cx * cy), [&](i32 q) {
          if_(q % int32_t(cx) == cluster_ctaid_x() || q / int32_t(cx) == cluster_ctaid_y(),
              [&] { arrive(map_shared_rank(empty, q)[st]); });
        });
      });
    };
    Var<int32_t> it = var(i32(0), "it");
    i32 first_row = wg * rows_per_consumer;
    boolean leader = thread_idx_x() % 128 == 0;
    for_each_tile(schedule, tiles_m, tiles_n, [&](i32 tm, i32 tn) {
      for_(0, kblocks, [&](i32 kb) {
        i32 st = it % stages;
        wait(full[st]);
        mma(acc, stage(a, st).rows(first_row), stage(b, st), kb > 0);
        // Keep one MMA group in flight; the one before it has finished reading its stage.
        mma_wait(1);
        if_(kb > 0, [&] { release((it - 1) % stages); });
        it = it + 1;
      });
      mma_wait(0);
      release((it - 1) % stages);

      // Epilogue: this warpgroup's rows of the tile, through shared memory and a TMA store.
      TileView out = stage(d, 0).rows(first_row);
      if_(leader, [&] { bulk_wait_read(0); });  // the previous tile's store has read the tile
      if_(beta != 0.0f, [&] {
        if_(leader, [&] {
          arrive_expect_tx(c_full[wg], u32(tile_load_bytes(cmap)));
          tma_load_tile(out, cmap, tm * bm, tn * bn, c_full[wg]);
        });
        wait(c_full[wg]);
        store_accumulator(out, acc, alpha, beta, out);
      }).else_([&] {
        warpgroup_sync(wg);
        store_accumulator(out, acc, alpha);
      });
      fence_proxy_async();
      warpgroup_sync(wg);
      if_(leader, [&] {
        tma_store_tile(dmap, tm * bm, tn * bn, out);
        bulk_commit();
      });
    });
    if_(leader, [&] { bulk_wait(0); });
  });
  return k.build();
}

std::unique_ptr<Instance> Gemm::instantiate(const Config& c, uint64_t seed) const {
  return make_gemm_instance(gemm_shape(c), build(c), seed);
}

std::optional<ir::Dim3> Gemm::persistent_grid(const Config& c, int max_active_clusters) const {
  const GemmShape s = gemm_shape(c);
  const GemmTiling t = gemm_tiling(c);
  const uint64_t cluster_tiles = ceil_div(ceil_div(uint64_t(s.m), t.bm), c.cluster.y) *
                                 ceil_div(ceil_div(uint64_t(s.n), t.bn), c.cluster.x);
  const uint64_t clusters = std::max<uint64_t>(1, std::min<uint64_t>(cluster_tiles, uint64_t(std::max(1, max_active_clusters))));
  return ir::Dim3{unsigned(clusters), 1, 1};
}

}  // namespace tj::samples
