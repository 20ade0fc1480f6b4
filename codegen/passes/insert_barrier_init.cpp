#include "codegen/passes/insert_barrier_init.h"

namespace tj::codegen {

using namespace tj::ir;

Kernel insert_barrier_init(const Kernel& k) {
  std::vector<Stmt> inits;
  for (const SharedBuffer& b : k.shared) {
    if (b.elem != Scalar::MBarrier) continue;
    Expr ref = SharedRef::make(b.name, b.elem, b.loc);
    for (uint64_t i = 0; i < b.count; ++i)
      inits.push_back(MbarrierInit::make(ref, IntImm::make(Scalar::I32, static_cast<int64_t>(i)), b.arrivals, b.loc));
  }
  if (inits.empty()) return k;
  inits.push_back(Fence::make(FenceKind::MbarrierInit, k.loc));

  Expr tid0 = Binary::make(BinOp::Eq, SpecialReg::make(SpecialRegKind::ThreadIdxX), IntImm::make(Scalar::I32, 0));
  for (SpecialRegKind r : {SpecialRegKind::ThreadIdxY, SpecialRegKind::ThreadIdxZ})
    tid0 = Binary::make(BinOp::And, tid0, Binary::make(BinOp::Eq, SpecialReg::make(r), IntImm::make(Scalar::I32, 0)));

  std::vector<Stmt> body;
  body.push_back(If::make(tid0, Block::make(std::move(inits), k.loc), nullptr, k.loc));
  body.push_back(k.cluster.count() > 1 ? ClusterBarrier::make(ClusterBarrierOp::Sync, MemoryOrder::Default, k.loc)
                                       : SyncThreads::make(k.loc));
  if (const Block* old = k.body->as<Block>()) body.insert(body.end(), old->body.begin(), old->body.end());
  else body.push_back(k.body);
  Kernel out = k;
  out.body = Block::make(std::move(body), k.body->loc);
  return out;
}

}  // namespace tj::codegen
