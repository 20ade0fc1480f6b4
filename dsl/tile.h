// Tiles and what computes on them: views of tile buffers, TMA loads and
// stores of whole tiles, the tensor-core MMA into accumulators, the epilogue,
// warpgroup barriers, and tile schedules.
//
// The user names the tile operation; the Target decides the instructions
// (wgmma with register accumulators on sm_90a). Users never compute
// shared-memory descriptors, swizzled addresses or register indices.
//
//   auto a = k.shared_tile<bf16>("a", 128, 64, 4);          // 4 stages of 128 x 64, K-major
//   auto amap = k.tile_map("A", a, 128);
//   auto acc = k.accumulator("acc", 64, 256);
//   k.role("consumer", 2, 232, [&](i32 wg) {
//     mma(acc, a.stage(s).rows(wg * 64), b.stage(s), kb > 0);
//     mma_wait(0);
//   });
#pragma once

#include <optional>
#include <vector>

#include "dsl/async.h"

namespace tj::dsl {

// Part of a tile buffer: one stage, from one row on.
class TileView {
 public:
  TileView(const SharedTile& t, i32 stage, i32 row) : tile_(&t), stage_(std::move(stage)), row_(std::move(row)) {}
  // The same stage, `offset` rows further down.
  TileView rows(const i32& offset) const { return TileView(*tile_, stage_, row_ + offset); }
  const SharedTile& tile() const { return *tile_; }
  ir::TileOperand operand() const { return {tile_->ref, stage_.expr(), row_.expr()}; }
  const i32& stage() const { return stage_; }
  const i32& row() const { return row_; }

 private:
  const SharedTile* tile_;
  i32 stage_, row_;
};

inline TileView stage(const SharedTile& t, const i32& s) { return TileView(t, s, i32(0)); }
// Buffer s of an accumulator declared with stages (KernelBuilder::accumulator), for mma,
// mma_pair and store_accumulator.
Accumulator stage(const Accumulator& acc, const i32& s, SrcLoc loc = SrcLoc::current());

// Loads rows [part * box_rows, (part + 1) * box_rows) of the tile at global
// (row0, col0) — row0 along the tile's rows, col0 along its contiguous columns —
// as one TMA box per panel, completing on `bar`. With a mask, every CTA of the
// cluster whose bit is set receives them (each at the same offset, on its own
// barrier). A tile of R rows loaded by R / box_rows parts arrives whole.
void tma_load_tile(const TileView& dst, const TileMap& map, const i32& row0, const i32& col0, const BarrierRef& bar,
                   const i32& part = 0, std::optional<u32> mask = std::nullopt, SrcLoc loc = SrcLoc::current());
// The boxes tma_load_tile(dst, map, row0, col0, bar, part) would fetch, into L2 only
// (tma_prefetch per box).
void tma_prefetch_tile(const TileMap& map, const i32& row0, const i32& col0, const i32& part = 0,
                       SrcLoc loc = SrcLoc::current());
// Stores map.box_rows rows of the tile from src's row r to global (row0 + r, col0):
// row0 is the global row of the tile's row 0. One TMA box per panel (a bulk group
// the caller commits).
void tma_store_tile(const TileMap& map, const i32& row0, const i32& col0, const TileView& src,
                    SrcLoc loc = SrcLoc::current());
// The bytes one tma_load_tile delivers into each receiving CTA.
uint32_t tile_load_bytes(const TileMap& map);

// acc (+)= a x b on the tensor cores, issued by the whole warpgroup and
// asynchronous: a gives acc.m rows of M x K, b gives acc.n of N (x K or K x N by
// its major-ness); accumulate false overwrites acc. Completes at mma_wait.
void mma(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate,
         SrcLoc loc = SrcLoc::current());
// Elements [first, first + count) of the tiles' K extent (count 0: to the end).
struct KRange {
  unsigned first, count;
};
// The same over part of K, one mma group of its own: a k-block issued in two
// parts lets mma_wait(1) between them wait for the previous k-block while the
// first part runs (first and count multiples of the MMA's K step, 16 for 16-bit types).
void mma(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate, KRange k,
         SrcLoc loc = SrcLoc::current());
// The order a warpgroup issues an MMA into an accumulator of several 64-row blocks in
// (wgmma): Blocks, each block's K steps back to back, or KSteps, every block's MMA for one
// K step before the next step's, so that consecutive MMAs write different blocks. KSteps
// suits a warpgroup that has the tensor cores to itself (a ping-pong consumer): no MMA
// then waits on the one before it for the same accumulator block. Where several
// warpgroups issue at once, theirs interleave anyway. tcgen05 (sm_100a) issues the whole
// tile per K step either way.
enum class MmaOrder { Blocks, KSteps };
void mma(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate, KRange k, MmaOrder order,
         SrcLoc loc = SrcLoc::current());
// Waits until at most `pending` of this warpgroup's mma groups are in flight.
void mma_wait(unsigned pending = 0, SrcLoc loc = SrcLoc::current());
// The same, naming the accumulators this wait completes (their MMAs were issued before
// the `pending` groups left in flight): they may be read after it. The race check
// refuses a read of an accumulator that a wait with groups pending completed unnamed.
void mma_wait(unsigned pending, const std::vector<Accumulator>& ready, SrcLoc loc = SrcLoc::current());
// dst rows [dst.row, + acc.m) = alpha * acc + beta * c, converted to dst's type
// (written in dst's swizzled layout, ready for tma_store_tile). Call after mma_wait(0).
// The epilogue function alpha * e.value + beta * e[c] (dsl/fragment.h), defined there.
void store_accumulator(const TileView& dst, const Accumulator& acc, const f32& alpha, SrcLoc loc = SrcLoc::current());
void store_accumulator(const TileView& dst, const Accumulator& acc, const f32& alpha, const f32& beta, const TileView& c,
                       SrcLoc loc = SrcLoc::current());
// Columns [first, first + count) of an accumulator: an epilogue in chunks needs
// a chunk-sized tile, not a whole one (count a multiple of 8).
struct Columns {
  unsigned first, count;
};
void store_accumulator(const TileView& dst, const Accumulator& acc, Columns cols, const f32& alpha, const f32& beta,
                       const TileView& c, SrcLoc loc = SrcLoc::current());
// Throws the user error for columns that are not whole groups of 8 inside acc, naming
// the op (`what`: "store_accumulator", "send_accumulator_partial", ...).
void check_accumulator_columns(const char* what, const Accumulator& acc, Columns cols, const SrcLoc& loc);
// Split-K: the accumulator as a partial sum in global memory. A slot holds one
// warpgroup's acc.m x acc.n f32 values, at workspace[slot * acc.m * acc.n ...], in
// the accumulator's own fragment order (opaque: only these two ops read and write
// it; 16-byte accesses, coalesced across the warpgroup). The whole warpgroup
// calls them, after mma_wait(0). store_accumulator_partial writes acc into the
// slot; add_accumulator_partial adds the slot into acc. Ordering with other CTAs
// is the caller's: publish with atomic_fetch_add(..., AcqRel, Gpu) after the
// store, and add only after an acquire that saw the writer's release.
void store_accumulator_partial(const Ptr<float>& workspace, const Accumulator& acc, const i32& slot,
                               SrcLoc loc = SrcLoc::current());
void add_accumulator_partial(const Ptr<float>& workspace, const Accumulator& acc, const i32& slot,
                             SrcLoc loc = SrcLoc::current());
// Split-K with one slot per tile that every split adds into (same layout):
// reduce_accumulator_partial adds acc into the slot with relaxed gpu-scope atomic adds
// (red.global.add .v4.f32), so that the warpgroups of many CTAs may add into one slot at
// once; take_accumulator_partial adds the slot into acc and sets it to 0, ready for the
// next reductions (a zeroed workspace stays zeroed between launches). Ordering is the
// caller's, as above: every reduction into a slot before a release the taker's acquire saw.
void reduce_accumulator_partial(const Ptr<float>& workspace, const Accumulator& acc, const i32& slot,
                                SrcLoc loc = SrcLoc::current());
void take_accumulator_partial(const Ptr<float>& workspace, const Accumulator& acc, const i32& slot,
                              SrcLoc loc = SrcLoc::current());
// Split-K inside a cluster: partials of some of acc's columns (whole groups of 8) meet in
// shared memory. A slot then holds acc.m x cols.count f32 at buffer[slot * acc.m *
// cols.count ...], in the same fragment order. send_accumulator_partial writes them into
// a peer CTA's buffer (peer = map_shared_rank(buffer, rank)) with st.async, completing
// on the peer's barrier `bar` (map_shared_rank too) with acc.m x cols.count x 4 bytes
// per warpgroup: the peer announces those bytes (arrive_expect_tx), waits (wait), then
// adds the slot with add_accumulator_partial(buffer, acc, cols, slot), which reads this
// CTA's shared memory (or a global workspace).
void send_accumulator_partial(const Ptr<float>& peer, const Accumulator& acc, Columns cols, const i32& slot, const BarrierRef& bar,
                              SrcLoc loc = SrcLoc::current());
void add_accumulator_partial(const Ptr<float>& buffer, const Accumulator& acc, Columns cols, const i32& slot,
                             SrcLoc loc = SrcLoc::current());

// The warpgroups of the current role meet (a named barrier); `warpgroup` >= 0:
// only that warpgroup of the role (its 128 threads) meets.
void role_sync(SrcLoc loc = SrcLoc::current());
void warpgroup_sync(const i32& warpgroup_in_role, SrcLoc loc = SrcLoc::current());

// Turns (KernelBuilder::turns): the calling warpgroup waits for its turn (bar.sync with
// the warpgroup before it), then passes it on to the next (bar.arrive, no wait). Between
// the two, one warpgroup of the role at a time, in order: e.g. one issues its MMAs while
// the other runs its softmax or epilogue (ping-pong). Every warpgroup must take the same
// number of turns, and all of a warpgroup's threads take each one.
void wait_turn(const Turns& t, SrcLoc loc = SrcLoc::current());
void pass_turn(const Turns& t, SrcLoc loc = SrcLoc::current());

// A static persistent schedule: each cluster walks cluster tiles id, id + clusters,
// ...; `group` rows of cluster tiles are walked together (grouped rasterization).
inline ir::TileSchedule static_persistent(unsigned group = 8) { return {ir::ScheduleKind::StaticPersistent, group}; }
// A dynamic schedule: each cluster starts with the unit of its cluster id and claims
// the next one while it computes the current one (cluster launch control on sm_100a, a
// per-launch atomic counter on sm_90a); one thread claims for the cluster and every
// role that walks the schedule receives each unit through `slots` answers in shared
// memory. Every for_each_tile of the kernel given dynamic(...) is a walk of the same
// units, by different threads (one per role, say), each outside loops and under
// conditions on the thread and CTA index only. `order`: the units' order (LongestRowsFirst
// when tiles with a larger tile_m cost more, as causal attention's do). The grid is the
// schedule's: JitKernel::schedule_grid.
inline ir::TileSchedule dynamic(unsigned group = 8, unsigned slots = 2, ir::UnitOrder order = ir::UnitOrder::Rasterized) {
  return {ir::ScheduleKind::Dynamic, group, slots, order};
}
// body(tile_m, tile_n) for each tile of the tiles_m x tiles_n grid that the
// schedule gives this CTA. The CTAs of a cluster take neighbouring tiles: rank
// (x, y) in the cluster takes tile_n + x, tile_m + y of the cluster's block (so
// k.cluster(2, 1) pairs tiles along N, k.cluster(1, 2) along M). Where the cluster
// does not divide the grid, the last blocks reach past it: those CTAs still run the
// body (a multicast needs every CTA of its cluster) with tile_m >= tiles_m or
// tile_n >= tiles_n, so guard what the body stores by them.
void for_each_tile(const ir::TileSchedule& schedule, const i32& tiles_m, const i32& tiles_n,
                   const std::function<void(i32, i32)>& body, SrcLoc loc = SrcLoc::current());
// Split-K: body(tile_m, tile_n, split) for each unit (tile, split), split in
// [0, splits) (splits at least 1 at run time). The schedule walks units; the
// splits of one tile are adjacent, so they run at the same time on different
// clusters. Each split owns a share of K (the body decides which); combining
// the partial sums is the body's too (store/add_accumulator_partial).
void for_each_tile(const ir::TileSchedule& schedule, const i32& tiles_m, const i32& tiles_n, const i32& splits,
                   const std::function<void(i32, i32, i32)>& body, SrcLoc loc = SrcLoc::current());
// Split-K inside the cluster: the cluster's z dimension holds a tile's splits. body(tile_m,
// tile_n, split) for each tile the schedule gives this CTA: the CTAs of each plane
// (cluster_ctaid_z) take the cluster's block of cluster_dim_y x cluster_dim_x tiles as
// for_each_tile does, every plane the same block, and a CTA's split is its plane, one of
// cluster_dim_z. The CTAs of a tile then add up their partials through distributed shared
// memory (send_accumulator_partial): no workspace, no counter, no partial through L2.
// Needs a cluster of 2 or more along z (k.cluster(x, y, z)).
void for_each_tile_split_in_cluster(ir::TileSchedule schedule, const i32& tiles_m, const i32& tiles_n,
                                    const std::function<void(i32, i32, i32)>& body, SrcLoc loc = SrcLoc::current());

}  // namespace tj::dsl
