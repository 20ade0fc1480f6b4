// Conditions of barrier events, decided per CTA rank where they can be: which ones
// have a value in every thread, which threads of a CTA pass those, and the ones
// that cannot be evaluated before run time but are the same in every thread
// concerned, taken as unknown truth values and tried both ways.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "codegen/analysis/guards.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// At most this many unknown conditions are tried both ways (2^n cases).
constexpr size_t kMaxUnknowns = 6;

// Evaluates guards per CTA rank and thread; remembers what the phases of one kernel share.
class ConditionEval {
 public:
  ConditionEval(const ir::Kernel& k, const Defs& d) : k_(k), defs_(d) {}
  const Defs& defs() const { return defs_; }

  // Whether `e` has a value in every thread of every CTA of the cluster, with the
  // loop indices in `vars` bound.
  bool evaluable(const ir::Expr& e, const Bindings& vars);

  // The threads of CTA `rank` that pass every guard of `g` whose entry in `unknown`
  // is -1 (the others are unknowns, decided by the caller).
  std::vector<ir::Dim3> threads_passing(const Guards& g, const std::vector<int>& unknown, unsigned rank, const Bindings& vars);

 private:
  std::vector<ir::Dim3> passing(const Guards& g, const std::vector<size_t>& which, unsigned rank, const Bindings& vars);
  bool closed(const ir::Expr& e, const Bindings& vars) const;

  const ir::Kernel& k_;
  const Defs& defs_;
  std::map<std::pair<const ir::ExprNode*, Bindings>, bool> evaluable_;
  std::map<std::pair<unsigned, std::vector<std::pair<const ir::ExprNode*, bool>>>, std::vector<ir::Dim3>> passing_;
};

// The unknown conditions of one barrier's phase, by their IR text (one text, one unknown).
class Unknowns {
 public:
  // The index of the unknown `e` is, added when new.
  int add(const ir::Expr& e);
  size_t size() const { return names_.size(); }
  bool too_many() const { return names_.size() > kMaxUnknowns; }

  // The unknown index of each guard of `g` (-1: evaluable), appended to `ids`; stops at
  // the first guard that is neither evaluable nor `may_be_unknown` and returns its position.
  template <class MayBeUnknown>
  std::optional<size_t> classify(const Guards& g, const Bindings& vars, ConditionEval& eval, MayBeUnknown&& may_be_unknown,
                                 std::vector<int>& ids) {
    for (size_t c = 0; c < g.size(); ++c) {
      if (eval.evaluable(g[c].expr, vars)) {
        ids.push_back(-1);
        continue;
      }
      if (!may_be_unknown(g[c])) return c;
      ids.push_back(add(g[c].expr));
    }
    return std::nullopt;
  }

  // Whether the guards pass that `ids` marks as unknowns, when unknown i is bit i of `bits`.
  static bool hold(const Guards& g, const std::vector<int>& ids, uint32_t bits);

  // Calls f(bits) for every combination of the unknowns' values, all true first,
  // until f returns false.
  template <class F>
  void for_each_combination(F&& f) const {
    for (uint32_t bits = (1u << size()) - 1;; --bits)
      if (!f(bits) || bits == 0) break;
  }

  // "(x < 4) is true and n is false", for the values in `bits`.
  std::string values(uint32_t bits) const;
  // "(x < 4), n"
  std::string list() const;

 private:
  std::vector<std::string> names_;
};

}  // namespace tj::codegen
