#include "codegen/passes/verify_tensor_memory.h"

#include <string>

#include "codegen/op_table.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {

using namespace tj::ir;

namespace {

std::string group_text(unsigned g) { return "cta_group::" + std::to_string(g); }

}  // namespace

std::vector<Diagnostic> verify_tensor_memory(const Kernel& k, const Target& t) {
  struct Ops : Visitor {
    std::vector<const TmemOp*> found;
    void visit_node(const TmemOp& n) override { found.push_back(&n); }
  } ops;
  ops.visit(k.body);
  std::vector<Diagnostic> out;
  if (ops.found.empty()) return out;
  if (!supports(t, Op::TensorMemoryOp)) {
    for (const TmemOp* n : ops.found)
      out.push_back({n->loc,
                     std::string(tmem_action_name(n->action)) + " is " + std::string(feature_name(missing_feature(t, Op::TensorMemoryOp))) +
                         " (tensor memory), which " + t.arch + " lacks",
                     "on " + t.arch + " accumulators live in registers: declare them with k.accumulator(...) and use mma() "
                     "(wgmma), with nothing to allocate; or compile for " + supporting_targets_text(Op::TensorMemoryOp)});
    return out;
  }
  const TmemOp& first = *ops.found.front();
  for (const TmemOp* n : ops.found)
    if (n->cta_group != first.cta_group) {
      out.push_back({n->loc,
                     "the " + std::string(tmem_action_name(n->action)) + " at " + n->loc.str() + " uses " + group_text(n->cta_group) +
                         ", but the " + std::string(tmem_action_name(first.action)) + " at " + first.loc.str() + " uses " +
                         group_text(first.cta_group) + ": a kernel works with one CTA group",
                     "use CtaGroup::" + std::string(first.cta_group == 1 ? "One" : "Two") +
                         " for every tensor-memory op (or the other group for all of them)"});
      return out;
    }
  const unsigned ctas = k.cluster.x * k.cluster.y * k.cluster.z;
  if (first.cta_group == 2 && ctas % 2 != 0)
    out.push_back({first.loc,
                   "cta_group::2 works on the CTA pairs of a cluster, and this kernel's cluster (" + std::to_string(k.cluster.x) +
                       "x" + std::to_string(k.cluster.y) + "x" + std::to_string(k.cluster.z) + ", " + std::to_string(ctas) +
                       (ctas == 1 ? " CTA" : " CTAs") + ") has none",
                   "give the kernel a cluster of an even number of CTAs (2x1x1 for one pair), or use CtaGroup::One"});
  unsigned columns = 0;
  for (const TmemOp* n : ops.found) {
    if (n->action != TmemAction::Alloc) continue;
    columns += n->columns;
    if (columns > 512) {
      out.push_back({n->loc,
                     "with the tmem_alloc at " + n->loc.str() + " the kernel allocates " + std::to_string(columns) +
                         " columns of tensor memory (each tmem_alloc counted once): a CTA has 512",
                     "allocate fewer columns, or one allocation that the accumulators share"});
      break;
    }
  }
  return out;
}

}  // namespace tj::codegen
