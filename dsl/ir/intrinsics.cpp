// ir::Intrinsic: the op table's queries and the typing rules make() checks.
#include "dsl/ir/ir.h"

namespace tj::ir {
namespace {

struct Row {
  std::string_view name, wrapper;
  unsigned arity;
  IntrinsicRule rule;
};

const Row& row(IntrinsicOp op) {
  static const Row rows[] = {
#define TJ_INTRINSIC(Enum, name, arity, rule, wrapper) {name, wrapper, arity, IntrinsicRule::rule},
#include "dsl/ir/intrinsics.def"
  };
  const size_t i = static_cast<size_t>(op);
  if (i >= std::size(rows)) internal_error("intrinsic: op out of range");
  return rows[i];
}

void require(bool ok, IntrinsicOp op, const std::string& what) {
  if (!ok) internal_error("Intrinsic::make(" + std::string(row(op).name) + "): " + what);
}

bool is_32bit_value(Scalar s) { return scalar_bytes(s) == 4 && !is_opaque(s) && s != Scalar::Bool; }

// The result type of `op` over `args`, checking the operands.
Type result_type(IntrinsicOp op, const std::vector<Expr>& args, Scalar to) {
  if (row(op).rule == IntrinsicRule::Clock) return Type::of(op == IntrinsicOp::GlobalTimer ? Scalar::U64 : Scalar::U32);
  if (row(op).rule == IntrinsicRule::Leader) {
    if (op == IntrinsicOp::WarpLeaderOf)
      require(!args[0]->type.is_pointer() && args[0]->type.scalar == Scalar::U32, op, "the lane mask must be u32, got " + args[0]->type.str());
    return Type::of(op == IntrinsicOp::WarpActive ? Scalar::U32 : Scalar::Bool);
  }
  const Scalar a = args[0]->type.scalar;  // every other rule takes operands
  auto value = [&](size_t i, Scalar s) {
    require(!args[i]->type.is_pointer() && args[i]->type.scalar == s, op,
            "operand " + std::to_string(i) + " must be " + std::string(scalar_name(s)) + ", got " + args[i]->type.str());
  };
  switch (row(op).rule) {
    case IntrinsicRule::F32Math:
      for (size_t i = 0; i < args.size(); ++i) value(i, Scalar::F32);
      return Type::of(Scalar::F32);
    case IntrinsicRule::Abs:
      require(!args[0]->type.is_pointer() && (a == Scalar::F32 || a == Scalar::I32 || a == Scalar::I64), op,
              "abs of " + args[0]->type.str());
      return args[0]->type;
    case IntrinsicRule::Bitcast:
      require(!args[0]->type.is_pointer() && !is_opaque(a) && a != Scalar::Bool && !is_opaque(to) && to != Scalar::Bool, op,
              "bitcast between " + args[0]->type.str() + " and " + std::string(scalar_name(to)));
      require(scalar_bytes(a) == scalar_bytes(to), op, "sizes differ");
      return Type::of(to);
    case IntrinsicRule::CvtPack:
      value(0, Scalar::F32);
      value(1, Scalar::F32);
      require(to == Scalar::BF16x2 || to == Scalar::F16x2, op, "packs into bf16x2 or f16x2");
      return Type::of(to);
    case IntrinsicRule::Reinterpret:
      require(args[0]->type.space == Space::Global, op, "reinterprets global pointers only");
      require(!is_opaque(to) && to != Scalar::Bool, op, "to an opaque type");
      return Type::pointer(to, Space::Global);
    case IntrinsicRule::Shuffle:
      require(!args[0]->type.is_pointer() && is_32bit_value(a), op, "shuffles 32-bit values, got " + args[0]->type.str());
      value(1, Scalar::I32);
      value(2, Scalar::U32);
      value(3, Scalar::I32);
      return args[0]->type;
    case IntrinsicRule::ClcQuery:
      value(0, Scalar::U32x4);
      return Type::of(op == IntrinsicOp::ClcIsCanceled ? Scalar::Bool : Scalar::I32);
    case IntrinsicRule::WarpReduce:
      require(!args[0]->type.is_pointer() && (a == Scalar::F32 || a == Scalar::I32 || a == Scalar::U32), op,
              "reduces f32, i32 or u32, got " + args[0]->type.str());
      value(1, Scalar::U32);
      return args[0]->type;
    case IntrinsicRule::Clock:
    case IntrinsicRule::Leader: break;  // no operands: typed above
  }
  internal_error("intrinsic: bad rule");
}

}  // namespace

std::string_view intrinsic_name(IntrinsicOp op) { return row(op).name; }
std::string_view intrinsic_wrapper(IntrinsicOp op) { return row(op).wrapper; }
IntrinsicRule intrinsic_rule(IntrinsicOp op) { return row(op).rule; }
unsigned intrinsic_arity(IntrinsicOp op) { return row(op).arity; }
bool intrinsic_is_warp_op(IntrinsicOp op) {
  return row(op).rule == IntrinsicRule::Shuffle || row(op).rule == IntrinsicRule::WarpReduce;
}

Expr Intrinsic::make(IntrinsicOp op, std::vector<Expr> args, Loc loc, Scalar to) {
  require(args.size() == row(op).arity, op, "takes " + std::to_string(row(op).arity) + " operands");
  for (const Expr& a : args) require(a != nullptr, op, "null operand");
  Type t = result_type(op, args, to);
  return std::make_shared<Intrinsic>(op, std::move(args), t, std::move(loc));
}

}  // namespace tj::ir
