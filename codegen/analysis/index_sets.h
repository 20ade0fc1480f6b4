// The elements of a shared buffer one access reaches in one CTA: its index evaluated
// for every thread that runs it and every trip of the loops around it whose bounds
// evaluate. The race check compares two CTAs' accesses with it (per-rank slices,
// double buffers indexed by the iteration).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/analysis/guards.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// A counted loop around an access, outermost first.
struct LoopTrip {
  const ir::StmtNode* node = nullptr;
  std::string var;              // empty for a while loop (its trips cannot be enumerated)
  ir::Expr begin, end, step;
};

// An access as the enumeration sees it.
struct IndexedAccess {
  ir::Expr index;  // null: unknown
  uint64_t extent = 1;
  const Guards* guards = nullptr;
  const std::vector<LoopTrip>* loops = nullptr;
};

// The elements `a` reaches in CTA `rank` when loops[i] is at trip trips[i] (its index
// begin + trip * step in each thread) for i < trips.size(), every other loop at each of
// its trips; nullopt when that is not known before run time (an index, bound or loop
// that does not evaluate, or too many values to enumerate).
std::optional<std::set<int64_t>> index_values(const ir::Kernel& k, const Defs& d, const IndexedAccess& a, unsigned rank,
                                              const std::vector<int64_t>& trips);

// The trip count of a loop when it is the same constant in every thread; nullopt otherwise.
std::optional<int64_t> constant_trips(const ir::Kernel& k, const Defs& d, const LoopTrip& l);

// The period, in trips of loop `l`, of the value of the access's index and guards: 1 when
// none uses the loop's index; P when it appears only inside `x % m` with x = c * index +
// (terms without it, never negative), m, c, the loop's begin (not negative) and step
// (positive) constants, P the lcm of m / gcd(m, c * step) (at most 64); nullopt otherwise.
// Where it is known, trips 0 to 2P - 1 show every value pair two trips can take.
std::optional<int64_t> trip_period(const ir::Kernel& k, const Defs& d, const IndexedAccess& a, const LoopTrip& l);

}  // namespace tj::codegen
