// The scalar layer's DSL entry points (dsl/math.h, packed.h, warp.h, clock.h): each builds an
// ir::Intrinsic (or a VectorLane), after the checks that name the user's line.
#include <string>

#include "dsl/clock.h"
#include "dsl/diagnostic.h"
#include "dsl/math.h"
#include "dsl/packed.h"
#include "dsl/warp.h"

namespace tj::dsl {
namespace {

using ir::IntrinsicOp;

ir::Expr call(IntrinsicOp op, std::vector<ir::Expr> args, const std::source_location& loc) {
  return ir::Intrinsic::make(op, std::move(args), ir::Loc::from(loc));
}

std::string type_text(ir::Scalar s) { return std::string(ir::scalar_name(s)); }

}  // namespace

#define TJ_DSL_MATH(name, Op) \
  f32 name(const f32& x, std::source_location loc) { return f32(call(IntrinsicOp::Op, {x.expr()}, loc)); }
TJ_DSL_MATH(exp2, Exp2)
TJ_DSL_MATH(exp, Exp)
TJ_DSL_MATH(log2, Log2)
TJ_DSL_MATH(log, Log)
TJ_DSL_MATH(tanh, Tanh)
TJ_DSL_MATH(sin, Sin)
TJ_DSL_MATH(cos, Cos)
TJ_DSL_MATH(sqrt, Sqrt)
TJ_DSL_MATH(rsqrt, Rsqrt)
TJ_DSL_MATH(rcp, Rcp)
namespace approx {
TJ_DSL_MATH(exp2, Exp2Approx)
TJ_DSL_MATH(exp, ExpApprox)
TJ_DSL_MATH(log2, Log2Approx)
TJ_DSL_MATH(log, LogApprox)
TJ_DSL_MATH(tanh, TanhApprox)
TJ_DSL_MATH(sin, SinApprox)
TJ_DSL_MATH(cos, CosApprox)
TJ_DSL_MATH(sqrt, SqrtApprox)
TJ_DSL_MATH(rsqrt, RsqrtApprox)
TJ_DSL_MATH(rcp, RcpApprox)
}  // namespace approx
#undef TJ_DSL_MATH

f32 fma(const f32& a, const f32& b, const f32& c, std::source_location loc) {
  return f32(call(IntrinsicOp::Fma, {a.expr(), b.expr(), c.expr()}, loc));
}
f32 abs(const f32& x, std::source_location loc) { return f32(call(IntrinsicOp::Abs, {x.expr()}, loc)); }
i32 abs(const i32& x, std::source_location loc) { return i32(call(IntrinsicOp::Abs, {x.expr()}, loc)); }
i64 abs(const i64& x, std::source_location loc) { return i64(call(IntrinsicOp::Abs, {x.expr()}, loc)); }

u64 global_timer(std::source_location loc) { return u64(call(IntrinsicOp::GlobalTimer, {}, loc)); }
u32 sm_id(std::source_location loc) { return u32(call(IntrinsicOp::SmId, {}, loc)); }
boolean warp_leader(std::source_location loc) { return boolean(call(IntrinsicOp::WarpLeader, {}, loc)); }

ir::Expr make_bitcast(const ir::Expr& v, ir::Scalar to, const std::source_location& loc) {
  const ir::Scalar from = v->type.scalar;
  const bool storable = [](ir::Scalar s) { return !ir::is_opaque(s) && s != ir::Scalar::Bool; }(from) &&
                        !ir::is_opaque(to) && to != ir::Scalar::Bool;
  if (!storable)
    throw UserError(ir::Loc::from(loc), "bitcast from " + type_text(from) + " to " + type_text(to) + ": bool, mbarrier and tensor_map have no bits to reinterpret",
                    "bitcast between number or packed types");
  if (ir::scalar_bytes(from) != ir::scalar_bytes(to))
    throw UserError(ir::Loc::from(loc),
                    "bitcast from " + type_text(from) + " (" + std::to_string(ir::scalar_bytes(from)) + " bytes) to " +
                        type_text(to) + " (" + std::to_string(ir::scalar_bytes(to)) + " bytes): the sizes differ",
                    "bitcast to a type of the same size, or convert with cast<T>()");
  if (from == to) return v;
  return ir::Intrinsic::make(IntrinsicOp::Bitcast, {v}, ir::Loc::from(loc), to);
}

ir::Expr make_lane(const ir::Expr& v, unsigned lane, const std::source_location& loc) {
  const unsigned lanes = ir::vector_lanes(v->type.scalar);
  if (lane >= lanes)
    throw UserError(ir::Loc::from(loc), "lane " + std::to_string(lane) + " of a " + type_text(v->type.scalar) + ", which has " +
                                            std::to_string(lanes) + " lanes",
                    "use a lane from 0 to " + std::to_string(lanes - 1));
  return ir::VectorLane::make(v, lane, ir::Loc::from(loc));
}

ir::Expr reinterpret_pointer(const ir::Expr& p, ir::Scalar to, const std::source_location& loc) {
  if (p->type.space != ir::Space::Global)
    throw UserError(ir::Loc::from(loc),
                    "as<" + type_text(to) + ">() on a pointer into " + std::string(ir::space_name(p->type.space)) +
                        " memory: only global buffers can be reinterpreted",
                    "declare the shared buffer with the packed element type (k.shared<" + type_text(to) + "_t>(...))");
  if (ir::is_opaque(to) || to == ir::Scalar::Bool || ir::is_opaque(p->type.scalar))
    throw UserError(ir::Loc::from(loc), "as<" + type_text(to) + ">() on a buffer of " + type_text(p->type.scalar),
                    "reinterpret buffers of numbers as numbers or packed types");
  if (p->type.scalar == to) return p;
  return ir::Intrinsic::make(IntrinsicOp::Reinterpret, {p}, ir::Loc::from(loc), to);
}

ir::Expr make_shuffle(IntrinsicOp op, const ir::Expr& v, const ir::Expr& lane, const ir::Expr& mask, unsigned width,
                      const std::source_location& loc) {
  const std::string name(ir::intrinsic_name(op));
  if (width == 0 || width > 32 || (width & (width - 1)) != 0)
    throw UserError(ir::Loc::from(loc), name + " width " + std::to_string(width) + " is not a power of two from 1 to 32",
                    "use a width of 1, 2, 4, 8, 16 or 32 lanes");
  if (std::optional<int64_t> m = ir::const_int(mask); m && *m == 0)
    throw UserError(ir::Loc::from(loc), name + " with an empty lane mask", "name the lanes that take part, e.g. 0xffffffff for the whole warp");
  if (std::optional<int64_t> l = ir::const_int(lane); l && (*l < 0 || *l >= int64_t(width)))
    throw UserError(ir::Loc::from(loc),
                    name + " lane operand " + std::to_string(*l) + " is outside the group of " + std::to_string(width) + " lanes",
                    "use a value from 0 to " + std::to_string(width - 1));
  return call(op, {v, lane, mask, ir::IntImm::make(ir::Scalar::I32, width)}, loc);
}

ir::Expr make_warp_reduce(IntrinsicOp op, const ir::Expr& v, const ir::Expr& mask, const std::source_location& loc) {
  if (std::optional<int64_t> m = ir::const_int(mask); m && *m == 0)
    throw UserError(ir::Loc::from(loc), std::string(ir::intrinsic_name(op)) + " with an empty lane mask",
                    "name the lanes that take part, e.g. 0xffffffff for the whole warp");
  return call(op, {v, mask}, loc);
}

}  // namespace tj::dsl
