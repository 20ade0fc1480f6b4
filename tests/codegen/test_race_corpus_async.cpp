// The race check's corpus for the async proxy: pipeline stages given back before
// their reads completed (generic reads, MMAs, TMA stores) and accumulators read
// before their MMAs; TMA loads into a CTA's own buffer that a peer reads through
// map_shared_rank; ordinary writes that an MMA reads without a proxy fence; and
// correct kernels of the same shapes (a consumer reading its stage in an inner
// loop, double-buffered epilogues). Each racy kernel is refused with its exact
// diagnostic, and its corrected kernel lowers; each race-free kernel lowers.
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

void refused(const Builder& build, const char* expected) { tj::test::refused(build, expected, "test_race_corpus_async.cpp"); }

#define RACY(name, build, expected)                                                                 \
  TEST_CASE("racy: " name, "[codegen][verify][races][corpus]") { refused(build, expected); } \
  TEST_CASE("corrected: " name, "[codegen][verify][races][corpus]") { lowers(build); }
#define RACE_FREE(name, build) \
  TEST_CASE("race-free: " name, "[codegen][verify][races][corpus]") { lowers(build); }

constexpr uint32_t kBoxBytes = 32 * 4 * 4;  // a 32 x 4 f32 box: 128 elements

// MMA operands: 64 x 64 bf16 tiles, K-major, loaded whole by one TMA box each.
struct MmaTiles {
  SharedTile a, b;
  TileMap amap, bmap;
  Accumulator acc;
  MmaTiles(KernelBuilder& k, unsigned stages)
      : a(k.shared_tile(ir::Scalar::BF16, "a", 64, 64, stages)), b(k.shared_tile(ir::Scalar::BF16, "b", 64, 64, stages)),
        amap(k.tile_map("A", a, 64)), bmap(k.tile_map("B", b, 64)), acc(k.accumulator("acc", 64, 64)) {}
  uint32_t bytes() const { return 2 * tile_load_bytes(amap); }
};

// The leader loads stage 0 of each tile, completing on `bar`; then every thread waits for them.
void load_and_wait(const std::vector<std::pair<SharedTile, TileMap>>& tiles, const BarrierRef& bar, const boolean& leader) {
  if_(leader, [&] {
    uint32_t bytes = 0;
    for (const auto& [tile, map] : tiles) bytes += tile_load_bytes(map);
    arrive_expect_tx(bar, u32(bytes));
    for (const auto& [tile, map] : tiles) tma_load_tile(stage(tile, 0), map, i32(0), i32(0), bar);
  });
  wait_local(bar);
}

// ---- 1. stages given back before their reads completed ------------------------

// Thread 0 fills stage it % stages of `stage` (128 elements each) with box it of `src`, for it < n.
void produce(const Pipeline& pipe, const Ptr<float>& stage, const TensorMap& src, const i32& n, Marks& marks) {
  if_(thread_idx_x() == 0, [&] {
    for_(0, n, [&](i32 it) {
      pipe.acquire(it);
      arrive_expect_tx(pipe.full(it), u32(kBoxBytes));
      MARK("load"); tma_load(stage[pipe.slot(it) * 128], src, {i32(0), it * 4}, pipe.full(it));
    });
  });
}

// Thread branches, a two-stage Pipeline: the consumer warp gives the stage back, then reads it.
ir::Kernel release_then_read(bool racy, Marks& marks) {
  KernelBuilder k("release_then_read");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 2 * 128, 128);
  Pipeline pipe(k, "pipe", 2, 1);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  produce(pipe, stage, src, n, marks);
  if_(thread_idx_x() >= 32, [&] {
    for_(0, n, [&](i32 it) {
      pipe.wait_full(it);
      MARK("release"); if (racy) if_(lane_id() == 0, [&] { pipe.release(it); });
      MARK("read"); out[it * 32 + thread_idx_x() - 32] = stage[pipe.slot(it) * 128 + thread_idx_x() - 32];
      if (!racy) if_(lane_id() == 0, [&] { pipe.release(it); });
    });
  });
  return k.build();
}

// Roles, four stages, four consumer warps: the release sits between two reads of the stage.
ir::Kernel roles_release_between_reads(bool racy, Marks& marks) {
  KernelBuilder k("release_between");
  k.threads(256);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 4 * 128, 128);
  Pipeline pipe(k, "pipe", 4, 4);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  k.role("producer", 1, 0, [&](i32) {
    produce(pipe, stage, src, n, marks);
  });
  k.role("consumer", 1, 0, [&](i32) {
    for_(0, n, [&](i32 it) {
      pipe.wait_full(it);
      i32 t = thread_idx_x() % 128;
      f32 first = stage[pipe.slot(it) * 128 + t];
      MARK("release"); if (racy) if_(lane_id() == 0, [&] { pipe.release(it); });
      MARK("read"); out[it * 128 + t] = first + stage[pipe.slot(it) * 128 + (t + 1) % 128];
      if (!racy) if_(lane_id() == 0, [&] { pipe.release(it); });
    });
  });
  return k.build();
}

// A producer role and an MMA role over tiles: every warp gives the stage back before mma_wait.
ir::Kernel mma_release_before_wait(bool racy, Marks& marks) {
  KernelBuilder k("mma_release");
  k.threads(256);
  MmaTiles t(k, 2);
  Pipeline pipe(k, "pipe", 2, 4);
  auto n = k.param<int32_t>("n");
  k.role("producer", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      for_(0, n, [&](i32 it) {
        pipe.acquire(it);
        arrive_expect_tx(pipe.full(it), u32(t.bytes()));
        MARK("load"); tma_load_tile(stage(t.a, pipe.slot(it)), t.amap, i32(0), it * 64, pipe.full(it));
        tma_load_tile(stage(t.b, pipe.slot(it)), t.bmap, i32(0), it * 64, pipe.full(it));
      });
    });
  });
  k.role("consumer", 1, 0, [&](i32) {
    for_(0, n, [&](i32 it) {
      pipe.wait_full(it);
      MARK("mma"); mma(t.acc, stage(t.a, pipe.slot(it)), stage(t.b, pipe.slot(it)), it > 0);
      if (!racy) mma_wait(0);
      MARK("release"); if_(lane_id() == 0, [&] { pipe.release(it); });
      if (racy) mma_wait(0);
    });
  });
  return k.build();
}

// A producer filling a ring of 4 stages of A and B, one per iteration: stage it % 4 once
// its consumers gave it back (empty), completing on full.
void ring_producer(KernelBuilder& k, const MmaTiles& t, const auto& full, const auto& empty, const i32& n, Marks& marks) {
  k.role("producer", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      for_(0, n, [&](i32 it) {
        i32 st = it % 4;
        if_(it >= 4, [&] { wait_local(empty[st]); });
        arrive_expect_tx(full[st], u32(t.bytes()));
        MARK("load"); tma_load_tile(stage(t.a, st), t.amap, i32(0), it * 64, full[st]);
        tma_load_tile(stage(t.b, st), t.bmap, i32(0), it * 64, full[st]);
      });
    });
  });
}

// The GEMM's consumer keeps `depth` MMA groups in flight (mma_wait(depth)) and gives back
// the stage `depth` k-blocks back, through a counter stepped once per iteration (the walk
// relates its values across iterations), the last ones after the loop; racy: one k-block
// later, whose MMA may still be reading the stage.
ir::Kernel mma_ring(const char* name, int32_t depth, bool racy, Marks& marks) {
  KernelBuilder k(name);
  k.threads(256);
  MmaTiles t(k, 4);
  auto full = k.mbarriers("full", 4, 1);
  auto empty = k.mbarriers("empty", 4, 4);
  auto n = k.param<int32_t>("n");
  ring_producer(k, t, full, empty, n, marks);
  k.role("consumer", 1, 0, [&](i32) {
    Var<int32_t> it = var(i32(0), "it");
    const int32_t back = racy ? depth - 1 : depth;
    for_(0, n, [&](i32 j) {
      i32 st = it % 4;
      wait_local(full[st]);
      MARK("mma"); mma(t.acc, stage(t.a, st), stage(t.b, st), j > 0);
      mma_wait(unsigned(depth));
      MARK("release"); if_(j >= back, [&] { if_(lane_id() == 0, [&] { arrive_relaxed(empty[(it - back) % 4]); }); });
      it = it + 1;
    });
    mma_wait(0);
    for (int32_t b = 1; b <= back; ++b) if_(n >= b, [&] { if_(lane_id() == 0, [&] { arrive_relaxed(empty[(it - b) % 4]); }); });
  });
  return k.build();
}
ir::Kernel mma_wait_one_releases_current(bool racy, Marks& marks) { return mma_ring("mma_wait_one", 1, racy, marks); }
ir::Kernel mma_wait_two_releases_previous(bool racy, Marks& marks) { return mma_ring("mma_wait_two", 2, racy, marks); }

// A 2-CTA cluster: each CTA's stage goes back to the producers of both CTAs (a
// loop over the ranks, as the GEMM's multicast release) before the MMA completed.
ir::Kernel cluster_release_before_wait(bool racy, Marks& marks) {
  KernelBuilder k("cluster_release");
  k.threads(256).cluster(2);
  MmaTiles t(k, 2);
  auto full = k.mbarriers("full", 2, 1);
  auto empty = k.mbarriers("empty", 2, 8);
  auto n = k.param<int32_t>("n");
  k.role("producer", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      for_(0, n, [&](i32 it) {
        if_(it >= 2, [&] { wait_local(empty[it % 2]); });
        arrive_expect_tx(full[it % 2], u32(t.bytes()));
        MARK("load"); tma_load_tile(stage(t.a, it % 2), t.amap, cluster_ctarank() * 64, it * 64, full[it % 2]);
        tma_load_tile(stage(t.b, it % 2), t.bmap, i32(0), it * 64, full[it % 2]);
      });
    });
  });
  k.role("consumer", 1, 0, [&](i32) {
    for_(0, n, [&](i32 it) {
      wait_local(full[it % 2]);
      MARK("mma"); mma(t.acc, stage(t.a, it % 2), stage(t.b, it % 2), it > 0);
      if (!racy) mma_wait(0);
      if_(lane_id() == 0, [&] {
        for_(0, 2, [&](i32 q) { MARK("release"); arrive_relaxed(map_shared_rank(empty, q)[it % 2]); });
      });
      if (racy) mma_wait(0);
    });
  });
  return k.build();
}

// One consumer thread stores each stage to global memory with TMA, then gives it back.
ir::Kernel store_release_before_read_wait(bool racy, Marks& marks) {
  KernelBuilder k("store_release");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  TensorMap dst = k.tensor_map<float>("dst", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 2 * 128, 128);
  Pipeline pipe(k, "pipe", 2, 1);
  auto n = k.param<int32_t>("n");
  produce(pipe, stage, src, n, marks);
  if_(thread_idx_x() == 32, [&] {
    for_(0, n, [&](i32 it) {
      pipe.wait_full(it);
      MARK("store"); tma_store(dst, {i32(0), it * 4}, stage[pipe.slot(it) * 128]);
      bulk_commit();
      if (!racy) bulk_wait_read(0);
      MARK("release"); pipe.release(it);
      if (racy) bulk_wait_read(0);
    });
    bulk_wait(0);
  });
  return k.build();
}

// A stage whose refill waits on two releases: a ticket the consumer gives back at the end
// of each trip, while that trip's TMA store may still read its stage (a claim ring's slot,
// say), and `empty`, given back once the store has read it, in the next trip (as the
// attention kernel does). The ticket decides nothing: the producer also waits on `empty`.
// The stage follows a local count, not the loop index, so the check cannot tell the stages
// apart. Racy: `empty` goes back without the store's bulk_wait_read; neither release then
// decides, and the first early one in the walk is reported: the ticket's, after the store.
ir::Kernel store_release_with_ticket(bool racy, Marks& marks) {
  KernelBuilder k("store_ticket");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  TensorMap dst = k.tensor_map<float>("dst", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 2 * 128, 128);
  auto full = k.mbarriers("full", 2, 1), empty = k.mbarriers("empty", 2, 1), ticket = k.mbarriers("ticket", 2, 1);
  auto n = k.param<int32_t>("n");
  if_(thread_idx_x() == 0, [&] {
    for_(0, n, [&](i32 it) {
      const i32 s = it % 2;
      if_(it >= 2, [&] {
        wait_local(ticket[s]);
        wait_local(empty[s]);
      });
      arrive_expect_tx(full[s], u32(kBoxBytes));
      MARK("load"); tma_load(stage[s * 128], src, {i32(0), it * 4}, full[s]);
    });
  });
  if_(thread_idx_x() == 32, [&] {
    Var<int32_t> u = var(i32(0), "u");
    for_(0, n, [&](i32 it) {
      const i32 s = u % 2;
      wait_local(full[s]);
      if_(u > 0, [&] {
        if (!racy) bulk_wait_read(0);
        arrive(empty[(u + 1) % 2]);
      });
      MARK("store"); tma_store(dst, {i32(0), it * 4}, stage[s * 128]);
      bulk_commit();
      MARK("release"); arrive(ticket[s]);
      u = u + 1;
    });
    bulk_wait(0);
  });
  return k.build();
}

// One warpgroup: load, wait, multiply; the epilogue reads the accumulator before mma_wait(0).
ir::Kernel accumulator_before_wait(bool racy, Marks& marks) {
  KernelBuilder k("acc_early");
  k.threads(128);
  MmaTiles t(k, 1);
  SharedTile d = k.shared_tile(ir::Scalar::BF16, "d", 64, 64);
  TileMap dmap = k.tile_map("D", d, 64);
  auto full = k.mbarriers("full", 1, 1);
  k.role("worker", 1, 0, [&](i32) {
    load_and_wait({{t.a, t.amap}, {t.b, t.bmap}}, full[0], thread_idx_x() == 0);
    MARK("mma"); mma(t.acc, stage(t.a, 0), stage(t.b, 0), boolean(false));
    if (!racy) mma_wait(0);
    MARK("epilogue"); store_accumulator(stage(d, 0), t.acc, f32(1.0f));
    if (racy) mma_wait(0);
    fence_proxy_async();
    warpgroup_sync(0);
    if_(thread_idx_x() == 0, [&] {
      tma_store_tile(dmap, i32(0), i32(0), stage(d, 0));
      bulk_commit();
      bulk_wait(0);
    });
  });
  return k.build();
}

// The MMA in two groups (its first K step, then the rest); mma_wait(1) leaves the second in flight.
ir::Kernel accumulator_after_wait_one(bool racy, Marks& marks) {
  KernelBuilder k("acc_wait_one");
  k.threads(128);
  MmaTiles t(k, 1);
  SharedTile d = k.shared_tile(ir::Scalar::BF16, "d", 64, 64);
  auto full = k.mbarriers("full", 1, 1);
  k.role("worker", 1, 0, [&](i32) {
    load_and_wait({{t.a, t.amap}, {t.b, t.bmap}}, full[0], thread_idx_x() == 0);
    mma(t.acc, stage(t.a, 0), stage(t.b, 0), boolean(false), KRange{0, 16});
    MARK("mma"); mma(t.acc, stage(t.a, 0), stage(t.b, 0), boolean(true), KRange{16, 0});
    mma_wait(racy ? 1 : 0);
    MARK("epilogue"); store_accumulator(stage(d, 0), t.acc, f32(1.0f));
  });
  return k.build();
}

// Split-K: the partial sum leaves for the workspace, or a peer's is added, before mma_wait(0).
ir::Kernel partial_before_wait(bool racy, Marks& marks, bool add) {
  KernelBuilder k(add ? "partial_add" : "partial_store");
  k.threads(128);
  MmaTiles t(k, 1);
  auto full = k.mbarriers("full", 1, 1);
  auto ws = k.param<float*>("ws");
  k.role("worker", 1, 0, [&](i32) {
    load_and_wait({{t.a, t.amap}, {t.b, t.bmap}}, full[0], thread_idx_x() == 0);
    MARK("mma"); mma(t.acc, stage(t.a, 0), stage(t.b, 0), boolean(false));
    if (!racy) mma_wait(0);
    MARK("partial"); add ? add_accumulator_partial(ws, t.acc, block_idx_x()) : store_accumulator_partial(ws, t.acc, block_idx_x());
    if (racy) mma_wait(0);
  });
  return k.build();
}
ir::Kernel partial_store_before_wait(bool racy, Marks& marks) { return partial_before_wait(racy, marks, false); }
ir::Kernel partial_add_before_wait(bool racy, Marks& marks) { return partial_before_wait(racy, marks, true); }

// ---- 2. a TMA load into this CTA's buffer, read by a peer through map_shared_rank ----

// Each CTA loads a box into its own buffer and waits; a peer reads it (ring of `ctas`).
ir::Kernel peer_reads_loaded_box(bool racy, Marks& marks, unsigned ctas) {
  KernelBuilder k(ctas == 2 ? "peer_box_2" : "peer_box_4");
  k.threads(32).cluster(ctas);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBoxBytes));
    MARK("load"); tma_load(tile[0], src, {i32(0), cluster_ctarank() * 4}, full[0]);
  });
  MARK("wait"); wait(full[0]);
  if (!racy) cluster_sync();
  MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = map_shared_rank(tile, (cluster_ctarank() + 1) % int32_t(ctas))[thread_idx_x()];
  cluster_sync();
  return k.build();
}
ir::Kernel peer_reads_loaded_box_2(bool racy, Marks& marks) { return peer_reads_loaded_box(racy, marks, 2); }
ir::Kernel peer_reads_loaded_box_4(bool racy, Marks& marks) { return peer_reads_loaded_box(racy, marks, 4); }

// The cluster barrier sits between the load and its wait: it does not cover the landing.
ir::Kernel cluster_sync_before_landing(bool racy, Marks& marks) {
  KernelBuilder k("sync_before_landing");
  k.threads(64).cluster(2);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBoxBytes));
    MARK("load"); tma_load(tile[0], src, {i32(0), cluster_ctarank() * 4}, full[0]);
  });
  if (racy) cluster_sync();
  MARK("wait"); wait_local(full[0]);
  if (!racy) cluster_sync();
  MARK("read"); out[block_idx_x() * 64 + thread_idx_x()] = map_shared_rank(tile, cluster_ctarank() ^ 1)[thread_idx_x() + 64];
  cluster_sync();
  return k.build();
}

// A 2x2 cluster: only the first CTA of each row loads; the CTA across the row reads it.
ir::Kernel row_leader_loads_2d(bool racy, Marks& marks) {
  KernelBuilder k("row_leader");
  k.threads(32).cluster(2, 2);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  if_(cluster_ctaid_x() == 0, [&] {
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full[0], u32(kBoxBytes));
      MARK("load"); tma_load(tile[0], src, {i32(0), cluster_ctaid_y() * 4}, full[0]);
    });
    MARK("wait"); wait(full[0]);
  });
  if (!racy) cluster_sync();
  if_(cluster_ctaid_x() == 1, [&] {
    MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = map_shared_rank(tile, cluster_ctaid_y() * 2)[thread_idx_x()];
  });
  cluster_sync();
  return k.build();
}

// In a loop: the next round's load overwrites the buffer while the peer still reads this round's.
ir::Kernel peer_reads_each_round(bool racy, Marks& marks) {
  KernelBuilder k("peer_rounds");
  k.threads(32).cluster(2);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  auto rounds = k.param<int32_t>("rounds");
  MARK("loop"); for_(0, rounds, [&](i32 r) {
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full[0], u32(kBoxBytes));
      MARK("load"); tma_load(tile[0], src, {i32(0), r * 4}, full[0]);
    });
    wait(full[0]);
    cluster_sync();
    MARK("read"); out[(block_idx_x() * rounds + r) * 32 + thread_idx_x()] = map_shared_rank(tile, cluster_ctarank() ^ 1)[thread_idx_x()];
    if (!racy) cluster_sync();
  });
  return k.build();
}

// An mbarrier hand-over after the wait: the peer must wait at cluster scope (wait, not wait_local).
ir::Kernel handover_after_landing(bool racy, Marks& marks) {
  KernelBuilder k("handover_box");
  k.threads(32).cluster(2);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto hand = k.mbarriers("hand", 1, 1);
  auto out = k.param<float*>("out");
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBoxBytes));
    MARK("load"); tma_load(tile[0], src, {i32(0), cluster_ctarank() * 4}, full[0]);
  });
  MARK("wait"); wait(full[0]);
  if_(thread_idx_x() == 0, [&] { arrive(map_shared_rank(hand, cluster_ctarank() ^ 1)[0]); });
  if (racy) wait_local(hand[0]);
  else wait(hand[0]);
  MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = map_shared_rank(tile, cluster_ctarank() ^ 1)[thread_idx_x()];
  cluster_sync();
  return k.build();
}

// ---- 3. ordinary writes read by an MMA ------------------------------------------

// O = P V: the tile P (written from an accumulator), V and O.
struct PvTiles {
  SharedTile p, v;
  TileMap vmap;
  Accumulator o;
};
PvTiles pv_tiles(KernelBuilder& k) {
  SharedTile p = k.shared_tile(ir::Scalar::BF16, "p", 64, 64), v = k.shared_tile(ir::Scalar::BF16, "v", 64, 64);
  TileMap vmap = k.tile_map("V", v, 64);
  return {p, v, vmap, k.accumulator("o", 64, 64)};
}

// S = Q K^T into registers, P = S written to a shared tile, O = P V: the second MMA
// reads P through the async proxy. One warpgroup.
// P written by store_accumulator (every thread of the warpgroup), then read by an MMA;
// racy: no fence_proxy_async, or (`no_barrier`) the fence but no warpgroup_sync after it.
ir::Kernel p_tile_one(bool racy, Marks& marks, bool no_barrier) {
  KernelBuilder k("pv_one");
  k.threads(128);
  MmaTiles t(k, 1);
  const PvTiles pv = pv_tiles(k);
  const SharedTile &p = pv.p, &v = pv.v;
  const TileMap& vmap = pv.vmap;
  const Accumulator& o = pv.o;
  auto full = k.mbarriers("full", 1, 1);
  k.role("worker", 1, 0, [&](i32) {
    load_and_wait({{t.a, t.amap}, {t.b, t.bmap}, {v, vmap}}, full[0], thread_idx_x() == 0);
    mma(t.acc, stage(t.a, 0), stage(t.b, 0), boolean(false));
    mma_wait(0);
    MARK("write"); store_accumulator(stage(p, 0), t.acc, f32(1.0f));
    if (!racy || no_barrier) fence_proxy_async();
    if (!racy || !no_barrier) warpgroup_sync(0);
    MARK("mma"); mma(o, stage(p, 0), stage(v, 0), boolean(false));
    mma_wait(0);
  });
  return k.build();
}
ir::Kernel p_tile_without_fence(bool racy, Marks& marks) { return p_tile_one(racy, marks, false); }
ir::Kernel p_tile_without_barrier(bool racy, Marks& marks) { return p_tile_one(racy, marks, true); }

// The same in a loop over blocks, with the fence before the write instead of after it.
ir::Kernel p_tile_fence_too_early(bool racy, Marks& marks) {
  KernelBuilder k("pv_loop");
  k.threads(128);
  MmaTiles t(k, 1);
  const PvTiles pv = pv_tiles(k);
  const SharedTile &p = pv.p, &v = pv.v;
  const TileMap& vmap = pv.vmap;
  const Accumulator& o = pv.o;
  auto full = k.mbarriers("full", 1, 1);
  auto n = k.param<int32_t>("n");
  k.role("worker", 1, 0, [&](i32) {
    load_and_wait({{t.a, t.amap}, {t.b, t.bmap}, {v, vmap}}, full[0], thread_idx_x() == 0);
    for_(0, n, [&](i32 j) {
      mma(t.acc, stage(t.a, 0), stage(t.b, 0), boolean(false));
      mma_wait(0);
      if (racy) fence_proxy_async();
      MARK("write"); store_accumulator(stage(p, 0), t.acc, f32(1.0f));
      if (!racy) fence_proxy_async();
      warpgroup_sync(0);
      MARK("mma"); mma(o, stage(p, 0), stage(v, 0), j > 0);
      mma_wait(0);
    });
  });
  return k.build();
}

// Two roles: one writes P and hands it over with an mbarrier, the other multiplies it.
// The multiplying role comes first in the kernel: roles run at the same time.
ir::Kernel p_tile_handed_over(bool racy, Marks& marks) {
  KernelBuilder k("pv_roles");
  k.threads(256);
  MmaTiles t(k, 1);
  const PvTiles pv = pv_tiles(k);
  const SharedTile &p = pv.p, &v = pv.v;
  const TileMap& vmap = pv.vmap;
  const Accumulator& o = pv.o;
  auto full = k.mbarriers("full", 2, 1);
  auto p_full = k.mbarriers("p_full", 1, 128);
  k.role("pv", 1, 0, [&](i32) {
    load_and_wait({{v, vmap}}, full[1], thread_idx_x() % 128 == 0);
    wait(p_full[0]);
    MARK("mma"); mma(o, stage(p, 0), stage(v, 0), boolean(false));
    mma_wait(0);
  });
  k.role("qk", 1, 0, [&](i32) {
    load_and_wait({{t.a, t.amap}, {t.b, t.bmap}}, full[0], thread_idx_x() % 128 == 0);
    mma(t.acc, stage(t.a, 0), stage(t.b, 0), boolean(false));
    mma_wait(0);
    MARK("write"); store_accumulator(stage(p, 0), t.acc, f32(1.0f));
    if (!racy) fence_proxy_async();
    arrive(p_full[0]);
  });
  return k.build();
}

// ---- 4. a consumer reading its stage in an inner loop ------------------------------

// Thread branches: the consumer warp reads its stage's four rows in an inner loop.
ir::Kernel inner_loop_reads(bool, Marks& marks) {
  KernelBuilder k("inner_rows");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 2 * 128, 128);
  Pipeline pipe(k, "pipe", 2, 1);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  produce(pipe, stage, src, n, marks);
  if_(thread_idx_x() >= 32, [&] {
    for_(0, n, [&](i32 it) {
      pipe.wait_full(it);
      for_(0, 4, [&](i32 r) {
        out[(it * 4 + r) * 32 + thread_idx_x() - 32] = stage[pipe.slot(it) * 128 + r * 32 + thread_idx_x() - 32];
      });
      if_(lane_id() == 0, [&] { pipe.release(it); });
    });
  });
  return k.build();
}

// Roles, four stages: nested inner loops (rows, then a trip count from a parameter), then an MMA-free release.
ir::Kernel nested_inner_loops(bool, Marks& marks) {
  KernelBuilder k("inner_nested");
  k.threads(256);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 4 * 128, 128);
  Pipeline pipe(k, "pipe", 4, 4);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  auto reps = k.param<int32_t>("reps");
  k.role("producer", 1, 0, [&](i32) {
    produce(pipe, stage, src, n, marks);
  });
  k.role("consumer", 1, 0, [&](i32) {
    for_(0, n, [&](i32 it) {
      pipe.wait_full(it);
      auto sum = var(f32(0.0f), "sum");
      for_(0, reps, [&](i32) {
        for_(0, 4, [&](i32 r) { sum = sum + stage[pipe.slot(it) * 128 + r * 32 + thread_idx_x() % 32]; });
      });
      out[it * 128 + thread_idx_x() % 128] = sum;
      if_(lane_id() == 0, [&] { pipe.release(it); });
    });
  });
  return k.build();
}

// An MMA consumer whose inner loop issues the stage's two K halves, then waits and gives it back.
ir::Kernel inner_loop_mma(bool, Marks&) {
  KernelBuilder k("inner_mma");
  k.threads(256);
  MmaTiles t(k, 2);
  Pipeline pipe(k, "pipe", 2, 4);
  auto n = k.param<int32_t>("n");
  auto out = k.param<float*>("out");
  k.role("producer", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      for_(0, n, [&](i32 it) {
        pipe.acquire(it);
        arrive_expect_tx(pipe.full(it), u32(t.bytes()));
        tma_load_tile(stage(t.a, pipe.slot(it)), t.amap, i32(0), it * 64, pipe.full(it));
        tma_load_tile(stage(t.b, pipe.slot(it)), t.bmap, i32(0), it * 64, pipe.full(it));
      });
    });
  });
  k.role("consumer", 1, 0, [&](i32) {
    for_(0, n, [&](i32 it) {
      pipe.wait_full(it);
      for_(0, 2, [&](i32 half) {
        mma(t.acc, stage(t.a, pipe.slot(it)), stage(t.b, pipe.slot(it)), it > 0 || half > 0);
      });
      mma_wait(0);
      if_(lane_id() == 0, [&] { pipe.release(it); });
    });
    out[thread_idx_x()] = 0.0f;
  });
  return k.build();
}

// Racy counterpart: an inner loop that gives stages back reads the next stage without waiting for it.
ir::Kernel inner_loop_consumes_two(bool racy, Marks& marks) {
  KernelBuilder k("inner_two");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 2 * 128, 128);
  Pipeline pipe(k, "pipe", 2, 1);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  auto halves = k.param<int32_t>("halves");
  produce(pipe, stage, src, n * halves, marks);
  if_(thread_idx_x() >= 32, [&] {
    for_(0, n, [&](i32 i) {
      if (racy) pipe.wait_full(i * halves);
      for_(0, halves, [&](i32 h) {
        i32 it = i * halves + h;
        if (!racy) pipe.wait_full(it);
        MARK("read"); out[it * 32 + thread_idx_x() - 32] = stage[pipe.slot(it) * 128 + thread_idx_x() - 32];
        if_(lane_id() == 0, [&] { pipe.release(it); });
      });
    });
  });
  return k.build();
}

// ---- 5. double-buffered epilogues ------------------------------------------------

// Two warpgroups, each its rows of a 64-column-chunk tile in two chunk buffers: the
// next chunk is written while the TMA store of the previous one still reads its buffer.
// Racy: one chunk buffer, and bulk_wait_read(1) still lets the previous store read it.
ir::Kernel chunked_epilogue(bool racy, Marks& marks) {
  KernelBuilder k("chunks");
  k.threads(256);
  SharedTile d = k.shared_tile(ir::Scalar::BF16, "d", 128, 64, 2);
  TileMap dmap = k.tile_map("D", d, 64);
  Accumulator acc = k.accumulator("acc", 64, 256);
  auto tiles = k.param<int32_t>("tiles");
  k.role("epilogue", 2, 0, [&](i32 wg) {
    boolean leader = thread_idx_x() % 128 == 0;
    for_(0, tiles, [&](i32 tile) {
      for (unsigned ch = 0; ch < 4; ++ch) {
        TileView out = stage(d, racy ? 0 : int32_t(ch % 2)).rows(wg * 64);
        MARK("wait"); if_(leader, [&] { bulk_wait_read(1); });
        warpgroup_sync(wg);
        MARK("write"); store_accumulator(out, acc, Columns{ch * 64, 64}, f32(1.0f), f32(0.0f), out);
        fence_proxy_async();
        warpgroup_sync(wg);
        if_(leader, [&] {
          MARK("store"); tma_store_tile(dmap, tile * 128 + wg * 64, int32_t(ch * 64), out);
          bulk_commit();
        });
      }
    });
    if_(leader, [&] { bulk_wait(0); });
  });
  return k.build();
}

// One warpgroup, one output tile per iteration, buffers alternating by iteration.
ir::Kernel alternating_tile_buffers(bool racy, Marks& marks) {
  KernelBuilder k("alternate");
  k.threads(128);
  SharedTile d = k.shared_tile(ir::Scalar::BF16, "d", 64, 64, 2);
  TileMap dmap = k.tile_map("D", d, 64);
  Accumulator acc = k.accumulator("acc", 64, 64);
  auto tiles = k.param<int32_t>("tiles");
  k.role("worker", 1, 0, [&](i32) {
    boolean leader = thread_idx_x() == 0;
    for_(0, tiles, [&](i32 tile) {
      MARK("wait"); if_(leader, [&] { bulk_wait_read(racy ? 2 : 1); });
      warpgroup_sync(0);
      MARK("write"); store_accumulator(stage(d, tile % 2), acc, f32(1.0f));
      fence_proxy_async();
      warpgroup_sync(0);
      if_(leader, [&] {
        MARK("store"); tma_store_tile(dmap, tile * 64, i32(0), stage(d, tile % 2));
        bulk_commit();
      });
    });
    if_(leader, [&] { bulk_wait(0); });
  });
  return k.build();
}

}  // namespace

RACY("a consumer warp gives its stage back before reading it (thread branches)", release_then_read,
     "@{read}: error: the load at @{read} reads shared buffer 'stage' after the arrive at @{release} gave it back to its producer: the TMA load at @{load} may already be refilling it\n  fix: move the arrive at line {release} after line {read}: a stage goes back to its producer after its last read")
RACY("consumer warps give the stage back between two reads of it (roles)", roles_release_between_reads,
     "@{read}: error: the load at @{read} reads shared buffer 'stage' after the arrive at @{release} gave it back to its producer: the TMA load at @{load} may already be refilling it\n  fix: move the arrive at line {release} after line {read}: a stage goes back to its producer after its last read")
RACY("the MMA's stage goes back before mma_wait (roles)", mma_release_before_wait,
     "@{release}: error: the arrive at @{release} gives shared buffer 'a' back to its producer while the mma at @{mma} may still be reading it: the TMA load at @{load} may refill it mid-read\n  fix: call mma_wait(0) between line {mma} and line {release}: a stage goes back to its producer after its last read has completed")
RACY("mma_wait(1) leaves the MMA of the stage given back in flight", mma_wait_one_releases_current,
     "@{release}: error: the arrive at @{release} gives shared buffer 'a' back to its producer while the mma at @{mma} may still be reading it: the TMA load at @{load} may refill it mid-read\n  fix: call mma_wait(0) between line {mma} and line {release}: a stage goes back to its producer after its last read has completed")
RACY("mma_wait(2) gives back the stage of the previous k-block, whose MMA may still run", mma_wait_two_releases_previous,
     "@{release}: error: the arrive at @{release} gives shared buffer 'a' back to its producer while the mma at @{mma} may still be reading it: the TMA load at @{load} may refill it mid-read\n  fix: call mma_wait(1) between line {mma} and line {release}: a stage goes back to its producer after its last read has completed")
RACY("a 2-CTA cluster's stage goes back to both producers before mma_wait", cluster_release_before_wait,
     "@{release}: error: the arrive at @{release} gives shared buffer 'a' back to its producer while the mma at @{mma} may still be reading it: the TMA load at @{load} may refill it mid-read\n  fix: call mma_wait(0) between line {mma} and line {release}: a stage goes back to its producer after its last read has completed")
RACY("a stage stored with TMA goes back before bulk_wait_read", store_release_before_read_wait,
     "@{release}: error: the arrive at @{release} gives shared buffer 'stage' back to its producer while the TMA store at @{store} may still be reading it: the TMA load at @{load} may refill it mid-read\n  fix: call bulk_wait_read(0) between line {store} and line {release}: a stage goes back to its producer after its last read has completed")
RACY("a stage stored with TMA goes back before bulk_wait_read, with a ticket given back at each trip's top", store_release_with_ticket,
     "@{release}: error: the arrive at @{release} gives shared buffer 'stage' back to its producer while the TMA store at @{store} may still be reading it: the TMA load at @{load} may refill it mid-read\n  fix: call bulk_wait_read(0) between line {store} and line {release}: a stage goes back to its producer after its last read has completed")
RACY("store_accumulator before mma_wait(0)", accumulator_before_wait,
     "@{epilogue}: error: the store_accumulator at @{epilogue} reads accumulator 'acc' while the mma at @{mma} may still be writing it\n  fix: call mma_wait(0) between line {mma} and line {epilogue}")
RACY("store_accumulator after mma_wait(1) with the MMA's second group in flight", accumulator_after_wait_one,
     "@{epilogue}: error: the store_accumulator at @{epilogue} reads accumulator 'acc' while the mma at @{mma} may still be writing it\n  fix: call mma_wait(0) between line {mma} and line {epilogue}")
RACY("split-K: store_accumulator_partial before mma_wait(0)", partial_store_before_wait,
     "@{partial}: error: the store_accumulator_partial at @{partial} reads accumulator 'acc' while the mma at @{mma} may still be writing it\n  fix: call mma_wait(0) between line {mma} and line {partial}")
RACY("split-K: add_accumulator_partial before mma_wait(0)", partial_add_before_wait,
     "@{partial}: error: the add_accumulator_partial at @{partial} adds into accumulator 'acc' while the mma at @{mma} may still be writing it\n  fix: call mma_wait(0) between line {mma} and line {partial}")

RACY("a 2-CTA cluster reads a peer's TMA-loaded box with no cluster barrier after the wait", peer_reads_loaded_box_2,
     "@{read}: error: race on shared buffer 'tile' of CTA rank 0: the TMA load at @{load} by CTA rank 0 and the load at @{read} by CTA rank 1 through map_shared_rank(tile, ((%cluster_ctarank + 1) % 2)) may run at the same time (the TMA load lands at the wait at @{wait}; no cluster barrier follows that wait before line {read})\n  fix: add cluster_sync() after the wait at line {wait} and before line {read} (or hand over with an mbarrier of the reading CTA: arrive after that wait, wait() before line {read})")
RACY("a 4-CTA ring reads the next CTA's TMA-loaded box with no cluster barrier after the wait", peer_reads_loaded_box_4,
     "@{read}: error: race on shared buffer 'tile' of CTA rank 0: the TMA load at @{load} by CTA rank 0 and the load at @{read} by CTA rank 3 through map_shared_rank(tile, ((%cluster_ctarank + 1) % 4)) may run at the same time (the TMA load lands at the wait at @{wait}; no cluster barrier follows that wait before line {read})\n  fix: add cluster_sync() after the wait at line {wait} and before line {read} (or hand over with an mbarrier of the reading CTA: arrive after that wait, wait() before line {read})")
RACY("a cluster barrier between a TMA load and its wait does not cover the landing", cluster_sync_before_landing,
     "@{read}: error: race on shared buffer 'tile' of CTA rank 0: the TMA load at @{load} by CTA rank 0 and the load at @{read} by CTA rank 1 through map_shared_rank(tile, (%cluster_ctarank ^ 1)) may run at the same time (the TMA load lands at the wait at @{wait}; no cluster barrier follows that wait before line {read})\n  fix: add cluster_sync() after the wait at line {wait} and before line {read} (or hand over with an mbarrier of the reading CTA: arrive after that wait, wait() before line {read})")
RACY("a 2x2 cluster: the row's first CTA loads, the other reads it without a cluster barrier", row_leader_loads_2d,
     "@{read}: error: race on shared buffer 'tile' of CTA rank 0: the TMA load at @{load} by CTA rank 0 and the load at @{read} by CTA rank 1 through map_shared_rank(tile, (%cluster_ctaid.y * 2)) may run at the same time (the TMA load lands at the wait at @{wait}; no cluster barrier follows that wait before line {read})\n  fix: add cluster_sync() after the wait at line {wait} and before line {read} (or hand over with an mbarrier of the reading CTA: arrive after that wait, wait() before line {read})")
RACY("a loop's next TMA load overwrites the box a peer is still reading", peer_reads_each_round,
     "@{load}: error: race on shared buffer 'tile' of CTA rank 1: the load at @{read} by CTA rank 0 through map_shared_rank(tile, (%cluster_ctarank ^ 1)) and the TMA load at @{load} by CTA rank 1 may run at the same time (iteration i of the loop at @{loop} and iteration i + 1)\n  fix: add cluster_sync() at the end of the loop body at @{loop} (after line {read}), so that no CTA starts the next iteration while a peer is still in this one")
RACY("an mbarrier hand-over of a TMA-loaded box needs a cluster-scope wait", handover_after_landing,
     "@{read}: error: race on shared buffer 'tile' of CTA rank 0: the TMA load at @{load} by CTA rank 0 and the load at @{read} by CTA rank 1 through map_shared_rank(tile, (%cluster_ctarank ^ 1)) may run at the same time (the TMA load lands at the wait at @{wait}; no cluster barrier follows that wait before line {read})\n  fix: add cluster_sync() after the wait at line {wait} and before line {read} (or hand over with an mbarrier of the reading CTA: arrive after that wait, wait() before line {read})")
RACY("an MMA reads a tile written by store_accumulator without fence_proxy_async", p_tile_without_fence,
     "@{mma}: error: the mma at @{mma} reads shared buffer 'p' written by the store_accumulator at @{write} with no fence_proxy_async() between: the tensor cores read it through the async proxy and may read old data\n  fix: add fence_proxy_async() (and a barrier among the writing threads) between line {write} and line {mma}")
RACY("an MMA reads a tile the whole warpgroup wrote, fenced but with no barrier among the writers", p_tile_without_barrier,
     "@{mma}: error: the mma at @{mma} reads shared buffer 'p' written by the store_accumulator at @{write} with no barrier among the writing threads between: each warp of the warpgroup issues the MMA for the whole operand, which may read rows other warps have not written yet (the fence orders each thread's own writes only)\n  fix: after fence_proxy_async(), let the writing threads meet (warpgroup_sync, role_sync or sync_threads) before line {mma}")
RACY("in a loop, the proxy fence comes before the write instead of after it", p_tile_fence_too_early,
     "@{mma}: error: the mma at @{mma} reads shared buffer 'p' written by the store_accumulator at @{write} with no fence_proxy_async() between: the tensor cores read it through the async proxy and may read old data\n  fix: add fence_proxy_async() (and a barrier among the writing threads) between line {write} and line {mma}")
RACY("a role hands a written tile to an MMA role without fence_proxy_async", p_tile_handed_over,
     "@{mma}: error: the mma at @{mma} reads shared buffer 'p', which the store_accumulator at @{write} (other threads) writes with no fence_proxy_async() after it: the tensor cores may read old data\n  fix: add fence_proxy_async() after line {write} in the threads that write it, before they hand the buffer over (arrive or barrier)")
RACY("an inner loop that gives stages back reads the next stage without waiting for it", inner_loop_consumes_two,
     "@{read}: error: the load at @{read} reads shared buffer 'stage', which the TMA load at @{load} (other threads) fills, without first waiting on barrier 'pipe_full' in the same loop iteration\n  fix: wait on 'pipe_full' before line {read}")
RACY("a single chunk buffer with bulk_wait_read(1) in a chunked epilogue", chunked_epilogue,
     "@{write}: error: the store_accumulator at @{write} overwrites shared buffer 'd' while the TMA store at @{store} may still be reading it: the bulk_wait_read(1) at @{wait} lets its group stay in flight\n  fix: use bulk_wait_read(0) at line {wait}, so that it waits until the TMA store at line {store} has read its source")
RACY("bulk_wait_read(2) with two alternating tile buffers", alternating_tile_buffers,
     "@{write}: error: the store_accumulator at @{write} overwrites shared buffer 'd' while the TMA store at @{store} may still be reading it: the bulk_wait_read(2) at @{wait} lets its group stay in flight\n  fix: use bulk_wait_read(1) at line {wait}, so that it waits until the TMA store at line {store} has read its source")
RACE_FREE("a Pipeline consumer reads its stage in an inner loop (thread branches)", inner_loop_reads)
RACE_FREE("a Pipeline consumer reads its stage in nested inner loops (roles)", nested_inner_loops)
RACE_FREE("an MMA consumer issues its stage in an inner loop", inner_loop_mma)

// A bulk copy to a peer reads its source through the async proxy: ordinary writes need a
// proxy fence before it, and the source may be reused only once the receiver handed it
// back (this thread waits on a barrier between). own_got: the sender waits on its own 'got'
// instead, which the copy into this CTA completes, not its own copy's reads.
TEST_CASE("racy: a bulk copy's source written without a fence, and overwritten while in flight", "[codegen][verify][races][corpus]") {
  unsigned own_wait = 0;
  auto build = [&](bool fence, bool overwrite, bool handback, unsigned* write_line, unsigned* copy_line, unsigned* again_line,
                   bool own_got = false) {
    KernelBuilder k(fence ? (overwrite ? (handback ? "bulk_handback" : "bulk_overwrite") : "bulk_fenced") : "bulk_unfenced");
    k.threads(128).cluster(2);
    auto in = k.param<float*>("in");
    auto out = k.param<float*>("out");
    auto src = k.shared<float>("src", 4);
    auto inbox = k.shared<float>("inbox", 8);
    auto got = k.mbarriers("got", 1, 1), back = k.mbarriers("back", 1, 1);
    cluster_sync();
    if_(thread_idx_x() == 0, [&] {
      *write_line = __LINE__ + 1;
      src[0] = in[0];
      if (fence) fence_proxy_async();
      if_(cluster_ctarank() == 0, [&] { arrive_expect_tx(got[0], u32(32u)); });
      *copy_line = __LINE__ + 1;
      bulk_copy_to_peer(map_shared_rank(inbox, 0)[cluster_ctarank() * 4], src[0], 16, map_shared_rank(got, 0)[0]);
      if (handback) wait(back[0]);
      own_wait = __LINE__ + 1;
      if (own_got) wait(got[0]);
      *again_line = __LINE__ + 1;
      if (overwrite) src[0] = in[1];
    });
    if_(cluster_ctarank() == 0 && thread_idx_x() == 0, [&] {
      wait(got[0]);
      out[0] = inbox[0] + inbox[4];
      arrive(back[0]);
      arrive(map_shared_rank(back, 1)[0]);
    });
    cluster_sync();
    return k.build();
  };
  unsigned w = 0, c = 0, a = 0;
  std::vector<Diagnostic> d = lower_errors(build(false, false, false, &w, &c, &a));
  REQUIRE(!d.empty());
  CHECK(d[0].message == "the bulk copy at test_race_corpus_async.cpp:" + std::to_string(c) + " reads shared buffer 'src' written by the store at "
                        "test_race_corpus_async.cpp:" + std::to_string(w) + " with no fence_proxy_async() between: the copy "
                        "engine may read old data");
  d = lower_errors(build(true, true, false, &w, &c, &a));
  REQUIRE(!d.empty());
  CHECK(d[0].message == "the store at test_race_corpus_async.cpp:" + std::to_string(a) + " overwrites shared buffer 'src' while the bulk copy at "
                        "test_race_corpus_async.cpp:" + std::to_string(c) + " may still be reading it: its reads end when the "
                        "receiver's barrier completes, and this thread waited on no barrier since");
  CHECK(lower_errors(build(true, false, false, &w, &c, &a)).empty());
  CHECK(lower_errors(build(true, true, true, &w, &c, &a)).empty());
  d = lower_errors(build(true, true, false, &w, &c, &a, true));
  REQUIRE(!d.empty());
  CHECK(d[0].message == "the store at test_race_corpus_async.cpp:" + std::to_string(a) + " overwrites shared buffer 'src' while the bulk copy at "
                        "test_race_corpus_async.cpp:" + std::to_string(c) + " may still be reading it: its reads end when the "
                        "receiver's barrier completes, and the wait at test_race_corpus_async.cpp:" + std::to_string(own_wait) +
                        " is on this CTA's own 'got', which copies into this CTA complete, not on a hand-back from the receiver");
}

// A TMA store issued by one thread reads what every thread wrote: the fence orders each
// writer's own proxies; the writers must also meet (a barrier) before the store.
TEST_CASE("racy: a TMA store of what other threads wrote, fenced but with no barrier between", "[codegen][verify][races][corpus]") {
  auto build = [](bool sync, unsigned* write_line, unsigned* store_line) {
    KernelBuilder k(sync ? "store_synced" : "store_unsynced");
    TensorMap map = k.tensor_map<float>("dst", {32, 4});
    auto buf = k.dynamic_shared<float>("buf", 128, 128);
    *write_line = __LINE__ + 1;
    buf[thread_idx_x()] = 1.0f;
    fence_proxy_async();
    if (sync) sync_threads();
    *store_line = __LINE__ + 2;
    if_(thread_idx_x() == 0, [&] {
      tma_store(map, {0, 0}, buf[0]);
      bulk_commit();
      bulk_wait(0);
    });
    return k.build();
  };
  unsigned w = 0, st = 0;
  std::vector<Diagnostic> d = lower_errors(build(false, &w, &st));
  REQUIRE(d.size() == 1);
  CHECK(d[0].message == "the TMA store at test_race_corpus_async.cpp:" + std::to_string(st) + " reads shared buffer 'buf' written by "
                        "the store at test_race_corpus_async.cpp:" + std::to_string(w) + " in more threads than issue the copy, "
                        "with no barrier among them between: the copy may read before the other threads' writes (fenced or not) "
                        "are done");
  CHECK(lower_errors(build(true, &w, &st)).empty());
}
