#include "codegen/passes/race_handover.h"

#include "codegen/analysis/eval.h"
#include "codegen/analysis/uniformity.h"
#include "dsl/ir/printer.h"
#include "codegen/passes/race_model.h"

namespace tj::codegen::race {
namespace {

using namespace tj::ir;

int ceil_div(int a, int b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); }

EvalEnv env_of(const Kernel& k, const Defs& d, unsigned rank) {
  return EvalEnv{k.cluster, k.block, rank, std::nullopt, nullptr, &d};
}

// Whether `ops` lie in the loops `of` lies in (the same nodes), any walked iteration.
bool same_nest(const Iterations& ops, const Iterations& of) {
  if (ops.size() != of.size()) return false;
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].first != of[i].first) return false;
  return true;
}

// Whether the two barriers' indices name the same barrier of the array: both evaluate
// alike, or one expression, the same in every CTA, in the same walked iteration.
bool same_index(const Kernel& k, const Defs& d, const BarrierOp& r, unsigned s1, const BarrierOp& w, unsigned s2) {
  std::optional<int64_t> x = eval_int(r.index, env_of(k, d, s1)), y = eval_int(w.index, env_of(k, d, s2));
  if (x || y) return x && y && *x == *y;
  if (r.iterations != w.iterations || ir::to_string(r.index) != ir::to_string(w.index)) return false;
  return uniformity(r.index, k, r.loops, &d) == Uniform::Cluster;
}

std::string name_at(const Kernel& k, const Defs& d, const BarrierOp& op, unsigned rank) {
  std::optional<int64_t> i = eval_int(op.index, env_of(k, d, rank));
  return op.bar.name + "[" + (i ? std::to_string(*i) : ir::to_string(op.index)) + "]";
}

std::optional<int> one(const Kernel& k, const Defs& d, const PerIteration& per, const HandoverSide& a, const BarrierOp& r,
                       unsigned s1, const HandoverSide& b, const BarrierOp& w, unsigned s2, NearMiss* near) {
  if (r.bar.name != w.bar.name || !may_run(k, d, r.guards, s1) || !may_run(k, d, w.guards, s2)) return std::nullopt;
  auto miss = [&](std::string why, std::string fix) {
    if (near && near->why.empty()) *near = {std::move(why), std::move(fix)};
    return std::nullopt;
  };
  std::optional<int64_t> to = int64_t(s1);
  if (r.bar.rank) to = eval_int(r.bar.rank, env_of(k, d, s1));
  if (!to || *to != int64_t(s2))
    return miss("the arrive at " + r.loc.str() + " by CTA rank " + std::to_string(s1) + " reaches barrier '" + r.bar.name + "' of " +
                    (to ? "CTA rank " + std::to_string(*to) : "a CTA not known before run time") + ", but CTA rank " +
                    std::to_string(s2) + " waits at " + w.loc.str() + " on its own '" + w.bar.name + "'",
                "arrive on the waiting CTA's barrier at " + line_of(r.loc) + ": map_shared_rank(" + r.bar.name +
                    ", <rank of the CTA that waits>), here CTA rank " + std::to_string(s2));
  if (!same_index(k, d, r, s1, w, s2))
    return miss("the arrive at " + r.loc.str() + " reaches '" + name_at(k, d, r, s1) + "', the wait at " + w.loc.str() +
                    " is on '" + name_at(k, d, w, s2) + "'",
                "arrive at " + line_of(r.loc) + " on the barrier that the wait at " + line_of(w.loc) + " waits on");
  const Iterations &ra = r.iterations, &wb = w.iterations;
  if (!same_nest(ra, *a.iterations) || !same_nest(wb, *b.iterations) || ra.size() != wb.size()) return std::nullopt;
  for (size_t i = 0; i + 1 < ra.size(); ++i)
    if (ra[i] != wb[i]) return std::nullopt;
  const std::string phase_why = "the arrive at " + r.loc.str() + " and the wait at " + w.loc.str() + " on '" + r.bar.name +
                                "' are not the same phase (a thread's k-th wait on a barrier waits for its k-th phase)";
  const std::string phase_fix = "arrive on '" + r.bar.name + "' once per phase, after " + line_of(r.loc) +
                                "'s access, in the phase that the wait at " + line_of(w.loc) + " waits for";
  if (r.ordinal < 0 || w.ordinal < 0) return std::nullopt;
  if (ra.empty()) {
    if (r.ordinal <= w.ordinal) return kAlways;
    return miss(phase_why, phase_fix);
  }
  auto count = [&](const Iterations& it, const std::string& key) {
    auto f = per.find({it.back().first, key});
    return f == per.end() ? 0 : f->second;
  };
  const int c = count(ra, r.key);
  if (c <= 0 || c != count(wb, w.key)) return miss(phase_why, phase_fix);
  // Iteration x's arrive counts for phase ordinal + (x - ia) * c; iteration y's wait
  // waits for ordinal + (y - ib - skipped) * c: the arrive is in or before it when y - x
  // is at least the value returned.
  return ceil_div(r.ordinal - w.ordinal, c) + b.iterations->back().second - a.iterations->back().second + w.skipped;
}

}  // namespace

std::optional<int> handover_from(const Kernel& k, const Defs& d, const PerIteration& per, const HandoverSide& a, unsigned s1,
                                 const HandoverSide& b, unsigned s2, NearMiss* near) {
  std::optional<int> best;
  for (const BarrierOp& r : *a.releases)
    for (const BarrierOp& w : *b.acquires)
      if (std::optional<int> v = one(k, d, per, a, r, s1, b, w, s2, near)) best = best ? std::min(*best, *v) : *v;
  return best;
}

}  // namespace tj::codegen::race
