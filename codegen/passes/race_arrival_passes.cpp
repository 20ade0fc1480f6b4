#include "codegen/passes/race_arrival_passes.h"

#include <algorithm>
#include <map>

#include "codegen/analysis/conditions.h"
#include "codegen/analysis/eval.h"
#include "dsl/ir/loops.h"

namespace tj::codegen::race {
namespace {

using namespace tj::ir;

constexpr int64_t kOuterSamples = 4;  // values tried for each enclosing loop's index
constexpr size_t kMaxOuter = 2;       // enclosing loops bound; deeper nests are not decided here

// What one thread's arrival reaches: (CTA rank, barrier index) pairs, or nullopt.
using Reach = std::vector<std::pair<unsigned, int64_t>>;

class Passes {
 public:
  Passes(const Kernel& k, const Defs& defs, const std::vector<LoopView>& loops) : k_(k), defs_(defs), loops_(loops) {}

  // Binds each loop's index for thread t of CTA `rank`: loop i to begin + pass[i] x step.
  std::optional<Bindings> bind(const Bindings& base, unsigned rank, const Dim3& t, const std::vector<int64_t>& pass) const {
    Bindings b = base;
    for (size_t i = 0; i < loops_.size(); ++i) {
      const EvalEnv env{k_.cluster, k_.block, rank, t, &b, &defs_};
      std::optional<int64_t> begin = eval_int(loops_[i].begin, env), step = eval_int(loops_[i].step, env);
      if (!begin || !step || *step <= 0) return std::nullopt;
      b[loops_[i].var] = *begin + pass[i] * *step;
    }
    return b;
  }

  // Where thread t's arrival `e` lands in this pass: empty when its conditions fail;
  // nullopt when something does not evaluate.
  std::optional<Reach> reach(const BarrierEvent& e, unsigned rank, const Dim3& t, const std::vector<int64_t>& pass) const {
    std::optional<Bindings> b = bind(e.vars, rank, t, pass);
    if (!b) return std::nullopt;
    const EvalEnv env{k_.cluster, k_.block, rank, t, &*b, &defs_};
    std::optional<bool> runs = all_hold(e.guards, env);
    if (!runs) return std::nullopt;
    if (!*runs) return Reach{};
    std::optional<int64_t> idx = eval_int(e.index, env);
    if (!idx) return std::nullopt;
    const unsigned n = k_.cluster.count();
    if (e.mask) {
      std::optional<int64_t> m = eval_int(e.mask, env);
      if (!m) return std::nullopt;
      Reach r;
      for (unsigned c = 0; c < n && c < 16; ++c)
        if ((uint64_t(*m) >> c) & 1) r.push_back({c, *idx});
      return r;
    }
    int64_t to = rank;
    if (e.barrier.rank) {
      std::optional<int64_t> r = eval_int(e.barrier.rank, env);
      if (!r || *r < 0 || *r >= int64_t(n)) return std::nullopt;
      to = *r;
    }
    return Reach{{unsigned(to), *idx}};
  }

 private:
  const Kernel& k_;
  const Defs& defs_;
  const std::vector<LoopView>& loops_;
};

uint64_t linear(const Kernel& k, const Dim3& t) { return t.x + uint64_t(k.block.x) * (t.y + uint64_t(k.block.y) * t.z); }

}  // namespace

std::optional<PassCounts> count_by_passes(const Kernel& k, const Defs& defs, ConditionEval& eval, const PhaseScope& scope,
                                          const std::vector<const BarrierEvent*>& events, uint64_t want) {
  if (!scope.loop || scope.outer.size() > kMaxOuter || events.empty()) return std::nullopt;
  std::vector<LoopView> loops;
  for (const StmtNode* o : scope.outer) loops.push_back(*as_loop(*o));
  loops.push_back(*as_loop(*scope.loop));
  for (const LoopView& l : loops)
    if (!l.counted()) return std::nullopt;
  // Enough passes to go twice round the barrier array and then some.
  const SharedBuffer* buf = k.find_shared(events.front()->barrier.name);
  if (!buf) return std::nullopt;
  const int64_t inner = std::min<int64_t>(64, 2 * int64_t(buf->count) + 2);
  Passes passes(k, defs, loops);
  // Per event and CTA rank: the threads that pass its conditions that evaluate without the pass.
  std::vector<std::vector<std::vector<Dim3>>> passing(events.size());
  for (size_t ei = 0; ei < events.size(); ++ei) {
    const BarrierEvent& e = *events[ei];
    std::vector<int> ids;
    for (const Guard& g : e.guards) ids.push_back(eval.evaluable(g.expr, e.vars) ? -1 : 0);
    for (unsigned rank = 0; rank < k.cluster.count(); ++rank) passing[ei].push_back(eval.threads_passing(e.guards, ids, rank, e.vars));
  }
  PassCounts out;
  out.passes = "passes 0 to " + std::to_string(inner - 1) + " of " + scope.phase;
  bool active = false;
  std::vector<int64_t> pass(loops.size(), 0);
  const int64_t outer_combinations = [&] {
    int64_t c = 1;
    for (size_t i = 0; i + 1 < loops.size(); ++i) c *= kOuterSamples;
    return c;
  }();
  for (int64_t o = 0; o < outer_combinations; ++o) {
    for (size_t i = 0, v = size_t(o); i + 1 < loops.size(); ++i, v /= kOuterSamples) pass[i] = int64_t(v % kOuterSamples);
    for (int64_t j = 0; j < inner; ++j) {
      pass.back() = j;
      std::map<std::pair<unsigned, int64_t>, uint64_t> counts;
      for (size_t ei = 0; ei < events.size(); ++ei)
        for (unsigned rank = 0; rank < k.cluster.count(); ++rank) {
          // The threads past the conditions that do not depend on the pass, by warp: the
          // first, middle and last of a warp stand for it where they agree.
          const std::vector<Dim3>& ts = passing[ei][rank];
          for (size_t first = 0; first < ts.size();) {
            size_t end = first;
            const uint64_t warp = linear(k, ts[first]) / 32;
            while (end < ts.size() && linear(k, ts[end]) / 32 == warp) ++end;
            std::optional<Reach> a = passes.reach(*events[ei], rank, ts[first], pass);
            std::optional<Reach> m = passes.reach(*events[ei], rank, ts[(first + end - 1) / 2], pass);
            std::optional<Reach> b = passes.reach(*events[ei], rank, ts[end - 1], pass);
            if (!a || !m || !b) return std::nullopt;
            for (size_t t = first; t < end; ++t) {
              std::optional<Reach> r = (*a == *m && *m == *b) ? a : passes.reach(*events[ei], rank, ts[t], pass);
              if (!r) return std::nullopt;
              for (const auto& at : *r) ++counts[at];
            }
            first = end;
          }
        }
      for (const auto& [at, n] : counts) {
        active |= n > 0;
        if (n != 0 && n != want) {
          out.ok = false, out.rank = at.first, out.index = at.second, out.got = n;
          out.pass = "pass " + std::to_string(j) + " of " + scope.phase;
          for (size_t i = 0; i + 1 < loops.size(); ++i)
            out.pass += " (with " + loops[i].var + " in its pass " + std::to_string(pass[i]) + ")";
          return out;
        }
      }
    }
  }
  if (!active) return std::nullopt;
  return out;
}

}  // namespace tj::codegen::race
