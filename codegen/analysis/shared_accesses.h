// The shared-memory accesses of a statement (the race check's view of memory), and
// whether two of them certainly do not overlap.
#pragma once

#include <string>
#include <vector>

#include "codegen/analysis/guards.h"
#include "codegen/analysis/ir_queries.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// One memory access a statement makes to a shared buffer (expressions' loads included).
struct MemAccess {
  BufferRef buf;
  ir::Expr index;       // the element index, or the stage for a tile buffer; null: unknown
  uint64_t extent = 1;  // elements (stages for a tile buffer) from index on
  bool write = false, atomic = false;
  bool async = false;   // by the async proxy (TMA, bulk copies, MMA operands)
  std::string what;     // "store", "load", "TMA load", ...
  ir::Loc loc;
};
// Race: memory as the race check sees it (a tile buffer by stage; no mbarriers, whose
// operations are atomic by nature). Elements: every element each access reaches, tile
// buffers and mbarrier arrays included (the bounds check).
enum class AccessView : uint8_t { Race, Elements };
// The accesses of one statement, not of the statements nested in it.
std::vector<MemAccess> accesses_of(const ir::Kernel& k, const ir::StmtNode& s, AccessView view = AccessView::Race);

// Whether two ranges certainly do not overlap: their indices are evaluated with the
// loop indices in `loops` set to the same trial values plus each access's offset
// (the iteration it was made in, relative to now); any value not known: false.
// Indices that depend on the thread are tried for `threads` (by default the first
// thread of each warpgroup).
bool disjoint(const ir::Kernel& k, const Defs& d, const MemAccess& a, const Bindings& a_offsets, const MemAccess& b,
              const Bindings& b_offsets, const std::vector<ir::Dim3>* threads = nullptr);

}  // namespace tj::codegen
