// The kernel's mbarrier phases, the one model that transaction accounting
// (verify_transactions) and the arrival check (race_arrivals) read.
//
// A phase scope is one loop body, or the kernel body outside loops: what one
// iteration brings to a barrier completes its phase there. Each scope lists, in
// program order, the events on barriers it holds: arrivals (with their expect_tx
// bytes), TMA boxes and peer copies completing on a barrier, and waits; each with
// the conditions it runs under, the loop indices it is bound to, the CTA rank
// whose barrier it reaches and its source location.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/analysis/guards.h"
#include "codegen/analysis/ir_queries.h"
#include "codegen/analysis/uniformity.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// What the two checks see differently.
struct PhaseRules {
  // Loops with constant bounds, fewer than 64 trips and no wait inside (a release to
  // every peer, say) are unrolled into the scope around them, their index bound to
  // each value in turn. Otherwise every loop is a scope of its own.
  bool unroll_constant_loops = false;
  // The same for such loops only when they arrive on no barrier (copies alone, whose
  // bytes the expect_tx before the loop announces); the other loops stay scopes.
  bool unroll_loops_without_arrivals = false;
  // Locals declared once and never assigned count by their initial values (in loop
  // bounds, conditions and uniformity). Otherwise a local is unknown and per thread.
  bool see_through_locals = false;
};

// One operation on an mbarrier. Skip: skip_phases on the array (`index` its first
// barrier, `bytes` the count of phases let pass).
struct BarrierEvent {
  enum Kind { Arrive, TmaBox, Copy, Wait, Skip } kind;
  BufferRef barrier;  // the array; its `rank` is the peer's when reached through map_shared_rank
  ir::Expr index;     // which barrier of the array
  ir::Expr bytes;     // Arrive: its expect_tx (null: a plain arrive); TmaBox, Copy: the bytes that land
  ir::Expr mask;      // TmaBox, Arrive (a commit): the multicast mask; null: the issuing CTA only
  Guards guards;      // the conditions it runs under, each with the if_ or role it belongs to
  Bindings vars;      // indices of the unrolled loops around it
  std::shared_ptr<const LoopScope> loops;  // the loop indices in scope, and how uniform each is
  ir::Loc loc;
  size_t order = 0;   // its place in the walk over all scopes
  bool pair = false;  // TmaBox: completes in each receiver's pair leader (rank & ~1), .cta_group::2
};

struct PhaseScope {
  std::string phase;                // "the kernel body", "the loop at f.cpp:12"
  const ir::StmtNode* loop = nullptr;  // the loop; null for the kernel body
  std::vector<const ir::StmtNode*> outer;  // the loops (scopes too) around it, outermost first
  std::vector<BarrierEvent> events;  // in program order
};

struct BarrierPhases {
  Defs defs;  // the single-assignment locals, when the rules see through them; else empty
  std::vector<PhaseScope> scopes;  // the kernel body first, then loops as the walk meets them
};

BarrierPhases barrier_phases(const ir::Kernel& k, const PhaseRules& rules);

// The arrivals of one scope, per barrier array, in phases: the first arrival opens
// the first phase; later, an arrival that follows a wait on the array (a wait that
// has not yet opened one) opens the next. A wait before the first arrival therefore
// opens the second phase at the next arrival after the first.
using ArrivalPhases = std::map<std::string, std::vector<std::vector<const BarrierEvent*>>>;
ArrivalPhases arrival_phases(const PhaseScope& scope);

}  // namespace tj::codegen
