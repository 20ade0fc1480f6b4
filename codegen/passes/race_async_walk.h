// The async-proxy walk (check_async_proxy): the survey of who copies, reads, arrives
// and waits, the walk in program order (race_async.cpp), and the hazards it meets
// on the way (race_async_hazards.cpp, race_async_stages.cpp).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codegen/passes/race_async_state.h"
#include "dsl/ir/loops.h"

namespace tj::codegen::race {

// How the walk names the barrier a pair load (tma_load_pair) completes on: the pair
// leader's barrier of that name.
inline constexpr const char* kPairSuffix = " of the pair leader (tma_load_pair)";

// A write by the async proxy: a copy into shared memory.
bool is_copy(const MemAccess& m);

// For the hazards' messages: "shared buffer 'x'", and "overwrites" or "reads".
std::string buffer_text(const MemAccess& m);
const char* verb(const MemAccess& m);
// Groups issued after the one holding `i`: what a wait may leave in flight.
size_t newer_than(const std::vector<std::vector<Issued>>& groups, const Issued& i);

// An operation with who runs it.
struct Placed {
  std::string barrier;
  Agent agent;
  MemAccess m;
  ir::Expr bar_index = nullptr;  // copies: which barrier of the array they complete on
};

class AsyncWalk {
 public:
  AsyncWalk(const ir::Kernel& k, Findings& out)
      : k_(k), defs_(single_assignment_defs(k)), out_(out), commits_(has_commits(k)),
        stores_bounded_(bounded_in_loops(k, ir::StmtKind::TmaStore)), mmas_bounded_(bounded_in_loops(k, ir::StmtKind::Mma)) {}

  // Where copies land, who reads, who arrives and waits, and which barriers have a phase per iteration.
  void survey(const ir::Stmt& s, Agent& agent, int loops);
  // gates_, from the waits met in program order on the way to each copy.
  struct Pending {
    std::set<std::string> waits;  // since the last copy on this path, or before it when none came since
    std::set<std::string> must;   // those of `waits` met on every path
    bool after_copy = false;      // a copy came after the last wait: the next wait starts a new set
  };
  void find_gates(const ir::Stmt& s, Pending& p);
  void walk(const ir::Stmt& s, State& st);
  // After the walk: ordinary writes that other threads read through the async proxy,
  // when no fence_proxy_async() follows them on some path of the writing threads.
  void check_handed_over_writes(const State& end);
  // After the walk: the early releases (release()) of each buffer, unless the producer
  // also waits, before every refill, on another barrier that the readers only arrive on
  // once their reads have completed (that release decides; the early ones give nothing
  // back): the first in the walk is reported (any one made late enough would do).
  void settle_releases();
  // After the walk: TMA stores still reading shared memory when the CTA exits (no
  // bulk_wait_read or bulk_wait after them on some path); the CTA's shared memory is
  // released at exit, under the copy.
  void check_stores_at_exit(const State& end);

  std::map<std::string, std::vector<Placed>> copies_, readers_;
  std::vector<Placed> arrivals_;
  // The barriers a producer waits on right before it copies into each buffer (the waits
  // since its previous copy, across loop back edges): the ones that gate refilling it.
  std::map<std::string, std::set<std::string>> gates_;
  // Of those, the ones waited on before every copy into the buffer, on every path.
  std::map<std::string, std::set<std::string>> must_gates_;
  // Per (buffer, barrier): the first arrive that gave the buffer back while its reads may
  // still run (its place in the walk and its report), and the pairs seen at all.
  std::map<std::pair<std::string, std::string>, std::pair<size_t, std::function<void()>>> early_releases_;
  std::set<std::pair<std::string, std::string>> releases_seen_;
  std::set<std::string> repeating_;
  std::set<std::string> filling_;  // barriers that copies complete on or that expect bytes: 'full' ones
  // The paths (their thread-splitting conditions) of the arrives on each barrier.
  std::map<std::string, std::vector<std::vector<std::pair<ir::Expr, bool>>>> arrive_paths_;
  unsigned accesses = 0;

 private:
  // race_async.cpp
  std::set<std::string> renewed_each_iteration(const ir::LoopView& f);
  int iterations_to_walk(const ir::LoopView& f) const;
  void leave(const State& st);  // the end of a role or of the kernel: its unfenced writes stay so

  // race_async_hazards.cpp (access, the accumulators, the helpers below); race_async_stages.cpp (the stages)
  void access(const MemAccess& m, const std::string& bar, State& st);
  void refill(const MemAccess& m, const State& st);
  void release(const ir::MbarrierArrive& a, State& st);
  // Whether the path walked runs in the pair leader only (a branch under is_pair_leader()).
  bool in_pair_leader() const;
  void read_accumulator(const ir::StmtNode& s, const State& st);
  void read_released(const MemAccess& m, const State& st);
  // Whether an arrive on `barrier` is made by all the threads that made write `w` (an
  // arriving path that holds the writer's), or by threads other than them (another role or
  // branch: a hand-over from the writers that ends in that arrive is taken on trust).
  bool handed_over(const std::string& barrier, const Issued& w) const;
  // The buffers whose producers wait on `barrier` before refilling them.
  std::vector<std::string> released_by(const std::string& barrier) const;
  // A copy `m` in a loop whose trips wait on a barrier of `releases` (the readers' release)
  // for a stage other than the one it fills, in some trip (the loop index tried over 64
  // values, each wait counted where its conditions hold): why, or empty.
  std::string other_stage_released(const MemAccess& m, const std::set<std::string>& releases, const State& st) const;
  MemAccess released_part(const std::string& buf, const std::string& barrier, const ir::Expr& index,
                          const ir::Loc& loc) const;
  Issued issued(const MemAccess& m, const std::string& bar, const State& st) const;
  bool overlaps(const MemAccess& m, const Issued& i) const;
  // The same, where `m` is made now on a path in state `st`: locals not assigned
  // since `i` was issued hold the same value at both, and the first and last thread
  // of every warp that runs here are tried.
  bool meets(const MemAccess& m, const State& st, const Issued& i) const;
  using Splits = std::vector<std::pair<ir::Expr, bool>>;
  // Whether `e` evaluates in the first thread running here, the walked iterations bound;
  // exact: to its value (each loop around counts from 0 by 1, so that its index is the
  // trip's value), else with other loops' indices bound to their trip numbers.
  bool known_here(const ir::Expr& e, bool exact = true) const;
  // Whether the path walked may run in the walked iterations: no condition on it
  // evaluates (loop indices bound) to the other branch (`if_(it >= 1, ...)` in iteration 0).
  bool feasible_here() const;
  // An expression's value in thread t (nullopt: it depends on more than the thread).
  std::optional<int64_t> at_thread(const ir::Expr& e, const ir::Dim3& t) const;
  // Whether thread t may take the path of `splits` (conditions that do not evaluate: yes).
  bool runs(const ir::Dim3& t, const Splits& splits) const;
  // The first and last thread of every warp that may take the path of `splits`.
  std::vector<ir::Dim3> threads_of(const Splits& splits) const;
  // The first and last thread of every warp that runs the path walked.
  std::vector<ir::Dim3> running_threads() const;
  // Why the arrive walked now is not ordered after `read` (a read of a stage by other
  // threads): a reader that does not arrive here and an arriving thread it met at no
  // barrier since; empty when it is ordered.
  std::string unordered(const Issued& read) const;
  // Why the threads walking this path have not all waited, when only `waiters` waited
  // on a barrier (a thread that did not, and the wait it skipped); empty when they did.
  std::string not_waited(const std::vector<Waiter>& waiters, const std::string& barrier) const;
  // A read of a copy's destination after a wait on the copy's barrier array, but on
  // barriers of it other than the one the copy completes on for what is read (a ring's
  // stage read after waiting for another stage): why, or empty.
  std::string wrong_stage(const MemAccess& m, const Placed& c, const State& st) const;
  void error(const std::string& subject, const MemAccess& m, const MemAccess& other, std::string msg, std::string fix);
  // `m` reads what `copy` filled, in threads that did not all wait on its barrier (why).
  void partly_waited(const MemAccess& m, const MemAccess& copy, const std::string& barrier, const Waiter& w,
                     const std::string& why);

  const ir::Kernel& k_;
  const Defs defs_;
  Findings& out_;
  Agent agent_;
  std::vector<std::pair<ir::Expr, bool>> splits_;  // the conditions of agent_, and which branch
  std::vector<std::pair<ir::Expr, bool>> survey_splits_;  // the same, for survey()
  std::vector<std::pair<ir::Expr, bool>> conditions_;     // the other conditions of the path walked (the same in every thread)
  int relative_loops_ = 0;  // loops walked now whose index is bound to a trip number, not its value
  int pair_leader_ = 0;  // then-branches of is_pair_leader() conditions the walk is in
  // The kernel completes MMAs through commits (tcgen05), not mma_wait: the fixes say so.
  const bool commits_;
  static bool has_commits(const ir::Kernel& k);
  // Whether every loop that issues `kind` (TMA stores, MMAs) also waits for them (a bulk
  // wait, an mma_wait) in its body: then the walked iterations meet every group still in
  // flight, and a local stepped since a group was issued tells its buffer apart (meets);
  // otherwise a group may stay in flight past them, and any overlap counts (overlaps).
  static bool bounded_in_loops(const ir::Kernel& k, ir::StmtKind kind);
  const bool stores_bounded_, mmas_bounded_;
  Bindings iteration_;
  std::vector<Issued> leaked_;                            // ordinary writes that may reach a hand-over unfenced
  std::vector<Placed> async_reads_;                       // MMA operands and TMA store sources, by whom
  std::set<std::pair<std::string, std::string>> fenced_;  // (write, read) already reported
};

}  // namespace tj::codegen::race
