// Tensor memory (tcgen05, sm_100a only): per CTA 128 lanes x 512 columns of 32-bit cells,
// where Blackwell's MMAs keep their accumulators. One whole warp allocates a power of
// two of columns and finds the address in shared memory; the same warp deallocates
// before the CTA exits:
//
//   auto tmem = k.shared<uint32_t>("tmem", 1);
//   if_(warp_id == 0, [&] {
//     tmem_alloc(tmem[0], 256, CtaGroup::One);
//     tmem_relinquish(CtaGroup::One);
//   });
//   sync_threads();
//   ... MMAs into tmem[0] ...
//   sync_threads();
//   if_(warp_id == 0, [&] { tmem_dealloc(tmem[0], 256, CtaGroup::One); });
//
// CtaGroup::Two: the even and odd CTA of a cluster allocate and work as a pair (the
// 2-CTA MMA); a kernel uses one group. On sm_90a these are refused: accumulators live
// in registers there (k.accumulator with mma, wgmma).
#pragma once

#include "dsl/async.h"
#include "dsl/tile.h"

namespace tj::dsl {

enum class CtaGroup : unsigned { One = 1, Two = 2 };

// Allocates `columns` (32, 64, 128, 256 or 512) and writes the address to `slot`.
void tmem_alloc(const Ref<uint32_t>& slot, unsigned columns, CtaGroup group, SrcLoc loc = SrcLoc::current());
// Gives up the permit to allocate again (lets a waiting CTA on this SM allocate).
void tmem_relinquish(CtaGroup group, SrcLoc loc = SrcLoc::current());
// Frees the `columns` allocated at `addr` (what tmem_alloc wrote).
void tmem_dealloc(const u32& addr, unsigned columns, CtaGroup group, SrcLoc loc = SrcLoc::current());

// tcgen05.commit: one arrival on `bar` once every tcgen05 op this thread issued before
// (its MMAs) has completed: the way an MMA gives a pipeline stage back, or says that an
// accumulator is ready. The thread does not wait; the arrival orders no generic writes
// (like arrive_relaxed). The multicast form arrives on the barrier at bar's offset in
// each CTA of `cta_mask` (16 bits): the pair leader's MMA completing in both CTAs.
void mma_commit(const BarrierRef& bar, CtaGroup group, SrcLoc loc = SrcLoc::current());
void mma_commit_multicast(const BarrierRef& bar, CtaGroup group, const u32& cta_mask, SrcLoc loc = SrcLoc::current());

// tma_load_tile completing on `bar` in the pair leader (tma_load_pair per box): each CTA
// of a pair loads its own share of the pair MMA's operands, and the leader's barrier
// counts both CTAs' bytes (the leader's arrive_expect_tx announces them). With a mask
// (tma_load_pair_multicast per box) the boxes land in each CTA of the mask, each
// completing on its pair leader's `bar`.
void tma_load_tile_pair(const TileView& dst, const TileMap& map, const i32& row0, const i32& col0, const BarrierRef& bar,
                        const i32& part = 0, std::optional<u32> mask = std::nullopt, SrcLoc loc = SrcLoc::current());

// The CTA pair's MMA (tcgen05.mma.cta_group::2): acc (+)= A x B over the pair, issued by
// one thread of the pair leader (is_pair_leader()) for both CTAs. Each CTA of the pair
// holds, at the same shared-memory offsets, its own acc.m (128) rows of A in `a` and
// half of B's acc.n columns in `b` (acc.n / 2 rows of a K-major B: the leader the first
// half, its peer the second); each CTA's tensor memory receives its own acc.m x acc.n
// rows of the 2 acc.m x acc.n product. Complete it with mma_commit_multicast(bar, Two,
// mask of both CTAs): a CTA reads its accumulator after that barrier's phase.
void mma_pair(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate,
              SrcLoc loc = SrcLoc::current());
void mma_pair(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate, KRange k,
              SrcLoc loc = SrcLoc::current());

}  // namespace tj::dsl
