// mbarrier hand-overs between CTAs, for the cluster-epoch check (race_epochs.cpp).
//
// A hand-over orders an access `a` of CTA s1 before an access `b` of CTA s2 when a
// releasing arrive after `a` (in a's thread) reaches the barrier instance that b's
// thread waits on (cluster scope) before `b`: the barrier of CTA s2 (waits are local),
// the same barrier of the array, and a phase the wait waits for. Phases are counted per
// thread: its k-th wait on a barrier waits for phase k (the parity the generated code
// tracks), its k-th arrive on a barrier expression counts for phase k (each arriving
// thread arrives once per phase). In a loop, iteration x's arrive counts for phase
// n + x * c, c the arrives per iteration; a wait under if_(it >= d) runs from trip d on.
#pragma once

#include <climits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/analysis/guards.h"
#include "codegen/analysis/index_sets.h"
#include "codegen/analysis/ir_queries.h"
#include "codegen/analysis/uniformity.h"

namespace tj::codegen::race {

// The loops around a statement and which walked iteration (0: iteration i, 1: i + 1).
using Iterations = std::vector<std::pair<const ir::StmtNode*, int>>;

// An arrive or a wait on an mbarrier, as the walk met it.
struct BarrierOp {
  BufferRef bar;      // the array; rank: a peer's barrier through map_shared_rank (arrives only)
  ir::Expr index;
  Guards guards;
  Iterations iterations;
  LoopScope loops;    // the loop indices in scope, and how uniform each is
  std::string key;    // which counter orders it: the barrier expression
  int ordinal = -1;   // arrives (waits) on `key` before it on its path; -1: not known
  int skipped = 0;    // a wait: the leading trips of its innermost loop it does not run in
  ir::Loc loc;
};

// The arrives (waits) per iteration of a loop, per counter key.
using PerIteration = std::map<std::pair<const ir::StmtNode*, std::string>, int>;

// An access with the hand-overs around it.
struct HandoverSide {
  const Iterations* iterations;
  const std::vector<BarrierOp>* releases;  // releasing arrives after it on its path
  const std::vector<BarrierOp>* acquires;  // cluster-scope waits before it in its iteration
};

constexpr int kAlways = INT_MIN / 4;  // ordered whatever the iterations

// The least d such that `a` in CTA s1 at iteration x is handed over to `b` in CTA s2 at
// iteration x + d of their innermost loops (one loop, or two loops side by side); kAlways
// outside loops; nullopt when no hand-over orders them. `near` gets why the closest
// candidate (same barrier array) does not, with its fix.
struct NearMiss {
  std::string why, fix;
};
std::optional<int> handover_from(const ir::Kernel& k, const Defs& d, const PerIteration& per_iteration, const HandoverSide& a,
                                 unsigned s1, const HandoverSide& b, unsigned s2, NearMiss* near);

}  // namespace tj::codegen::race
