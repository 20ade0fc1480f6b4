#include "codegen/passes/insert_exit_barrier.h"

#include "codegen/analysis/cluster_pairing.h"
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

// After the last access to a peer's shared memory, a CTA must pass a releasing cluster
// arrive and then a cluster wait: a wait whose arrive came before the access (the
// access between cluster_arrive() and cluster_wait()) lets the peer exit while the
// access is still in flight. The state of a path through the statements so far:
enum class Exit { Open, Arrived, Covered };

Exit after(const ir::Stmt& s, Exit in);

Exit weaker(Exit a, Exit b) { return static_cast<int>(a) < static_cast<int>(b) ? a : b; }

Exit after(const ir::Stmt& s, Exit in) {
  if (!s) return in;
  if (const ir::ClusterBarrier* b = s->as<ir::ClusterBarrier>()) {
    const bool releases = b->op != ir::ClusterBarrierOp::Wait && b->order != ir::MemoryOrder::Relaxed;
    if (b->op == ir::ClusterBarrierOp::Sync && releases) return Exit::Covered;
    if (b->op == ir::ClusterBarrierOp::Arrive) return releases && in == Exit::Open ? Exit::Arrived : in;
    if (b->op == ir::ClusterBarrierOp::Wait) return in == Exit::Arrived ? Exit::Covered : in;
    return in;
  }
  if (const ir::Block* b = s->as<ir::Block>()) {
    for (const ir::Stmt& c : b->body) in = after(c, in);
    return in;
  }
  if (const ir::If* i = s->as<ir::If>()) return weaker(after(i->then_body, in), after(i->else_body, in));
  if (const ir::Role* r = s->as<ir::Role>()) return weaker(in, after(r->body, in));
  if (const ir::For* f = s->as<ir::For>()) {
    auto b = ir::const_int(f->begin), e = ir::const_int(f->end);
    // The last iteration, after the accesses of earlier ones.
    const Exit last = after(f->body, uses_dsmem(f->body) ? Exit::Open : in);
    return b && e && *b < *e ? last : weaker(in, last);
  }
  if (!uses_dsmem(s)) return in;
  return Exit::Open;  // an access, or a statement holding one that is not looked into
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
  // ...must be followed (or itself end) with a cluster wait, one whose arrive follows it.
  Exit state = Exit::Open;
  for (size_t i = static_cast<size_t>(last_use); i < body.size(); ++i) state = after(body[i], state);
  if (state == Exit::Covered)
    for (size_t i = static_cast<size_t>(last_use); i < body.size(); ++i)
      if (ends_with_cluster_wait(body[i])) return k;

  // A cluster_arrive still pending here (the kernel arrives and leaves the wait to us)
  // gets its wait: another arrive would be a second one on the same phase. If that
  // arrive did not follow the last access (or released nothing), a full barrier follows.
  const bool pending = pair_cluster_barriers(k).at_end == PendingArrive::All;
  if (pending) body.push_back(ir::ClusterBarrier::make(ir::ClusterBarrierOp::Wait, ir::MemoryOrder::Acquire, k.loc));
  if (!pending || state != Exit::Arrived)
    body.push_back(ir::ClusterBarrier::make(ir::ClusterBarrierOp::Sync, ir::MemoryOrder::Default, k.loc));
  ir::Kernel out = k;
  out.body = ir::Block::make(std::move(body), k.body->loc);
  return out;
}

}  // namespace tj::codegen
