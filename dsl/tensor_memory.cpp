#include "dsl/tensor_memory.h"

#include <string>

#include "dsl/builder.h"
#include "dsl/diagnostic.h"

namespace tj::dsl {

namespace {

// A power of two from 32 to 512, or a user error naming the op and the nearest size.
void check_columns(const char* op, unsigned columns, SrcLoc loc) {
  if (columns >= 32 && columns <= 512 && (columns & (columns - 1)) == 0) return;
  unsigned fit = 32;
  while (fit < columns && fit < 512) fit *= 2;
  throw tj::UserError(ir::Loc::from(loc),
                  std::string(op) + " of " + std::to_string(columns) +
                      " columns: tensor memory is allocated in powers of two from 32 to 512 columns",
                  columns > 512 ? "a CTA has 512 columns: split the accumulators over fewer columns, or over a CTA pair (CtaGroup::Two)"
                                : "use " + std::to_string(fit) + " columns");
}

void append(ir::TmemAction action, CtaGroup group, unsigned columns, ir::Expr slot, ir::Expr slot_index, ir::Expr addr, SrcLoc loc) {
  KernelBuilder::active(loc).append(ir::TmemOp::make(action, unsigned(group), columns, std::move(slot), std::move(slot_index),
                                                     std::move(addr), ir::Loc::from(loc)));
}

}  // namespace

void tmem_alloc(const Ref<uint32_t>& slot, unsigned columns, CtaGroup group, SrcLoc loc) {
  check_columns("tmem_alloc", columns, loc);
  append(ir::TmemAction::Alloc, group, columns, slot.ptr(), slot.index(), nullptr, loc);
}

void tmem_relinquish(CtaGroup group, SrcLoc loc) { append(ir::TmemAction::Relinquish, group, 0, nullptr, nullptr, nullptr, loc); }

void mma_commit(const BarrierRef& bar, CtaGroup group, SrcLoc loc) {
  KernelBuilder::active(loc).append(ir::MbarrierArrive::make(bar.ptr(), bar.index(), nullptr, ir::Loc::from(loc),
                                                             ir::MemoryOrder::Relaxed, unsigned(group)));
}

void mma_commit_multicast(const BarrierRef& bar, CtaGroup group, const u32& cta_mask, SrcLoc loc) {
  KernelBuilder::active(loc).append(ir::MbarrierArrive::make(bar.ptr(), bar.index(), nullptr, ir::Loc::from(loc),
                                                             ir::MemoryOrder::Relaxed, unsigned(group), cta_mask.expr()));
}

void tmem_dealloc(const u32& addr, unsigned columns, CtaGroup group, SrcLoc loc) {
  check_columns("tmem_dealloc", columns, loc);
  append(ir::TmemAction::Dealloc, group, columns, nullptr, nullptr, addr.expr(), loc);
}

}  // namespace tj::dsl
