#include "codegen/passes/verify_collectives.h"

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "codegen/analysis/divergence.h"
#include "codegen/analysis/eval.h"
#include "codegen/analysis/guards.h"
#include "codegen/mma/family.h"
#include "dsl/ir/loops.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// Who must reach an operation together.
enum class Group { Warp, Warpgroup, Role, Cta };

std::string hex(uint32_t mask) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", mask);
  return buf;
}

std::string thread_count(uint64_t n) { return std::to_string(n) + " thread" + (n == 1 ? "" : "s"); }

// The warp shuffles and reductions an expression, or a statement without nested
// statements, calls.
struct WarpOps : Visitor {
  std::vector<const Intrinsic*> found;
  void visit_node(const Intrinsic& n) override {
    switch (n.op) {
      case IntrinsicOp::ShflXor:
      case IntrinsicOp::ShflUp:
      case IntrinsicOp::ShflDown:
      case IntrinsicOp::ShflIdx:
      case IntrinsicOp::WarpSum:
      case IntrinsicOp::WarpMax:
      case IntrinsicOp::WarpMin: found.push_back(&n); break;
      default: break;
    }
    Visitor::visit_node(n);
  }
  using Visitor::visit_node;
};

class Collectives {
 public:
  Collectives(const Kernel& k, const Target& t, std::vector<Diagnostic>& out)
      : k_(k), d_(single_assignment_defs(k)), out_(out), mma_by_warpgroup_(mma::family_for(t) && mma::family_for(t)->mma_issuers() == 128) {}

  void walk(const Stmt& s) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c);
      return;
    }
    check(*s);
    const size_t depth = guards_.size();
    if (const If* i = s->as<If>()) {
      push_guard(guards_, i->cond, false, i->loc);
      walk(i->then_body);
      guards_.resize(depth);
      push_guard(guards_, i->cond, true, i->loc);
      walk(i->else_body);
      guards_.resize(depth);
    } else if (const Role* r = s->as<Role>()) {
      push_guard(guards_, r->condition(), false, r->loc);
      const Role* saved = role_;
      role_ = r;
      in_turn_ = false;
      walk(r->body);
      role_ = saved;
      in_turn_ = false;
      guards_.resize(depth);
    } else if (std::optional<LoopView> l = as_loop(*s)) {
      const bool varies = thread_varying(*l), data = !varies && data_bounds(*l);
      if (varies) loops_.push_back(*l);
      if (data) data_loops_.push_back(*l);
      walk(l->body);
      if (varies) loops_.pop_back();
      if (data) data_loops_.pop_back();
    }
  }

 private:
  void check(const StmtNode& s) {
    if (s.as<Mma>()) {
      if (mma_by_warpgroup_) group(s, Group::Warpgroup, "mma", "an MMA is issued by a whole warpgroup");
      else one_issuer(s);
    }
    else if (const MbarrierArrive* a = s.as<MbarrierArrive>(); a && a->commit_group && !mma_by_warpgroup_) commit_by_issuer(s);
    else if (s.as<MmaWait>()) group(s, Group::Warpgroup, "mma_wait", "mma_wait waits for a whole warpgroup's MMAs");
    else if (const AccStore* a = s.as<AccStore>()) {
      group(s, Group::Warpgroup, "store_accumulator", "each thread of the warpgroup holds part of the accumulator");
      same_rows(s, *a);
    }
    else if (s.as<FragMap>()) group(s, Group::Warpgroup, "acc_map", "each thread of the warpgroup holds part of the fragment");
    else if (s.as<RowReduce>()) group(s, Group::Warpgroup, "the row reduction", "each thread of the warpgroup holds part of the rows");
    else if (s.as<AccPartial>()) group(s, Group::Warpgroup, "the accumulator partial", "each thread of the warpgroup holds part of the accumulator");
    else if (const NamedBarrier* b = s.as<NamedBarrier>()) {
      if (!b->arrive) oversubscribed(s, *b);
      // In a role: role_sync and the turns (each warpgroup waits for its turn there) are met
      // by all of its warpgroups, warpgroup_sync (128 threads) by one; elsewhere whole warps.
      // (An arrive is some warpgroups' part: the turns' first hand-over is the last one's alone.)
      if (role_ && !b->arrive && (b->threads != 128 || role_->count == 1))
        group(s, Group::Role, "the named barrier", "role_sync and the turns are met by every warpgroup of the role");
      else if (role_ && !b->arrive)
        group(s, Group::Warpgroup, "the named barrier", "warpgroup_sync is met by every thread of the warpgroup");
      else
        group(s, Group::Warp, "the named barrier", "bar.sync and bar.arrive count whole warps");
      turn(*b);
    }
    else if (s.as<SyncThreads>()) group(s, Group::Cta, "sync_threads", "every thread of the CTA must reach it");
    // Warp shuffles and reductions in the statement's own expressions.
    WarpOps ops;
    if (const If* i = s.as<If>()) ops.visit(i->cond);
    else if (std::optional<LoopView> l = as_loop(s)) {
      for (const Expr& e : l->control_exprs()) ops.visit(e);
    } else if (!s.as<Role>()) {
      dispatch(s, [&](const auto& n) { ops.visit_node(n); });
    }
    for (const Intrinsic* op : ops.found) lanes(s, *op);
  }

  // The threads of CTA rank 0 that certainly run `s`; nullopt where a condition does not evaluate.
  std::optional<std::set<uint64_t>> certain_threads(unsigned rank) const {
    std::set<uint64_t> out;
    for (uint64_t i = 0; i < k_.block.count(); ++i) {
      std::optional<bool> p = passes(rank, thread(i));
      if (!p) return std::nullopt;
      if (*p) out.insert(i);
    }
    return out;
  }

  // A turn (wait_turn) opens at a named barrier whose index differs between the role's
  // warpgroups, and closes at the next arrive (pass_turn): in between, one at a time.
  void turn(const NamedBarrier& b) {
    if (!role_ || role_->count < 2) return;
    if (b.arrive) {
      in_turn_ = false;
      return;
    }
    const auto id = [&](unsigned w) {
      return eval_int(b.id, EvalEnv{k_.cluster, k_.block, 0u, thread(128ull * (role_->first + w)), nullptr, &d_});
    };
    const std::optional<int64_t> first = id(0), second = id(1);
    if (first && second && *first != *second) in_turn_ = true;
  }

  // wgmma: store_accumulator run by two warpgroups of a role at once (not in their turns)
  // into overlapping rows of one stage: each overwrites the other's elements.
  void same_rows(const StmtNode& s, const AccStore& a) {
    const AccumulatorDecl* acc = k_.find_accumulator(a.acc);
    const SharedRef* buf = a.dst.tile ? a.dst.tile->as<SharedRef>() : nullptr;
    if (!mma_by_warpgroup_ || !role_ || role_->count < 2 || in_turn_ || !acc || !buf) return;
    const int64_t rows = a.dst_rows(acc->m);  // from the first row: the accumulator's rows, or its columns transposed
    const std::string op = a.transposed ? "store_accumulator_transposed" : "store_accumulator";
    for (unsigned rank = 0; rank < k_.cluster.count(); ++rank) {
      std::vector<std::tuple<unsigned, int64_t, int64_t>> seen;  // warpgroup, stage, first row
      for (unsigned w = 0; w < role_->count; ++w) {
        const Dim3 t = thread(128ull * (role_->first + w));
        if (passes(rank, t) != true) continue;
        const EvalEnv env{k_.cluster, k_.block, rank, t, nullptr, &d_};
        const std::optional<int64_t> stage = eval_int(a.dst.stage, env), row = eval_int(a.dst.row, env);
        if (!stage || !row) continue;
        for (const auto& [w0, stage0, row0] : seen)
          if (stage0 == *stage && std::abs(row0 - *row) < rows) {
            const int64_t lo = std::max(row0, *row), hi = std::min(row0, *row) + rows - 1;
            out_.push_back({s.loc, op + " runs in warpgroups " + std::to_string(w0) + " and " + std::to_string(w) + " of role '" +
                                       role_->name + "' at once (CTA rank " + std::to_string(rank) + "), both into rows " +
                                       std::to_string(lo) + " to " + std::to_string(hi) + " of stage " + std::to_string(*stage) + " of '" +
                                       buf->name + "': each overwrites the other's elements",
                            "give each warpgroup its own rows (stage(" + buf->name + ", s).rows(wg * " + std::to_string(acc->m) +
                                ")) or its own stage, or store in turns (wait_turn ... pass_turn)"});
            return;
          }
        seen.emplace_back(w, *stage, *row);
      }
    }
  }

  // tcgen05: one thread issues an MMA for the CTA; each thread that runs the statement
  // issues a whole MMA into the same accumulator.
  void one_issuer(const StmtNode& s) {
    std::optional<std::set<uint64_t>> ts = certain_threads(0);
    if (!ts) return;
    issuers_.push_back({s.loc, *ts});
    if (ts->size() <= 1) return;
    out_.push_back({s.loc, "mma runs in " + thread_count(ts->size()) + " of CTA rank 0: a tcgen05 MMA is issued by one thread "
                               "for the whole CTA, so each of them issues the whole MMA again into the accumulator",
                    "issue it from one thread: if_(thread_idx_x() == " + std::to_string(*ts->begin()) +
                        ", ...) around the mma and its mma_commit"});
  }
  // A commit tracks the MMAs its own thread issued: in a thread that issued none, it
  // arrives at once, before any MMA completes.
  void commit_by_issuer(const StmtNode& s) {
    if (issuers_.empty()) return;
    std::optional<std::set<uint64_t>> ts = certain_threads(0);
    if (!ts || ts->empty()) return;
    for (const auto& [loc, issuers] : issuers_)
      for (uint64_t t : *ts)
        if (issuers.count(t)) return;
    const auto& [loc, issuers] = issuers_.front();
    out_.push_back({s.loc, "mma_commit runs in thread " + std::to_string(*ts->begin()) + ", which issues no MMA (the mma at " +
                               loc.str() + " is issued by thread " + (issuers.empty() ? std::string("none") : std::to_string(*issuers.begin())) +
                               "): a commit tracks the MMAs of its own thread, so it arrives at once, before they complete",
                    "call mma_commit in the thread that issues the MMAs"});
  }

  // A named barrier that more threads meet at than it counts (warpgroup_sync given the
  // same index in two warpgroups): any `threads` of them release it, not the ones meant.
  void oversubscribed(const StmtNode& s, const NamedBarrier& b) {
    const uint64_t threads = k_.block.count();
    for (unsigned rank = 0; rank < k_.cluster.count(); ++rank) {
      std::map<int64_t, uint64_t> at;
      std::map<int64_t, std::set<uint64_t>> warpgroups;
      for (uint64_t w = 0; w < threads; w += 32) {
        const Dim3 t = thread(w);
        if (passes(rank, t) != true) continue;
        std::optional<int64_t> id = eval_int(b.id, EvalEnv{k_.cluster, k_.block, rank, t, nullptr, &d_});
        if (!id) return;
        at[*id] += std::min<uint64_t>(32, threads - w);
        warpgroups[*id].insert(w / 128);
      }
      for (const auto& [id, n] : at)
        if (n > b.threads) {
          std::string list;
          for (uint64_t g : warpgroups[id]) list += (list.empty() ? "" : " and ") + std::to_string(g);
          out_.push_back({s.loc, "the named barrier " + std::to_string(id) + " here is met by " + thread_count(n) + " (warpgroups " + list + (k_.cluster.count() > 1 ? " of CTA rank " + std::to_string(rank) : "") +
                                     "), but it counts " + std::to_string(b.threads) + ": any " + std::to_string(b.threads / 32) +
                                     " warps release it, not the ones meant to meet",
                          "give each warpgroup its own barrier: warpgroup_sync(wg) with the role's warpgroup index (role_sync() for "
                          "the whole role)"});
          return;
        }
    }
  }

  // Whether thread t of CTA `rank` passes every guard; nullopt when one does not evaluate.
  std::optional<bool> passes(unsigned rank, const Dim3& t) const {
    return all_hold(guards_, EvalEnv{k_.cluster, k_.block, rank, t, nullptr, &d_});
  }

  // A counted loop whose bounds evaluate for a thread but not without one: its trip
  // count may differ between the threads of a group.
  bool thread_varying(const LoopView& l) const {
    if (!l.counted()) return false;
    const EvalEnv any{k_.cluster, k_.block, 0u, std::nullopt, nullptr, &d_};
    const EvalEnv first{k_.cluster, k_.block, 0u, Dim3{0, 0, 0}, nullptr, &d_};
    for (const Expr& e : {l.begin, l.end, l.step})
      if (!eval_int(e, any) && eval_int(e, first)) return true;
    return false;
  }

  // A counted loop whose bounds do not evaluate even for a thread (they read memory, say).
  bool data_bounds(const LoopView& l) const {
    if (!l.counted()) return false;
    const EvalEnv first{k_.cluster, k_.block, 0u, Dim3{0, 0, 0}, nullptr, &d_, std::nullopt, true};
    for (const Expr& e : {l.begin, l.end, l.step})
      if (!eval_int(e, first)) return true;
    return false;
  }

  // Where a condition or an enclosing loop's bound that does not evaluate reads data that
  // differs between the threads of [first, last) of CTA `rank` (in `mask`, for a warp)
  // that may run the statement: "the condition at f.cpp:12 reads data that differs between
  // them (x[...] is read at index 0 in thread 0 and at index 1 in thread 1, f.cpp:11)".
  // Any CTA serves: %ctaid is the grid's first cluster's.
  std::optional<std::string> data_split(unsigned rank, uint64_t first, uint64_t last, uint32_t mask = ~0u) const {
    if (guards_.empty() && data_loops_.empty()) return std::nullopt;
    std::vector<ThreadEnv> ts;
    for (uint64_t i = first; i < last; ++i) {
      if (!((mask >> ((i - first) % 32)) & 1u)) continue;
      const EvalEnv env{k_.cluster, k_.block, rank, thread(i), nullptr, &d_, std::nullopt, true};
      if (all_hold(guards_, env) != false) ts.push_back({i, env});
    }
    if (ts.size() < 2) return std::nullopt;
    auto found = [&](const Expr& e, const std::string& where, const std::string& reads) -> std::optional<std::string> {
      const std::optional<Divergence> d = divergence(e, ts);
      if (!d) return std::nullopt;
      return where + " " + reads + " that differs between them (" + d->what + (d->loc.known() ? ", " + d->loc.str() : "") + ")";
    };
    for (const Guard& g : guards_) {
      bool known = true;
      for (const ThreadEnv& t : ts) known = known && eval_int(g.expr, t.env).has_value();
      if (known) continue;
      if (auto d = found(g.expr, "the condition at " + g.loc.str(), "reads data")) return d;
    }
    for (const LoopView& l : data_loops_)
      for (const Expr& e : {l.begin, l.end, l.step})
        if (auto d = found(e, "the loop at " + l.node->loc.str(), "takes its trip count from data")) return d;
    return std::nullopt;
  }

  // Where the threads of [first, last) of CTA `rank` that pass the guards (and, for a
  // warp, are in `mask`) run an enclosing loop a different number of times: "the loop
  // at f.cpp:12 runs 3 iterations in thread 0 and 2 in thread 5". Loops whose bounds do
  // not evaluate are left out.
  std::optional<std::string> uneven_trips(unsigned rank, uint64_t first, uint64_t last, uint32_t mask = ~0u) const {
    for (const LoopView& l : loops_) {
      std::optional<std::pair<uint64_t, int64_t>> seen;
      for (uint64_t i = first; i < last; ++i) {
        if (!((mask >> ((i - first) % 32)) & 1u) || passes(rank, thread(i)) != true) continue;
        const EvalEnv env{k_.cluster, k_.block, rank, thread(i), nullptr, &d_};
        std::optional<int64_t> b = eval_int(l.begin, env), e = eval_int(l.end, env), st = eval_int(l.step, env);
        if (!b || !e || !st || *st <= 0) break;
        const int64_t trips = *e > *b ? (*e - *b + *st - 1) / *st : 0;
        if (!seen) seen = {i, trips};
        else if (seen->second != trips)
          return "the loop at " + l.node->loc.str() + " runs " + std::to_string(seen->second) + " iterations in thread " +
                 std::to_string(seen->first) + " and " + std::to_string(trips) + " in thread " + std::to_string(i);
      }
    }
    return std::nullopt;
  }

  // The guard that first splits threads [first, last) of CTA `rank` (those that pass the
  // guards before it: some pass it and some do not).
  const Guard* splitter(unsigned rank, uint64_t first, uint64_t last) const {
    std::vector<bool> alive(last - first, true);
    for (const Guard& g : guards_) {
      bool some = false, none = false;
      std::vector<bool> next = alive;
      for (uint64_t i = first; i < last; ++i) {
        if (!alive[i - first]) continue;
        const EvalEnv env{k_.cluster, k_.block, rank, thread(i), nullptr, &d_};
        std::optional<int64_t> v = eval_int(g.expr, env);
        const bool pass = v && (*v != 0) != g.negated;
        (pass ? some : none) = true;
        next[i - first] = pass;
      }
      if (some && none) return &g;
      alive = next;
    }
    return nullptr;
  }

  Dim3 thread(uint64_t linear) const {
    return Dim3{unsigned(linear % k_.block.x), unsigned(linear / k_.block.x % k_.block.y), unsigned(linear / (uint64_t(k_.block.x) * k_.block.y))};
  }

  void group(const StmtNode& s, Group g, const std::string& what, const std::string& why) {
    if (guards_.empty() && loops_.empty() && data_loops_.empty()) return;
    const uint64_t threads = k_.block.count();
    const uint64_t size = g == Group::Warp ? 32 : g == Group::Warpgroup ? 128 : g == Group::Role ? 128ull * role_->count : threads;
    const uint64_t begin = g == Group::Role ? 128ull * role_->first : 0, end = g == Group::Role ? begin + size : threads;
    for (unsigned rank = 0; rank < k_.cluster.count(); ++rank)
      for (uint64_t first = begin; first < std::min(threads, end); first += size) {
        const uint64_t last = std::min(threads, first + size);
        uint64_t pass = 0;
        bool unknown = false;
        for (uint64_t i = first; i < last && !unknown; ++i) {
          std::optional<bool> p = passes(rank, thread(i));
          if (!p) unknown = true;
          else pass += *p;
        }
        const std::string name = g == Group::Warp        ? "warp " + std::to_string(first / 32)
                                 : g == Group::Warpgroup ? "warpgroup " + std::to_string(first / 128)
                                 : g == Group::Role      ? "role '" + role_->name + "'"
                                                         : "the CTA";
        const std::string unit = g == Group::Cta ? "CTA" : g == Group::Role ? "role" : g == Group::Warp ? "warp" : "warpgroup";
        if (unknown || (pass == last - first && !data_loops_.empty()))
          if (std::optional<std::string> split = data_split(rank, first, last)) {
            out_.push_back({s.loc, what + " may run in only some of the " + thread_count(last - first) + " of " + name + " (CTA rank " +
                                       std::to_string(rank) + "), or a different number of times: " + *split + "; " + why +
                                       ", every thread of it or none; on the GPU this hangs or is undefined",
                            "decide it from values that are the same in every thread of the " + unit +
                                " (read at one index for all of them, or combined into a local before the condition), and guard "
                                "only what each thread does alone"});
            return;
          }
        if (unknown || pass == 0) continue;
        if (pass == last - first) {
          if (std::optional<std::string> uneven = uneven_trips(rank, first, last)) {
            out_.push_back({s.loc, what + " runs a different number of times in the threads of " + name + " (CTA rank " +
                                       std::to_string(rank) + "): " + *uneven + "; " + why +
                                       ", every thread of it or none; on the GPU this hangs or is undefined",
                            "give the loop the same bounds in every thread of the " + unit +
                                " (from the warp or warpgroup index, not the thread's), and guard only what one thread does"});
            return;
          }
          continue;
        }
        const Guard* split = splitter(rank, first, last);
        out_.push_back({s.loc, what + " runs in " + std::to_string(pass) + " of the " + thread_count(last - first) + " of " + name +
                                   " (CTA rank " + std::to_string(rank) + ")" +
                                   (split && split->loc.known() ? ", split by the condition at " + split->loc.str() : "") + ": " +
                                   why + ", every thread of it or none; on the GPU this hangs or is undefined",
                       g == Group::Cta ? "call it where every thread of the CTA gets: outside conditions on the thread index"
                       : g == Group::Role
                           ? "call it where every warpgroup of the role gets: outside conditions on the thread or warpgroup index"
                           : "call it where every thread of the " + unit +
                                             " gets (e.g. under the role or a condition on the warpgroup index), and guard "
                                             "only what one thread does"});
        return;  // once per statement
      }
  }

  // A shuffle or warp reduction: every lane of its mask must run it.
  void lanes(const StmtNode& s, const Intrinsic& op) {
    const size_t mask_arg = op.args.size() == 4 ? 2 : 1;
    const std::optional<int64_t> m = const_int(op.args[mask_arg]);
    if (!m) return;
    const uint32_t mask = uint32_t(*m);
    // shfl_xor with a constant lane mask: each lane of the mask reads its partner, which must
    // be in the mask too (a lane outside it takes no part: the value read is undefined).
    // (With a width under 32 a partner outside the lane's segment is clamped to itself.)
    if (op.op == IntrinsicOp::ShflXor && const_int(op.args[3]) == 32)
      if (const std::optional<int64_t> x = const_int(op.args[1]); x && *x >= 0 && *x < 32)
        for (unsigned lane = 0; lane < 32; ++lane)
          if ((mask >> lane) & 1u && !((mask >> (lane ^ unsigned(*x))) & 1u)) {
            out_.push_back({s.loc, "shfl_xor with lane mask " + std::to_string(*x) + " and mask " + hex(mask) + ": lane " +
                                       std::to_string(lane) + " reads lane " + std::to_string(lane ^ unsigned(*x)) +
                                       ", which is not in the mask, so what it reads is undefined",
                            "give a mask that holds every lane's partner, or a lane mask that stays inside it"});
            return;
          }
    const uint64_t threads = k_.block.count();
    for (unsigned rank = 0; rank < k_.cluster.count(); ++rank)
      for (uint64_t first = 0; first < threads; first += 32) {
        uint32_t present = 0, passing = 0;
        bool unknown = false;
        for (uint64_t i = first; i < std::min(threads, first + 32) && !unknown; ++i) {
          present |= 1u << (i - first);
          std::optional<bool> p = passes(rank, thread(i));
          if (!p) unknown = true;
          else if (*p) passing |= 1u << (i - first);
        }
        const std::string buf = hex(mask);
        const std::string name = std::string(intrinsic_name(op.op));
        if (unknown || ((mask & passing) == mask && !data_loops_.empty()))
          if (std::optional<std::string> split = data_split(rank, first, std::min(threads, first + 32), mask)) {
            out_.push_back({s.loc, name + " with mask " + buf + " may run in only some of its lanes in warp " + std::to_string(first / 32) +
                                       " (CTA rank " + std::to_string(rank) + "), or a different number of times: " + *split +
                                       "; every lane of the mask must execute it each time; on the GPU this hangs or is undefined",
                            "decide it from values that are the same in every lane of the mask (read at one index for all of "
                            "them, or reduced over the warp into a local before the condition: var(warp_max(x))), and guard "
                            "only what each lane does alone"});
            return;
          }
        if (unknown || passing == 0) continue;
        if ((mask & passing) == mask) {
          if (std::optional<std::string> uneven = uneven_trips(rank, first, std::min(threads, first + 32), mask)) {
            out_.push_back({s.loc, name + " with mask " + buf + " runs a different number of times in the lanes of warp " +
                                       std::to_string(first / 32) + " (CTA rank " + std::to_string(rank) + "): " + *uneven +
                                       "; every lane of the mask must execute it each time; on the GPU this hangs or is undefined",
                            "give the loop the same bounds in every lane of the mask (from the warp index, not the lane's)"});
            return;
          }
          continue;
        }
        if ((mask & present) != mask) {
          out_.push_back({s.loc, name + " with mask " + buf + " in warp " + std::to_string(first / 32) + ", which has " +
                                     thread_count(uint64_t(__builtin_popcount(present))) + " (a CTA of " + thread_count(threads) +
                                     "): the mask names lanes that do not exist, and the shuffle waits for them",
                          "use a block of whole warps (a multiple of 32 threads), or a mask of the lanes the warp has"});
          return;
        }
        const Guard* split = splitter(rank, first, std::min(threads, first + 32));
        out_.push_back({s.loc, name + " with mask " + buf + " runs in " + std::to_string(__builtin_popcount(passing & mask)) + " of its " +
                                   std::to_string(__builtin_popcount(mask)) + " lanes in warp " + std::to_string(first / 32) +
                                   " (CTA rank " + std::to_string(rank) + ")" +
                                   (split && split->loc.known() ? ", split by the condition at " + split->loc.str() : "") +
                                   ": every lane of the mask must execute it; on the GPU this hangs or is undefined",
                        "call it where every lane of the mask gets, or give it the mask of the lanes that do"});
        return;
      }
  }

  const Kernel& k_;
  const Defs d_;
  std::vector<Diagnostic>& out_;
  Guards guards_;
  std::vector<LoopView> loops_;  // the loops around the statement whose bounds depend on the thread
  std::vector<LoopView> data_loops_;  // ... whose bounds do not evaluate for a thread (they read memory, say)
  std::vector<std::pair<Loc, std::set<uint64_t>>> issuers_;  // tcgen05 MMAs so far: the threads (CTA rank 0) that issue them
  bool mma_by_warpgroup_;
  const Role* role_ = nullptr;
  bool in_turn_ = false;  // between a wait_turn and its pass_turn
};

}  // namespace

std::vector<Diagnostic> verify_collectives(const Kernel& k, const Target& t) {
  std::vector<Diagnostic> out;
  Collectives c(k, t, out);
  c.walk(k.body);
  return out;
}

}  // namespace tj::codegen
