#include "codegen/passes/insert_grid_dependency.h"

namespace tj::codegen {

using namespace tj::ir;

Kernel insert_grid_dependency(const Kernel& k) {
  if (!k.dependent_launch) return k;
  std::vector<Stmt> body = {Fence::make(FenceKind::GridDependencyWait, k.loc), Fence::make(FenceKind::LaunchDependents, k.loc)};
  if (const Block* old = k.body->as<Block>()) body.insert(body.end(), old->body.begin(), old->body.end());
  else body.push_back(k.body);
  Kernel out = k;
  out.body = Block::make(std::move(body), k.body->loc);
  return out;
}

}  // namespace tj::codegen
