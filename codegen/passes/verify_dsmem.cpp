#include "codegen/passes/verify_dsmem.h"

#include <set>

#include "codegen/op_table.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

std::string describe(const ir::Expr& buf) {
  if (auto* v = buf->as<ir::VarRef>()) return "'" + v->name + "' (" + buf->type.str() + ")";
  return "'" + ir::to_string(buf) + "' (" + buf->type.str() + ")";
}

class DsmemChecker : public ir::Visitor {
 public:
  DsmemChecker(const ir::Kernel& k, const Target& t, std::vector<Diagnostic>& out) : k_(k), t_(t), out_(out) {}

  void visit_node(const ir::MapSharedRank& n) override {
    if (!seen_.insert(&n).second) return;  // one node can be reached from several uses
    if (!supports(t_, Op::MapSharedRankOp)) {
      out_.push_back({n.loc, "map_shared_rank needs " + std::string(feature_name(missing_feature(t_, Op::MapSharedRankOp))) +
                                 ", which " + t_.arch + " lacks",
                      "compile for sm_90a or sm_100a"});
    }
    if (n.buffer->type.space != ir::Space::Shared) {
      std::string why = n.buffer->type.space == ir::Space::Cluster
                            ? "it is already a peer's shared memory"
                            : "it is " + std::string(ir::space_name(n.buffer->type.space)) + " memory";
      out_.push_back({n.loc, "map_shared_rank needs a shared buffer, but " + describe(n.buffer) + " is not: " + why,
                      "pass a buffer declared with shared<T>() or dynamic_shared<T>()"});
    }
    const unsigned size = k_.cluster.count();
    if (auto r = ir::const_int(n.rank); size > 0 && r && (*r < 0 || *r >= int64_t(size))) {
      out_.push_back({n.loc,
                      "map_shared_rank names CTA rank " + std::to_string(*r) + ", outside the cluster of " +
                          std::to_string(size) + " CTA" + (size == 1 ? "" : "s") + " (ranks 0.." +
                          std::to_string(size - 1) + ")",
                      "use a rank below " + std::to_string(size) + ", e.g. (cluster_ctarank() + 1) % cluster_nctarank()"});
    }
    ir::Visitor::visit_node(n);
  }

 private:
  const ir::Kernel& k_;
  const Target& t_;
  std::vector<Diagnostic>& out_;
  std::set<const ir::MapSharedRank*> seen_;
};

}  // namespace

std::vector<Diagnostic> verify_dsmem(const ir::Kernel& k, const Target& t) {
  std::vector<Diagnostic> out;
  DsmemChecker checker(k, t, out);
  checker.visit(k.body);
  return out;
}

}  // namespace tj::codegen
