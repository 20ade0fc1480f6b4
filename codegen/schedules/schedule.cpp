#include "codegen/schedules/schedule.h"

#include "codegen/schedules/static_persistent.h"

namespace tj::codegen::schedules {

ir::Expr UnitSpace::let(std::vector<ir::Stmt>& into, const std::string& name, ir::Expr value) const {
  into.push_back(ir::Declare::make(prefix + name, std::move(value), node.loc));
  return local(name);
}

ir::Expr UnitSpace::local(const std::string& name) const {
  return ir::VarRef::make(prefix + name, ir::Type::of(ir::Scalar::I32), node.loc);
}

const Schedule& schedule_for(ir::ScheduleKind kind) {
  switch (kind) {
    case ir::ScheduleKind::StaticPersistent: return static_persistent();
  }
  ir::internal_error("schedule_for: unknown schedule kind");
}

}  // namespace tj::codegen::schedules
