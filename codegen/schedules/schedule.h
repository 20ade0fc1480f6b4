// A tile schedule: how the work units of a for_each_tile are handed to CTAs.
//
// A unit is (cluster tile, split) of the tiles_m x tiles_n grid padded to whole clusters,
// with `splits` units per cluster tile (1 without split-K); lower_schedules computes the
// unit space once and asks the kernel's schedule for the rest:
//  - prepare: once per kernel, what the schedule needs beyond one loop (the shared
//    buffers, barriers and workspace a claimed next unit travels through, the grid);
//  - loop: this CTA's units. By default a counted loop over walk() (the first unit, the
//    stride to the next, the end); a schedule whose next unit is data builds a while
//    loop on a claimed predicate instead (dynamic.cpp);
//  - decode: a unit into the CTA's tile row and column (and split) that the body sees.
// One file per schedule (static_persistent.cpp, dynamic.cpp); schedule_for picks it from
// the IR's ScheduleKind. A new schedule is a new file and one line there.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen::schedules {

// What a schedule decided for a whole kernel in prepare() (the buffers it declared,
// which thread claims), handed back to it for each loop.
struct KernelPlan {
  virtual ~KernelPlan() = default;
};

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
  ir::Expr unit_count;         // the same as an i64 of node's expressions (host-evaluable, no locals)
  const KernelPlan* plan = nullptr;  // what prepare() returned for this kernel

  // A local `prefix + name` of type i32, declared by `into` with `value`.
  ir::Expr let(std::vector<ir::Stmt>& into, const std::string& name, ir::Expr value) const;
  ir::Expr local(const std::string& name) const;  // a reference to it
  bool clustered() const { return kernel.cluster.count() > 1; }
};

// This CTA's units: first, first + stride, ... while below end.
struct UnitWalk {
  ir::Expr first, end, stride;
};

// The statements of one unit (its decode, then the for_each_tile's body).
using UnitBody = std::function<ir::Stmt(const ir::Expr& unit)>;

class Schedule {
 public:
  virtual ~Schedule() = default;
  virtual std::string_view name() const = 0;
  // Once per kernel that uses this schedule, before any of its loops is lowered: may
  // add shared buffers, workspace parameters and the launched grid to `k`; throws
  // UserError naming the user's line when the kernel uses the schedule wrongly.
  virtual std::shared_ptr<const KernelPlan> prepare(ir::Kernel& k, const Target& target) const {
    (void)k, (void)target;
    return nullptr;
  }
  // The walk, with the locals it needs declared into `prologue` (before the loop).
  virtual UnitWalk walk(const UnitSpace& s, std::vector<ir::Stmt>& prologue) const = 0;
  // The loop over this CTA's units, its locals declared into `prologue`: by default
  // for (unit = first; unit < end; unit += stride) body(unit), over walk().
  virtual ir::Stmt loop(const UnitSpace& s, std::vector<ir::Stmt>& prologue, const UnitBody& body) const;
  // Declares the body's tile row (node.var_m), column (node.var_n) and, with split-K,
  // split (node.var_split) of `unit` into `into`.
  virtual void decode(const UnitSpace& s, const ir::Expr& unit, std::vector<ir::Stmt>& into) const = 0;
};

const Schedule& schedule_for(ir::ScheduleKind kind);

// The units of `t`'s space (cluster tiles x splits) as an i64 built from its own tile
// counts and splits, so that the host can evaluate it like a workspace size.
ir::Expr unit_count(const ir::ForEachTile& t, const ir::Kernel& k);

// Grouped rasterization, shared by the schedules: declare_grouping puts the local the
// decode reads into a prologue; decode_grouped declares the tile (and split) of unit u:
// cluster tile u / splits, split u % splits, cluster tiles walked `group` cluster rows
// at a time, rows from the last one up with UnitOrder::LongestRowsFirst.
void declare_grouping(const UnitSpace& s, std::vector<ir::Stmt>& prologue);
void decode_grouped(const UnitSpace& s, const ir::Expr& unit, std::vector<ir::Stmt>& into);

}  // namespace tj::codegen::schedules
