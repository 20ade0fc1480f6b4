// What the three parts of the race check share (verify_races.h is the pass):
// which shared buffer a pointer names, the conditions a statement runs under,
// evaluated per CTA rank and thread, who runs it (its "agent": the warpgroup
// roles and thread-dependent if_ branches around it), and how findings become
// errors, allowed hazards (allow_race) or "not checked" lines.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "codegen/eval.h"
#include "codegen/uniformity.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen::race {

// A shared buffer as a pointer names it: `name` empty when it is not one;
// `rank` set when it is reached through map_shared_rank.
struct BufferRef {
  std::string name;
  ir::Expr rank;
};
BufferRef buffer_of(const ir::Expr& ptr);

// The conditions a statement runs under (conjuncts of the enclosing if_s and roles).
struct Guard {
  ir::Expr expr;
  bool negated = false;
};
using Guards = std::vector<Guard>;
void push_guard(Guards& g, const ir::Expr& cond, bool negated);

// Loop indices bound to a value by a walk that unrolls a loop.
using Bindings = std::map<std::string, int64_t>;
// Locals declared once and never assigned (a role's warpgroup index, say): their values.
using Defs = std::map<std::string, ir::Expr>;
Defs single_assignment_defs(const ir::Kernel& k);

// Whether thread `t` of CTA `rank` passes every guard; a guard that cannot be
// evaluated is taken to hold.
bool may_pass(const ir::Kernel& k, const Defs& d, const Guards& g, unsigned rank, const ir::Dim3& t, const Bindings* vars = nullptr);
// Whether some thread of CTA `rank` may pass every guard.
bool may_run(const ir::Kernel& k, const Defs& d, const Guards& g, unsigned rank, const Bindings* vars = nullptr);
// The CTA ranks `e` may name for the threads of CTA `rank` passing `g`, as a bit
// set; every rank of the cluster when it cannot be evaluated.
uint32_t ranks_named(const ir::Kernel& k, const Defs& d, const ir::Expr& e, const Guards& g, unsigned rank, const Bindings* vars = nullptr);
// "CTA rank 2", "CTA ranks 0, 1 and 3" of a bit set.
std::string ranks_text(uint32_t ranks);

// Who runs a statement: the roles and thread-dependent if_ branches around it,
// outermost first. Two statements whose agents are not one a prefix of the other
// run in different threads, concurrently.
using Agent = std::vector<std::pair<std::string, bool>>;  // (role name or if_ condition text, which branch)
bool concurrent(const Agent& a, const Agent& b);
// Whether an if_ condition splits the threads of a CTA (a new agent per branch).
bool splits_threads(const ir::Kernel& k, const ir::Expr& cond, const LoopScope& loops);

// "line 31"
std::string line_of(const ir::Loc& l);

// One line of the race check's report.
struct RaceCheck {
  enum Outcome { Verified, NotChecked, Allowed } outcome = Verified;
  std::string subject;  // "cluster epochs", "barrier 'full' in the loop at f.cpp:12", ...
  std::string detail;   // why not checked, or the hazard that was allowed and why
};
std::string to_string(const RaceCheck& c);

struct Findings {
  std::vector<Diagnostic> errors;
  std::vector<RaceCheck> checks;
  // An error, unless a statement at one of `locs` is in allow_race: then an Allowed line.
  void hazard(const ir::Kernel& k, const std::string& subject, std::vector<ir::Loc> locs, Diagnostic d);
};

// Calls f on every statement of s, nested ones included, in program order.
void for_each_stmt(const ir::Stmt& s, const std::function<void(const ir::StmtNode&)>& f);

// The loads inside an expression, in evaluation order.
void loads_in(const ir::Expr& e, std::vector<const ir::Load*>& out);

}  // namespace tj::codegen::race

namespace tj::codegen::race {

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
// The accesses of one statement, not of the statements nested in it.
std::vector<MemAccess> accesses_of(const ir::Kernel& k, const ir::StmtNode& s);

// Whether two ranges certainly do not overlap: their indices are evaluated with the
// loop indices in `loops` set to the same trial values plus each access's offset
// (the iteration it was made in, relative to now); any value not known: false.
bool disjoint(const ir::Kernel& k, const Defs& d, const MemAccess& a, const Bindings& a_offsets, const MemAccess& b,
              const Bindings& b_offsets);

}  // namespace tj::codegen::race
