#include "dsl/launch_control.h"

namespace tj::dsl {

void clc_try_cancel(const Ref<uint32_t>& response, const BarrierRef& bar, bool multicast, SrcLoc loc) {
  KernelBuilder::active(loc).append(
      ir::ClcTryCancel::make(response.ptr(), response.index(), bar.ptr(), bar.index(), multicast, ir::Loc::from(loc)));
}

boolean clc_is_canceled(const u32x4& answer, SrcLoc loc) {
  return boolean(ir::Intrinsic::make(ir::IntrinsicOp::ClcIsCanceled, {answer.expr()}, ir::Loc::from(loc)));
}

i32 clc_first_ctaid_x(const u32x4& answer, SrcLoc loc) {
  return i32(ir::Intrinsic::make(ir::IntrinsicOp::ClcFirstCtaidX, {answer.expr()}, ir::Loc::from(loc)));
}

}  // namespace tj::dsl
