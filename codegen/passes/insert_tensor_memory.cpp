#include "codegen/passes/insert_tensor_memory.h"

#include "codegen/mma/family.h"
#include "codegen/mma/tcgen05.h"

namespace tj::codegen {

using namespace tj::ir;

namespace {

Expr i32(int64_t v) { return IntImm::make(Scalar::I32, v); }

// The thread's linear index in the CTA is below 32: warp 0.
Expr in_warp0(const Kernel& k) {
  Expr linear = SpecialReg::make(SpecialRegKind::ThreadIdxX);
  if (k.block.y > 1 || k.block.z > 1) {
    linear = Binary::make(BinOp::Add, linear,
                          Binary::make(BinOp::Mul, SpecialReg::make(SpecialRegKind::ThreadIdxY), i32(int64_t(k.block.x))));
    linear = Binary::make(BinOp::Add, linear,
                          Binary::make(BinOp::Mul, SpecialReg::make(SpecialRegKind::ThreadIdxZ), i32(int64_t(k.block.x) * k.block.y)));
  }
  return Binary::make(BinOp::Lt, linear, i32(32));
}

}  // namespace

Kernel insert_tensor_memory(const Kernel& k, const Target& t) {
  const mma::Family* family = mma::family_for(t);
  if (!family || family->accumulator_home() != mma::AccumulatorHome::TensorMemory) return k;
  const mma::TmemPlan plan = mma::tmem_plan(k);
  if (plan.columns == 0) return k;  // no tile accumulators (or too many columns: verify_tensor_memory said so)

  Kernel out = k;
  out.shared.push_back(SharedBuffer{mma::kTmemSlot, Scalar::U32, 1, false, k.loc});
  const Expr slot = SharedRef::make(mma::kTmemSlot, Scalar::U32, k.loc);
  const auto sync = [&] {
    return plan.cta_group == 2 ? ClusterBarrier::make(ClusterBarrierOp::Sync, MemoryOrder::Default, k.loc) : SyncThreads::make(k.loc);
  };
  std::vector<Stmt> body;
  body.push_back(If::make(in_warp0(k),
                          Block::make({TmemOp::make(TmemAction::Alloc, plan.cta_group, plan.columns, slot, i32(0), nullptr, k.loc),
                                       TmemOp::make(TmemAction::Relinquish, plan.cta_group, 0, nullptr, nullptr, nullptr, k.loc)},
                                      k.loc),
                          nullptr, k.loc));
  body.push_back(Fence::make(FenceKind::Tcgen05BeforeSync, k.loc));
  body.push_back(sync());
  body.push_back(Fence::make(FenceKind::Tcgen05AfterSync, k.loc));
  if (const Block* old = k.body->as<Block>()) body.insert(body.end(), old->body.begin(), old->body.end());
  else body.push_back(k.body);
  body.push_back(Fence::make(FenceKind::Tcgen05BeforeSync, k.loc));
  body.push_back(sync());
  body.push_back(Fence::make(FenceKind::Tcgen05AfterSync, k.loc));
  body.push_back(If::make(in_warp0(k),
                          TmemOp::make(TmemAction::Dealloc, plan.cta_group, plan.columns, nullptr, nullptr,
                                       Load::make(slot, i32(0), k.loc), k.loc),
                          nullptr, k.loc));
  out.body = Block::make(std::move(body), k.body->loc);
  return out;
}

}  // namespace tj::codegen
