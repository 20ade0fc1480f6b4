// Evaluating integer expressions where some special registers are known: the
// cluster shape always, the CTA's rank, the thread index and the grid when the
// caller fixes them. Used by checks that reason per CTA (multicast masks,
// transaction bytes) without running anything.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dsl/ir/kernel.h"

namespace tj::codegen {

struct EvalEnv {
  ir::Dim3 cluster{1, 1, 1};
  ir::Dim3 block{1, 1, 1};
  std::optional<unsigned> rank;                  // %cluster_ctarank
  std::optional<ir::Dim3> thread;                // %tid
  const std::map<std::string, int64_t>* vars = nullptr;  // values of loop indices unrolled by the caller
  const std::map<std::string, ir::Expr>* defs = nullptr;  // locals never reassigned: their initial values
  std::optional<ir::Dim3> grid_clusters = std::nullopt;  // %nclusterid: a launch's grid, in clusters
  // The CTA is in the grid's first cluster (with `rank`: %ctaid and %clusterid evaluate), for
  // checks that compare threads of one CTA, where any CTA of the grid serves.
  bool first_cluster = false;
};

// The value of `e` (bools as 0/1), or nullopt when it depends on anything the
// environment does not fix (parameters, loads, loop indices, other registers).
std::optional<int64_t> eval_int(const ir::Expr& e, const EvalEnv& env);

// How many threads of CTA `rank` get past every one of `guards` (the
// conditions of the enclosing ifs); nullopt when that cannot be known.
std::optional<uint64_t> threads_running(const ir::Kernel& k, const std::vector<ir::Expr>& guards, unsigned rank);

// The conjuncts that must all hold for `e` (negated: for !e): a && b, !(a || b), !!a,
// each with whether it is negated.
void conjuncts(const ir::Expr& e, bool negated, std::vector<std::pair<ir::Expr, bool>>& out);

}  // namespace tj::codegen
