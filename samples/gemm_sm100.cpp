// The sm_100a GEMM (samples/gemm_sm100.h): kernel, host model of the pair split, sample.
#include "samples/gemm_sm100.h"

#include <algorithm>

#include "dsl/dsl.h"

namespace tj::samples {

using namespace tj::dsl;

namespace {

constexpr unsigned kRows = 128;  // rows of A and D per CTA: one per tensor-memory lane
constexpr unsigned kBk = 64;     // K per stage: one 128-byte swizzle row of 16-bit elements

unsigned elem_bytes(ir::Scalar s) { return ir::scalar_bytes(s); }

}  // namespace

PairSplit gemm_sm100_pair_split(const GemmShape& s, const GemmSm100Tiling& t, unsigned rank) {
  const unsigned ctas = t.pair ? 2 : 1, b_rows = t.bn / ctas, pair = rank / 2, half = t.pair ? rank % 2 : 0;
  const unsigned bytes = (kRows + b_rows) * kBk * elem_bytes(s.in);
  const unsigned load_rows = b_rows / t.pairs;
  const unsigned leader = t.pair ? rank & ~1u : rank;
  return PairSplit{rank,
                   rank * kRows,
                   half * b_rows,
                   b_rows,
                   pair * load_rows,
                   load_rows,
                   t.pairs == 2 ? (1u << half) | (1u << (half + 2)) : 1u << rank,
                   bytes,
                   bytes * ctas,
                   rank == leader,
                   t.pairs == 2 ? 15u : (t.pair ? 3u : 1u) << leader,
                   (t.pair ? 3u : 1u) << leader,
                   t.pairs};
}

ir::Kernel build_gemm_sm100_kernel(const GemmShape& s, const GemmSm100Tiling& t) {
  KernelBuilder k("gemm_sm100");
  k.threads(256);
  const CtaGroup group = t.pair ? CtaGroup::Two : CtaGroup::One;
  // Ranks 2p and 2p + 1 along M: pair p's two 128-row halves.
  if (t.pair) k.cluster(1, 2 * t.pairs);
  const PairSplit leader = gemm_sm100_pair_split(s, t, 0);
  const int32_t bm = int32_t(kRows), bn = int32_t(t.bn), bk = int32_t(kBk), stages = int32_t(t.stages);
  const unsigned chunk = 128 / elem_bytes(s.out);  // epilogue columns per chunk: one 128-byte panel

  // Each CTA's stage: its 128 rows of A and its share of B's bn rows (all of them alone).
  SharedTile a = k.shared_tile(s.in, "a", kRows, kBk, t.stages);
  SharedTile b = k.shared_tile(s.in, "b", leader.b_rows, kBk, t.stages);
  SharedTile d = k.shared_tile(s.out, "d", kRows, chunk, 2);
  TileMap amap = k.tile_map("A", a, kRows), bmap = k.tile_map("B", b, leader.b_load_rows);
  TileMap dmap = k.tile_map("D", d, kRows);
  k.tile_map("C", d, kRows);  // the GEMM host's signature; beta is 0 here
  i32 m = k.param<int32_t>("m"), n = k.param<int32_t>("n"), kk = k.param<int32_t>("k");
  f32 alpha = k.param<float>("alpha");
  k.param<float>("beta");
  // full[s]: both CTAs' bytes of stage s landed (in the leader); empty[s]: the MMAs that
  // read stage s completed (the leader's commit, in each CTA); acc_full: the tile's MMAs
  // completed (in each CTA); acc_empty: each CTA's epilogue read the accumulator (in the leader).
  Ptr<mbarrier_t> full = k.mbarriers("full", t.stages, 1), empty = k.mbarriers("empty", t.stages, leader.empty_arrivals);
  // One accumulator per buffer (two: the epilogue of one tile runs under the next tile's
  // MMAs into the other), each with its own pair of barriers.
  Ptr<mbarrier_t> acc_full = k.mbarriers("acc_full", t.accumulators, 1);
  Ptr<mbarrier_t> acc_empty = k.mbarriers("acc_empty", t.accumulators, t.pair ? 2 : 1);
  Accumulator acc = k.accumulator("acc", kRows, t.bn, t.accumulators);
  // The buffer of the walk's tile number `tile` (buffer 0 with one).
  auto buffer = [&](const i32& tile) { return tile % int32_t(t.accumulators); };
  auto acc_of = [&](const i32& buf) { return t.accumulators == 1 ? acc : stage(acc, buf); };
  const i32 tiles_m = (m + bm - 1) / bm, tiles_n = (n + bn - 1) / bn, kblocks = (kk + bk - 1) / bk;
  const ir::TileSchedule schedule = t.dynamic ? dynamic(t.group) : static_persistent(t.group);
  // The commits' receivers: a stage's, every CTA this pair's loads reach (both pairs with
  // B multicast); an accumulator's, both CTAs of the pair; alone, this CTA.
  auto commit = [&](const BarrierRef& bar, bool stage_commit) {
    if (!t.pair) return mma_commit(bar, group);
    if (stage_commit && t.pairs == 2) return mma_commit_multicast(bar, group, u32(15u));
    mma_commit_multicast(bar, group, u32(3u) << cast<uint32_t>(pair_leader_rank()));
  };

  k.role("producer", 1, 0, [&](i32) {
    // Warp 0, one thread: this CTA's share of each k-block into stage it % stages.
    if_(thread_idx_x() == 0, [&] {
      Var<int32_t> it = var(i32(0), "it");
      for_each_tile(schedule, tiles_m, tiles_n, [&](i32 tm, i32 tn) {
        for_(0, kblocks, [&](i32 j) {
          i32 st = it % stages;
          if_(it >= stages, [&] { wait_local(empty[st]); });
          if (t.pair) {
            if_(is_pair_leader(), [&] { arrive_expect_tx(full[st], u32(leader.leader_expect_tx)); });
            // This CTA's half of B's columns: (rank % 2) x bn / 2 on (tn is the pair's tile
            // column). With two pairs the same half lands in both (multicast), each pair's CTA
            // loading part (rank / 2) of it.
            i32 b_row0 = tn * bn + select(is_pair_leader(), i32(0), i32(int32_t(leader.b_rows)));
            tma_load_tile_pair(stage(a, st), amap, tm * bm, j * bk, full[st]);
            if (t.pairs == 2) {
              u32 mask = u32(5u) << cast<uint32_t>(cluster_ctarank() % 2);
              tma_load_tile_pair(stage(b, st), bmap, b_row0, j * bk, full[st], cast<int32_t>(cluster_ctarank() / 2), mask);
            } else {
              tma_load_tile_pair(stage(b, st), bmap, b_row0, j * bk, full[st]);
            }
          } else {
            arrive_expect_tx(full[st], u32(leader.leader_expect_tx));
            tma_load_tile(stage(a, st), amap, tm * bm, j * bk, full[st]);
            tma_load_tile(stage(b, st), bmap, tn * bn, j * bk, full[st]);
          }
          it = it + 1;
        });
      });
    });
    // Warp 1, one thread, in every CTA (each walks the schedule); the leader issues.
    if_(thread_idx_x() == 32, [&] {
      Var<int32_t> it = var(i32(0), "it");
      Var<int32_t> tile = var(i32(0), "tile");
      for_each_tile(schedule, tiles_m, tiles_n, [&](i32, i32) {
        if_(t.pair ? is_pair_leader() : boolean(true), [&] {
          i32 buf = buffer(tile);
          wait_local(acc_empty[buf]);  // both epilogues read this buffer's last tile
          for_(0, kblocks, [&](i32 j) {
            i32 st = (it + j) % stages;
            wait_local(full[st]);
            if (t.pair) mma_pair(acc_of(buf), stage(a, st), stage(b, st), j > 0);
            else mma(acc_of(buf), stage(a, st), stage(b, st), j > 0);
            commit(empty[st], true);  // the stage goes back once these MMAs complete
          });
          commit(acc_full[buf], false);
        });
        it = it + kblocks;
        tile = tile + 1;
      });
    });
  });

  k.role("epilogue", 1, 0, [&](i32 wg) {
    boolean leader_thread = thread_idx_x() % 128 == 0;
    // Gives accumulator buffer `buf` back to the leader's MMA thread: one arrival from each CTA.
    auto give_back = [&](const i32& buf) {
      if (t.pair) arrive(map_shared_rank(acc_empty, pair_leader_rank())[buf]);
      else arrive(acc_empty[buf]);
    };
    // Every buffer starts free.
    if_(leader_thread, [&] {
      for (unsigned buf = 0; buf < t.accumulators; ++buf) give_back(i32(int32_t(buf)));
    });
    Var<int32_t> tile = var(i32(0), "tile");
    for_each_tile(schedule, tiles_m, tiles_n, [&](i32 tm, i32 tn) {
      i32 buf = buffer(tile);
      wait(acc_full[buf]);
      const unsigned chunks = unsigned(t.bn) / chunk;
      for (unsigned ch = 0; ch < chunks; ++ch) {
        // Chunk buffer ch % 2 was last read by the store two chunks back, or, for the first
        // chunk of a tile of an odd chunk count (bn 64 of 16-bit D: one chunk), by the last
        // store of the previous tile, the newest in flight: that one must have read it too.
        const uint32_t in_flight = ch == 0 && chunks % 2 == 1 ? 0 : 1;
        if_(leader_thread, [&] { bulk_wait_read(in_flight); });
        warpgroup_sync(wg);
        store_accumulator(stage(d, int32_t(ch % 2)), acc_of(buf), Columns{ch * chunk, chunk},
                          [&](const Elem& e) { return e.value * alpha; });
        fence_proxy_async();
        warpgroup_sync(wg);
        if_(leader_thread, [&] {
          tma_store_tile(dmap, tm * bm, tn * bn + int32_t(ch * chunk), stage(d, int32_t(ch % 2)));
          bulk_commit();
        });
      }
      // Every thread's tensor-memory reads are done (store_accumulator waited for them).
      if_(leader_thread, [&] { give_back(buf); });
      tile = tile + 1;
    });
    if_(leader_thread, [&] { bulk_wait(0); });
  });
  return k.build();
}

GemmShape gemm_sm100_shape(const Config& c) {
  GemmShape s;
  s.m = c.param("m"), s.n = c.param("n"), s.k = c.param("k");
  s.in = c.param("dtype") == 0 ? ir::Scalar::BF16 : ir::Scalar::F16;
  s.out = c.param("out") == 0 ? ir::Scalar::BF16 : c.param("out") == 1 ? ir::Scalar::F16 : ir::Scalar::F32;
  s.layout = GemmLayout::TN;
  return s;
}

GemmSm100Tiling gemm_sm100_tiling(const Config& c) {
  GemmSm100Tiling t;
  t.bn = unsigned(c.param("bn"));
  t.stages = unsigned(c.param("stages"));
  t.pair = c.cluster.y >= 2;
  t.pairs = std::max(1u, c.cluster.y / 2);
  t.dynamic = c.param("dynamic") == 1;
  t.group = unsigned(c.param("group"));
  t.accumulators = unsigned(c.param("accumulators"));
  return t;
}

std::vector<ParamSpec> GemmSm100::params() const {
  return {{"m", 4096, 1, 1 << 30, "rows of A and D"},
          {"n", 4096, 1, 1 << 30, "columns of D (rows of B)"},
          {"k", 4096, 1, 1 << 30, "the inner dimension"},
          {"dtype", 0, 0, 1, "A and B: bf16 or f16", {"bf16", "f16"}},
          {"out", 0, 0, 2, "D: bf16, f16 or f32", {"bf16", "f16", "f32"}},
          {"bn", 256, 64, 256, "output columns per tile (64, 128 or 256; the pair's tile is 256 x bn)"},
          {"stages", 4, 2, 8, "A and B stages in shared memory"},
          {"dynamic", 1, 0, 1, "1: tiles claimed at run time (cluster launch control); 0: static persistent"},
          {"group", 8, 1, 64, "rows of tiles walked together (rasterization)"},
          {"accumulators", 2, 1, 2, "accumulator buffers in tensor memory: 2 overlaps a tile's epilogue with the next tile's MMAs"}};
}

std::vector<ConfigProblem> GemmSm100::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  const ir::Dim3 cl = c.cluster;
  if (cl.x != 1 || (cl.y != 1 && cl.y != 2 && cl.y != 4) || cl.z != 1)
    out.push_back({"cluster", "gemm_sm100 runs in a cluster of [1, 1] (one CTA, cta_group::1), [1, 2] (a CTA pair along M, "
                              "cta_group::2) or [1, 4] (two pairs sharing B by multicast); the spec gives [" +
                              std::to_string(cl.x) + ", " + std::to_string(cl.y) + ", " + std::to_string(cl.z) + "]"});
  const int64_t bn = c.param("bn");
  if (bn != 64 && bn != 128 && bn != 256)
    out.push_back({"params.bn", "bn " + std::to_string(bn) + ": one tcgen05.mma makes 64, 128 or 256 columns here"});
  const GemmShape s = gemm_sm100_shape(c);
  const uint64_t stage = (uint64_t(kRows) + uint64_t(bn) / (cl.y >= 2 ? 2 : 1)) * kBk * ir::scalar_bytes(s.in);
  const uint64_t smem = stage * uint64_t(c.param("stages")) + 2ull * kRows * 128;
  if (smem > 227 * 1024)
    out.push_back({"params.stages", std::to_string(c.param("stages")) + " stages take " + std::to_string(smem / 1024) +
                                        " KiB of shared memory with the epilogue's buffers; an SM has 227 KiB"});
  return out;
}

ir::Kernel GemmSm100::build(const Config& c) const { return build_gemm_sm100_kernel(gemm_sm100_shape(c), gemm_sm100_tiling(c)); }

std::unique_ptr<Instance> GemmSm100::instantiate(const Config& c, uint64_t seed) const {
  return make_gemm_instance(gemm_sm100_shape(c), build(c), seed);
}

}  // namespace tj::samples
