// The names of the IR's enums and node kinds: what the printer, the diagnostics and the
// emitter spell them as.
#include "dsl/ir/ir.h"

namespace tj::ir {

std::string_view kind_name(ExprKind k) {
  switch (k) {
#define TJ_EXPR(Name) \
  case ExprKind::Name: return #Name;
#include "dsl/ir/node_kinds.def"
  }
  return "?";
}

std::string_view kind_name(StmtKind k) {
  switch (k) {
#define TJ_STMT(Name) \
  case StmtKind::Name: return #Name;
#include "dsl/ir/node_kinds.def"
  }
  return "?";
}

std::string_view op_spelling(BinOp op) {
  switch (op) {
#define TJ_BINOP(Enum, spelling, kind) \
  case BinOp::Enum: return spelling;
#include "dsl/ir/ops.def"
  }
  return "?";
}

std::string_view op_spelling(UnOp op) {
  switch (op) {
#define TJ_UNOP(Enum, spelling, kind) \
  case UnOp::Enum: return spelling;
#include "dsl/ir/ops.def"
  }
  return "?";
}

std::string_view sreg_name(SpecialRegKind r) {
  switch (r) {
#define TJ_SREG(Enum, name, ptx, cluster) \
  case SpecialRegKind::Enum: return #name;
#include "dsl/ir/special_regs.def"
  }
  return "?";
}

std::string_view sreg_ptx(SpecialRegKind r) {
  switch (r) {
#define TJ_SREG(Enum, name, ptx, cluster) \
  case SpecialRegKind::Enum: return ptx;
#include "dsl/ir/special_regs.def"
  }
  return "?";
}

bool sreg_needs_cluster(SpecialRegKind r) {
  switch (r) {
#define TJ_SREG(Enum, name, ptx, cluster) \
  case SpecialRegKind::Enum: return cluster;
#include "dsl/ir/special_regs.def"
  }
  return false;
}

std::string_view order_name(MemoryOrder m) {
  switch (m) {
    case MemoryOrder::Default: return "default";
    case MemoryOrder::Relaxed: return "relaxed";
    case MemoryOrder::Release: return "release";
    case MemoryOrder::Acquire: return "acquire";
    case MemoryOrder::AcqRel: return "acq_rel";
  }
  return "?";
}

std::string_view scope_name(MemoryScope s) {
  switch (s) {
    case MemoryScope::Cta: return "cta";
    case MemoryScope::Cluster: return "cluster";
    case MemoryScope::Gpu: return "gpu";
  }
  return "?";
}

std::string_view fence_name(FenceKind f) {
  switch (f) {
    case FenceKind::MbarrierInit: return "fence_mbarrier_init";
    case FenceKind::ProxyAsyncShared: return "fence_proxy_async";
    case FenceKind::Tcgen05BeforeSync: return "tcgen05_fence_before_sync";
    case FenceKind::Tcgen05AfterSync: return "tcgen05_fence_after_sync";
    case FenceKind::GridDependencyWait: return "grid_dependency_wait";
    case FenceKind::LaunchDependents: return "launch_dependents";
  }
  return "?";
}

std::string_view reduce_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
  }
  return "?";
}

const char* acc_partial_name(AccPartialOp op) {
  switch (op) {
    case AccPartialOp::Store: return "store_accumulator_partial";
    case AccPartialOp::Add: return "add_accumulator_partial";
    case AccPartialOp::Send: return "send_accumulator_partial";
    case AccPartialOp::Reduce: return "reduce_accumulator_partial";
    case AccPartialOp::Take: return "take_accumulator_partial";
  }
  return "accumulator_partial";
}

std::string_view tmem_action_name(TmemAction a) {
  switch (a) {
    case TmemAction::Alloc: return "tmem_alloc";
    case TmemAction::Relinquish: return "tmem_relinquish";
    case TmemAction::Dealloc: return "tmem_dealloc";
  }
  return "?";
}

std::string_view schedule_name(ScheduleKind k) {
  switch (k) {
    case ScheduleKind::StaticPersistent: return "static_persistent";
    case ScheduleKind::Dynamic: return "dynamic";
  }
  return "?";
}

std::string_view order_name(UnitOrder o) {
  switch (o) {
    case UnitOrder::Rasterized: return "rasterized";
    case UnitOrder::LongestRowsFirst: return "longest rows first";
  }
  return "?";
}

}  // namespace tj::ir
