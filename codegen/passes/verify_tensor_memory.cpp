#include "codegen/passes/verify_tensor_memory.h"

#include <string>

#include "codegen/mma/tcgen05.h"
#include "codegen/op_table.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {

using namespace tj::ir;

namespace {

std::string group_text(unsigned g) { return "cta_group::" + std::to_string(g); }

}  // namespace

std::vector<Diagnostic> verify_tensor_memory(const Kernel& k, const Target& t) {
  // Every tcgen05 op with its CTA group: the tensor-memory ops, the MMA commits and, where
  // the target lowers tile MMAs to tcgen05, the MMAs (wgmma's own check refuses mma_pair).
  struct Use {
    Loc loc;
    std::string name;
    unsigned group;
    bool commit;
  };
  struct Ops : Visitor {
    std::vector<const TmemOp*> found;
    std::vector<Use> uses;
    void visit_node(const TmemOp& n) override {
      found.push_back(&n);
      uses.push_back({n.loc, std::string(tmem_action_name(n.action)), n.cta_group, false});
    }
    void visit_node(const MbarrierArrive& n) override {
      if (n.commit_group) uses.push_back({n.loc, n.mask ? "mma_commit_multicast" : "mma_commit", n.commit_group, true});
      Visitor::visit_node(n);
    }
    void visit_node(const Mma& n) override {
      mmas.push_back({n.loc, n.cta_group == 2 ? "mma_pair" : "mma", n.cta_group, false});
      Visitor::visit_node(n);
    }
    std::vector<Use> mmas;
  } ops;
  ops.visit(k.body);
  if (supports(t, Op::TensorMemoryOp)) ops.uses.insert(ops.uses.end(), ops.mmas.begin(), ops.mmas.end());
  std::vector<Diagnostic> out;
  if (ops.uses.empty()) return out;
  if (!supports(t, Op::TensorMemoryOp)) {
    for (const Use& u : ops.uses)
      out.push_back({u.loc,
                     u.name + " is " + std::string(feature_name(missing_feature(t, Op::TensorMemoryOp))) +
                         (u.commit ? " (tcgen05.commit)" : " (tensor memory)") + ", which " + t.arch + " lacks",
                     u.commit ? "on " + t.arch + " MMAs complete through mma_wait(n) (wgmma groups), and a stage goes back "
                                "with arrive after it; or compile for " + supporting_targets_text(Op::TensorMemoryOp)
                              : "on " + t.arch + " accumulators live in registers: declare them with k.accumulator(...) and use mma() "
                                "(wgmma), with nothing to allocate; or compile for " + supporting_targets_text(Op::TensorMemoryOp)});
    return out;
  }
  const Use& first = ops.uses.front();
  for (const Use& u : ops.uses)
    if (u.group != first.group) {
      out.push_back({u.loc,
                     "the " + u.name + " at " + u.loc.str() + " uses " + group_text(u.group) + ", but the " + first.name + " at " +
                         first.loc.str() + " uses " + group_text(first.group) + ": a kernel works with one CTA group",
                     "use CtaGroup::" + std::string(first.group == 1 ? "One" : "Two") +
                         " for every tcgen05 op (or the other group for all of them)"});
      return out;
    }
  const unsigned ctas = k.cluster.x * k.cluster.y * k.cluster.z;
  if (first.group == 2 && ctas % 2 != 0)
    out.push_back({first.loc,
                   "cta_group::2 works on the CTA pairs of a cluster, and this kernel's cluster (" + std::to_string(k.cluster.x) +
                       "x" + std::to_string(k.cluster.y) + "x" + std::to_string(k.cluster.z) + ", " + std::to_string(ctas) +
                       (ctas == 1 ? " CTA" : " CTAs") + ") has none",
                   "give the kernel a cluster of an even number of CTAs (2x1x1 for one pair), or use CtaGroup::One"});
  // The accumulators' block (allocated by insert_tensor_memory), then the kernel's own.
  const mma::TmemPlan plan = mma::tmem_plan(k);
  if (plan.used > 512) {
    const AccumulatorDecl* last = nullptr;
    for (const AccumulatorDecl& a : k.accumulators)
      if (a.kind == FragmentKind::Tile) last = &a;
    out.push_back({last->loc,
                   "the accumulators take " + std::to_string(plan.used) + " columns of tensor memory together: a CTA has 512",
                   "use fewer or narrower accumulators (at most 512 columns in all)"});
    return out;
  }
  unsigned columns = plan.columns;
  for (const TmemOp* n : ops.found) {
    if (n->action != TmemAction::Alloc) continue;
    columns += n->columns;
    if (columns > 512) {
      out.push_back({n->loc,
                     "with the tmem_alloc at " + n->loc.str() + " the kernel allocates " + std::to_string(columns) +
                         " columns of tensor memory (each tmem_alloc counted once" +
                         (plan.columns ? ", and " + std::to_string(plan.columns) + " for the accumulators" : std::string()) +
                         "): a CTA has 512",
                     "allocate fewer columns, or one allocation that the accumulators share"});
      break;
    }
  }
  return out;
}

}  // namespace tj::codegen
