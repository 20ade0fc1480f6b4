#include "codegen/passes/insert_entry_barrier.h"

#include "codegen/passes/dsmem_use.h"

namespace tj::codegen {

using namespace tj::ir;

Kernel insert_entry_barrier(const Kernel& k) {
  if (k.cluster.count() <= 1) return k;
  std::vector<Stmt> body;
  if (const Block* b = k.body->as<Block>()) body = b->body;
  else body.push_back(k.body);

  for (const Stmt& s : body) {
    if (const ClusterBarrier* c = s->as<ClusterBarrier>(); c && c->op != ClusterBarrierOp::Arrive) return k;
    if (reaches_peer_shared(s)) break;  // first use with no wait before it
  }
  bool any = false;
  for (const Stmt& s : body) any |= reaches_peer_shared(s);
  if (!any) return k;

  std::vector<Stmt> out = {ClusterBarrier::make(ClusterBarrierOp::Arrive, MemoryOrder::Relaxed, k.loc),
                           ClusterBarrier::make(ClusterBarrierOp::Wait, MemoryOrder::Acquire, k.loc)};
  out.insert(out.end(), body.begin(), body.end());
  Kernel result = k;
  result.body = Block::make(std::move(out), k.body->loc);
  return result;
}

}  // namespace tj::codegen
