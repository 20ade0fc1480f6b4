// A tile schedule: how the work units of a for_each_tile are handed to CTAs.
//
// A unit is (cluster tile, split) of the tiles_m x tiles_n grid padded to whole clusters,
// with `splits` units per cluster tile (1 without split-K); lower_schedules computes the
// unit space once and asks the kernel's schedule for the rest:
//  - walk: this CTA's units, as the first unit, the stride to the next, and the end
//    (a counted loop; a schedule whose next unit is data adds its loop form here);
//  - decode: a unit into the CTA's tile row and column (and split) that the body sees.
// One file per schedule (static_persistent.cpp); schedule_for picks it from the IR's
// ScheduleKind. A new schedule is a new file and one line there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen::schedules {

// One for_each_tile being lowered, and the locals lower_schedules has declared for it.
struct UnitSpace {
  const ir::ForEachTile& node;
  const ir::Kernel& kernel;
  const Target& target;
  std::string prefix;          // unique prefix of the locals this lowering declares
  ir::Expr cluster_rows;       // cluster tiles along M: ceil(tiles_m / cluster_dim_y)
  ir::Expr cluster_cols;       // along N
  ir::Expr cluster_tiles;      // rows x cols
  ir::Expr splits;             // null without split-K
  ir::Expr units;              // cluster_tiles x splits

  // A local `prefix + name` of type i32, declared by `into` with `value`.
  ir::Expr let(std::vector<ir::Stmt>& into, const std::string& name, ir::Expr value) const;
  ir::Expr local(const std::string& name) const;  // a reference to it
  bool clustered() const { return kernel.cluster.count() > 1; }
};

// This CTA's units: first, first + stride, ... while below end.
struct UnitWalk {
  ir::Expr first, end, stride;
};

class Schedule {
 public:
  virtual ~Schedule() = default;
  virtual std::string_view name() const = 0;
  // The walk, with the locals it needs declared into `prologue` (before the loop).
  virtual UnitWalk walk(const UnitSpace& s, std::vector<ir::Stmt>& prologue) const = 0;
  // Declares the body's tile row (node.var_m), column (node.var_n) and, with split-K,
  // split (node.var_split) of `unit` into `into`.
  virtual void decode(const UnitSpace& s, const ir::Expr& unit, std::vector<ir::Stmt>& into) const = 0;
};

const Schedule& schedule_for(ir::ScheduleKind kind);

}  // namespace tj::codegen::schedules
