#include "codegen/passes/insert_exit_barrier.h"

#include "codegen/passes/dsmem_use.h"

namespace tj::codegen {
namespace {

bool uses_dsmem(const ir::Stmt& s) { return reaches_peer_shared(s); }

// Whether every path through `s` that runs at all finishes with a cluster wait
// (sync, or the wait half): after it, no peer accesses our shared memory
// unless it does so again later.
bool ends_with_cluster_wait(const ir::Stmt& s) {
  if (const ir::ClusterBarrier* b = s->as<ir::ClusterBarrier>()) return b->op != ir::ClusterBarrierOp::Arrive;
  if (const ir::Block* b = s->as<ir::Block>()) return !b->body.empty() && ends_with_cluster_wait(b->body.back());
  // A loop whose body ends with a wait, and that surely runs: its last iteration
  // ended with one. A loop that may run zero times guarantees nothing.
  if (const ir::For* f = s->as<ir::For>()) {
    auto b = ir::const_int(f->begin), e = ir::const_int(f->end);
    return b && e && *b < *e && ends_with_cluster_wait(f->body);
  }
  return false;
}

}  // namespace

ir::Kernel insert_exit_barrier(const ir::Kernel& k) {
  std::vector<ir::Stmt> body;
  if (const ir::Block* b = k.body->as<ir::Block>()) body = b->body;
  else body.push_back(k.body);

  // The last top-level statement that touches a peer's shared memory...
  int last_use = -1;
  for (size_t i = 0; i < body.size(); ++i)
    if (uses_dsmem(body[i])) last_use = static_cast<int>(i);
  if (last_use < 0) return k;
  // ...must be followed (or itself end) with a cluster wait.
  for (size_t i = static_cast<size_t>(last_use); i < body.size(); ++i)
    if (ends_with_cluster_wait(body[i])) return k;

  body.push_back(ir::ClusterBarrier::make(ir::ClusterBarrierOp::Sync, ir::MemoryOrder::Default, k.loc));
  ir::Kernel out = k;
  out.body = ir::Block::make(std::move(body), k.body->loc);
  return out;
}

}  // namespace tj::codegen
