#include "dsl/async.h"

#include "dsl/cluster.h"
#include "dsl/diagnostic.h"

namespace tj::dsl {
namespace {

constexpr unsigned kTmaSharedAlign = 128;  // a TMA box's shared address

ir::Loc L(const SrcLoc& l) { return ir::Loc::from(l); }
void add(ir::Stmt s, const SrcLoc& loc) { KernelBuilder::active(loc).append(std::move(s)); }

std::vector<ir::Expr> exprs(const std::vector<i32>& coords) {
  std::vector<ir::Expr> out;
  for (const i32& c : coords) out.push_back(c.expr());
  return out;
}

// One coordinate per dimension of the map, which TMA takes 1 to 5 of (the IR node
// requires it: refused here with the user's line).
std::vector<ir::Expr> checked_coords(const TensorMap& map, const std::vector<i32>& coords, const SrcLoc& loc) {
  const unsigned rank = map.decl.rank;
  if (rank < 1 || rank > 5)
    throw UserError(L(loc), "tensor map '" + map.decl.name + "' has rank " + std::to_string(rank) + "; TMA takes 1 to 5 dimensions",
                    "give the map 1 to 5 box dimensions");
  if (coords.size() != rank)
    throw UserError(L(loc), "tensor map '" + map.decl.name + "' has rank " + std::to_string(rank) + " but " +
                                std::to_string(coords.size()) + " coordinates were given",
                    "give one coordinate per dimension, innermost first");
  return exprs(coords);
}

// The coordinates of a box into or out of shared memory: the box's shared buffer gets the
// 128-byte alignment TMA needs (its offset within the buffer is verify_bounds's to check).
std::vector<ir::Expr> coords_for(const TensorMap& map, const std::vector<i32>& coords, const Slot& box, const SrcLoc& loc) {
  // With a swizzle, 1024 bytes: the pattern repeats every 8 rows of 128 bytes from there.
  KernelBuilder::active(loc).align_at_least(box.ptr, map.decl.swizzle == ir::Swizzle::None ? kTmaSharedAlign : 1024);
  return checked_coords(map, coords, loc);
}

}  // namespace

void arrive(const BarrierRef& bar, SrcLoc loc) {
  add(ir::MbarrierArrive::make(bar.ptr(), bar.index(), nullptr, L(loc)), loc);
}

void arrive_relaxed(const BarrierRef& bar, SrcLoc loc) {
  add(ir::MbarrierArrive::make(bar.ptr(), bar.index(), nullptr, L(loc), ir::MemoryOrder::Relaxed), loc);
}

void arrive_expect_tx(const BarrierRef& bar, const u32& bytes, SrcLoc loc) {
  add(ir::MbarrierArrive::make(bar.ptr(), bar.index(), bytes.expr(), L(loc)), loc);
}

void wait(const BarrierRef& bar, SrcLoc loc) { add(ir::MbarrierWait::make(bar.ptr(), bar.index(), L(loc)), loc); }
void wait_local(const BarrierRef& bar, SrcLoc loc) { add(ir::MbarrierWait::make(bar.ptr(), bar.index(), L(loc), true), loc); }
void skip_phases(const Ptr<mbarrier_t>& bars, const i32& first, const i32& count, SrcLoc loc) {
  if (const std::optional<int64_t> n = ir::const_int(count.expr()); n && *n < 0)
    throw UserError(L(loc), "skip_phases with a count of " + std::to_string(*n),
                    "give the number of phases this thread lets pass without waiting: 0 or more");
  add(ir::MbarrierSkip::make(bars.expr(), first.expr(), count.expr(), L(loc)), loc);
}

void tma_load(const Slot& dst, const TensorMap& map, const std::vector<i32>& coords, const BarrierRef& bar, SrcLoc loc) {
  add(ir::TmaLoad::make(map.ref, coords_for(map, coords, dst, loc), dst.ptr, dst.index, bar.ptr(), bar.index(), nullptr, L(loc)), loc);
}

void tma_load_multicast(const Slot& dst, const TensorMap& map, const std::vector<i32>& coords, const BarrierRef& bar,
                        const u32& cta_mask, SrcLoc loc) {
  add(ir::TmaLoad::make(map.ref, coords_for(map, coords, dst, loc), dst.ptr, dst.index, bar.ptr(), bar.index(), cta_mask.expr(), L(loc)),
      loc);
}

void tma_load_pair(const Slot& dst, const TensorMap& map, const std::vector<i32>& coords, const BarrierRef& bar, SrcLoc loc) {
  add(ir::TmaLoad::make(map.ref, coords_for(map, coords, dst, loc), dst.ptr, dst.index, bar.ptr(), bar.index(), nullptr, L(loc), 2), loc);
}

void tma_load_pair_multicast(const Slot& dst, const TensorMap& map, const std::vector<i32>& coords, const BarrierRef& bar,
                             const u32& cta_mask, SrcLoc loc) {
  add(ir::TmaLoad::make(map.ref, coords_for(map, coords, dst, loc), dst.ptr, dst.index, bar.ptr(), bar.index(), cta_mask.expr(), L(loc), 2),
      loc);
}

void tma_prefetch(const TensorMap& map, const std::vector<i32>& coords, SrcLoc loc) {
  add(ir::TmaPrefetch::make(map.ref, checked_coords(map, coords, loc), L(loc)), loc);
}

void tma_store(const TensorMap& map, const std::vector<i32>& coords, const Slot& src, SrcLoc loc) {
  add(ir::TmaStore::make(map.ref, coords_for(map, coords, src, loc), src.ptr, src.index, L(loc)), loc);
}

void bulk_commit(SrcLoc loc) { add(ir::BulkGroup::make(ir::BulkGroupOp::Commit, 0, L(loc)), loc); }
void bulk_wait(unsigned pending, SrcLoc loc) { add(ir::BulkGroup::make(ir::BulkGroupOp::Wait, pending, L(loc)), loc); }
void bulk_wait_read(unsigned pending, SrcLoc loc) {
  add(ir::BulkGroup::make(ir::BulkGroupOp::WaitRead, pending, L(loc)), loc);
}
void fence_proxy_async(SrcLoc loc) { add(ir::Fence::make(ir::FenceKind::ProxyAsyncShared, L(loc)), loc); }

void bulk_copy_to_peer(const Slot& dst, const Slot& src, uint32_t bytes, const BarrierRef& bar, SrcLoc loc) {
  add(ir::BulkCopy::make(dst.ptr, dst.index, src.ptr, src.index, bytes, bar.ptr(), bar.index(), L(loc)), loc);
}

void st_async(const Ref<uint32_t>& dst, const u32& value, const BarrierRef& bar, SrcLoc loc) {
  add(ir::StAsync::make(dst.ptr(), dst.index(), value.expr(), bar.ptr(), bar.index(), L(loc)), loc);
}
void st_async(const Ref<float>& dst, const f32& value, const BarrierRef& bar, SrcLoc loc) {
  add(ir::StAsync::make(dst.ptr(), dst.index(), value.expr(), bar.ptr(), bar.index(), L(loc)), loc);
}

u32 mask_all() { return (u32(1u) << cast<uint32_t>(cluster_nctarank())) - 1u; }

u32 mask_rank(const i32& rank) { return u32(1u) << cast<uint32_t>(rank); }

u32 mask_row() {
  u32 width = cast<uint32_t>(cluster_dim_x());
  u32 plane = cast<uint32_t>(cluster_ctaid_z()) * width * cast<uint32_t>(cluster_dim_y());
  return ((u32(1u) << width) - 1u) << (cast<uint32_t>(cluster_ctaid_y()) * width + plane);
}

u32 mask_col(SrcLoc loc) {
  KernelBuilder& k = KernelBuilder::active(loc);
  k.note_cluster_read("mask_col()", loc);
  const ir::Dim3& c = k.cluster_shape();
  uint32_t pattern = 0;  // ranks x, x + X, x + 2X, ... for x = 0
  for (unsigned y = 0; y < c.y; ++y) pattern |= 1u << (y * c.x);
  u32 plane = cast<uint32_t>(cluster_ctaid_z()) * (c.x * c.y);
  return u32(pattern) << (cast<uint32_t>(cluster_ctaid_x()) + plane);
}

}  // namespace tj::dsl
