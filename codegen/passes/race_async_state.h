// What the async-proxy walk (race_async.cpp) carries along one path of the CTA:
// the operations in flight, the writes not yet fenced, the stages already released,
// and how to merge two paths.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "codegen/passes/race_model.h"

namespace tj::codegen::race {

// Each local's value along this path: `base` counts the assignments that gave it a value
// unrelated to the one before (a declaration, any store but the local plus or minus a
// constant), `shift` what the constant steps since then added. At two points of a path with
// the same base the local's values are `shift` apart (a loop's `it = it + 1` relates
// iteration i + 1 to iteration i); with different bases nothing is known.
struct Version {
  int base = 0;
  int64_t shift = 0;
  bool operator==(const Version&) const = default;
};
using Versions = std::map<std::string, Version>;

// Who waited on a barrier: the conditions around the wait that split the CTA's threads
// (roles, branches on the thread index), and which branch of each; where it was.
struct Waiter {
  std::vector<std::pair<ir::Expr, bool>> splits;
  ir::Loc loc;
};

// Threads that met at a barrier after a read: the conditions of the path there, and for a
// named barrier its id (threads meet only those that pass the same id).
struct Meeting {
  std::vector<std::pair<ir::Expr, bool>> splits;
  ir::Expr id;  // null: sync_threads or a cluster barrier (every thread of the CTA)
};

// A wait of this iteration on a path walked: its barrier, which one of the array, and the
// conditions (the same in every thread) it ran under.
struct GateWait {
  std::string barrier;
  ir::Expr index;
  std::vector<std::pair<ir::Expr, bool>> conditions;
  ir::Loc loc;
};

struct Issued {
  MemAccess m;
  std::string barrier;  // copies: the barrier they complete on; releases: the barrier arrived on
  Bindings iteration;   // the walked iteration of each loop index when issued
  Versions versions;    // the locals' assignments when issued
  std::string acc;      // MMAs: the accumulator they write
  std::set<std::string> commits;  // tcgen05 MMAs: the barriers of the commits issued after them (a wait on one retires them)
  std::string a_frag;   // MMAs with A from registers: the fragment they read
  Agent agent;          // generic writes: who wrote
  ir::Loc kept;           // store groups: the last bulk wait that left it in flight (bulk copies
                          // to a peer: the last wait on this CTA's barrier of their barrier's name),
  std::string kept_call;  // that wait as written ("bulk_wait_read(1)"),
  unsigned kept_need = 0; // and the n that would have waited for it
  std::vector<Waiter> waiters;  // copies: the threads that waited on their barrier (some of them only);
                                // reads of a stage: the readers (one entry)
  std::vector<Meeting> met;     // reads of a stage: the barriers their threads met since
  // Releases: the stage went back before the releasing threads waited for its fill (none
  // of their waits so far was on its stage), so the next wait for that stage's fill is for
  // the data it gave back, not for the refill; `unconsumed` counts that wait down.
  bool before_fill = false;
  unsigned unconsumed = 0;
  // Bulk copies to a peer: they complete on the peer's barrier, so a wait on this CTA's
  // barrier of that name (the peer's copy in) says nothing of this copy's reads.
  bool peer_barrier = false;
};

struct State {
  std::set<std::string> waited, maybe_waited;  // barriers waited on in this iteration
  // The waits in this iteration on each barrier array of `waited`: which barrier, and where.
  std::map<std::string, std::vector<std::pair<ir::Expr, ir::Loc>>> waited_at;
  // Who made the waits of `waited`: reading threads that are none of them have not waited.
  std::map<std::string, std::vector<Waiter>> waiters;
  std::vector<Issued> copies;                  // into shared memory, not waited for
  std::vector<std::vector<Issued>> store_groups;
  std::vector<Issued> open_stores;             // not committed yet
  std::vector<Issued> bulk_sources;            // bulk copies' sources, read until the receiver's barrier
  std::vector<Issued> handed_back;             // ... that a wait handed back on some path: a meeting of the threads ends them
                                               // completes: in flight until this thread next waits on a barrier
  std::vector<std::vector<Issued>> mmas;       // MMA groups (one per mma), newest last
  std::vector<Issued> committed;               // tcgen05 MMAs a commit covers, until a wait on its barrier
  std::vector<Issued> unfenced;                // ordinary writes since fence_proxy_async
  std::vector<Issued> unsynced;                // ordinary writes since a barrier among threads
  std::vector<Issued> released;                // stages given back to their producer, not refilled since
  std::vector<Issued> fill_waits;              // waits on the barriers copies complete on, as the stages they cover
  std::vector<GateWait> gate_waits;            // this iteration's waits on any path (renewed barriers: since the iteration began)
  std::vector<Issued> stage_reads;             // ordinary reads of what other threads' copies fill
  std::map<std::string, ir::Loc> unready;      // accumulators a wait with groups pending completed unnamed
  Versions versions;
};

// What may be true after either of two paths.
State merge(State a, const State& b);

// Whether the threads of `inner` are among those of `outer`, by their conditions: those
// of `outer` come first in `inner`, as written.
bool within(const Waiter& inner, const Waiter& outer);

// Adds a waiter to a list unless one already there holds its threads; drops those it holds.
void add(std::vector<Waiter>& ws, Waiter w);

// The threads of `group` met at a barrier (sync_threads, role_sync, warpgroup_sync, a
// cluster barrier): what a waiter among them waited for, all of them now have, and the
// reads of stages so far are ordered before what they do next. `id`: a named barrier's.
void met(State& st, const Waiter& group, const ir::Expr& id = nullptr);

}  // namespace tj::codegen::race
