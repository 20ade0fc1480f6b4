#include "codegen/schedules/static_persistent.h"

namespace tj::codegen::schedules {
namespace {

using namespace tj::ir;

Expr reg(SpecialRegKind r) { return SpecialReg::make(r); }

class StaticPersistent final : public Schedule {
 public:
  std::string_view name() const override { return "static_persistent"; }

  UnitWalk walk(const UnitSpace& s, std::vector<Stmt>& prologue) const override {
    declare_grouping(s, prologue);
    if (s.clustered()) return {reg(SpecialRegKind::ClusterIdX), s.units, reg(SpecialRegKind::NumClustersX)};
    return {reg(SpecialRegKind::BlockIdxX), s.units, reg(SpecialRegKind::GridDimX)};
  }

  // Grouped rasterization (schedule.h): units in order, `group` cluster rows at a time.
  void decode(const UnitSpace& s, const Expr& unit, std::vector<Stmt>& into) const override { decode_grouped(s, unit, into); }
};

}  // namespace

const Schedule& static_persistent() {
  static const StaticPersistent schedule;
  return schedule;
}

}  // namespace tj::codegen::schedules
