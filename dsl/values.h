// Typed DSL values. Val<T> is an expression of scalar type T; arithmetic and
// comparison operators build IR. Var<T> is a mutable local, Ptr<T> a buffer
// (global, shared, or a peer's shared memory), Ref<T> one element of a buffer.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <type_traits>

#include "dsl/ir/ir.h"

namespace tj::dsl {

// The DSL's bfloat16 element type (a tag: there is no host arithmetic on it).
struct bf16 {};
// The DSL's IEEE half element type (a tag, like bf16).
struct f16 {};
// Four u32 lanes moved as one 16-byte access (host layout: four uint32_t).
struct u32x4_t {
  uint32_t x, y, z, w;
};

// Packed types (host layouts; lane x at the lowest address): two bf16 or f16 as
// their bits, two or four f32. Moved as one 4-, 8- or 16-byte access.
struct alignas(4) bf16x2_t {
  uint16_t x, y;
};
struct alignas(4) f16x2_t {
  uint16_t x, y;
};
struct alignas(8) f32x2_t {
  float x, y;
};
struct alignas(16) f32x4_t {
  float x, y, z, w;
};

template <class T> struct scalar_of;
template <> struct scalar_of<int32_t> { static constexpr ir::Scalar value = ir::Scalar::I32; };
template <> struct scalar_of<uint32_t> { static constexpr ir::Scalar value = ir::Scalar::U32; };
template <> struct scalar_of<int64_t> { static constexpr ir::Scalar value = ir::Scalar::I64; };
template <> struct scalar_of<uint64_t> { static constexpr ir::Scalar value = ir::Scalar::U64; };
template <> struct scalar_of<float> { static constexpr ir::Scalar value = ir::Scalar::F32; };
template <> struct scalar_of<bf16> { static constexpr ir::Scalar value = ir::Scalar::BF16; };
template <> struct scalar_of<f16> { static constexpr ir::Scalar value = ir::Scalar::F16; };
template <> struct scalar_of<bool> { static constexpr ir::Scalar value = ir::Scalar::Bool; };
template <> struct scalar_of<u32x4_t> { static constexpr ir::Scalar value = ir::Scalar::U32x4; };
template <> struct scalar_of<uint8_t> { static constexpr ir::Scalar value = ir::Scalar::U8; };
template <> struct scalar_of<bf16x2_t> { static constexpr ir::Scalar value = ir::Scalar::BF16x2; };
template <> struct scalar_of<f16x2_t> { static constexpr ir::Scalar value = ir::Scalar::F16x2; };
template <> struct scalar_of<f32x2_t> { static constexpr ir::Scalar value = ir::Scalar::F32x2; };
template <> struct scalar_of<f32x4_t> { static constexpr ir::Scalar value = ir::Scalar::F32x4; };
// An mbarrier in shared memory (declare with KernelBuilder::mbarriers).
struct mbarrier_t {};
template <> struct scalar_of<mbarrier_t> { static constexpr ir::Scalar value = ir::Scalar::MBarrier; };
// A TMA tensor map parameter (declare with KernelBuilder::tensor_map).
struct tensor_map_t {};
template <> struct scalar_of<tensor_map_t> { static constexpr ir::Scalar value = ir::Scalar::TensorMap; };

template <class T>
concept DslScalar = requires { scalar_of<T>::value; };
template <class T>
concept StorageOnly = std::is_same_v<T, bf16> || std::is_same_v<T, f16> || std::is_same_v<T, u32x4_t> || std::is_same_v<T, uint8_t> ||
                      std::is_same_v<T, mbarrier_t> || std::is_same_v<T, tensor_map_t> || std::is_same_v<T, bf16x2_t> ||
                      std::is_same_v<T, f16x2_t> || std::is_same_v<T, f32x2_t> || std::is_same_v<T, f32x4_t>;
template <class T>
concept Arithmetic = DslScalar<T> && !std::is_same_v<T, bool> && !StorageOnly<T>;
// Types with host literals (no storage-only types).
template <class T>
concept HasLiteral = DslScalar<T> && !StorageOnly<T>;
template <class T>
concept Integral = Arithmetic<T> && std::is_integral_v<T>;

// The innermost DSL body being built (0: the kernel's own, or none); and the check that
// a value assigned there was made there (defined in builder.cpp).
uint64_t current_scope();
void check_rebind(uint64_t home);

template <DslScalar T>
class Val {
 public:
  explicit Val(ir::Expr e) : e_(std::move(e)) {}
  // A literal of T. Not for bf16: write cast<bf16>(1.0f).
  Val(T literal) requires HasLiteral<T> : e_(make_literal(literal)) {}
  // A copy lives in the body where it is made. Assigning a Val records nothing, so a Val
  // made outside an if_ or loop body must not be assigned inside it (use var()): refused.
  Val(const Val& o) : e_(o.e_) {}
  Val& operator=(const Val& o) {
    check_rebind(scope_);
    e_ = o.e_;
    return *this;
  }

  const ir::Expr& expr() const { return e_; }

#define TJ_ARITH(op, Op)                                                                  \
  friend Val operator op(const Val& a, const Val& b) requires Arithmetic<T> {             \
    return Val(ir::Binary::make(ir::BinOp::Op, a.e_, b.e_));                              \
  }
  TJ_ARITH(+, Add)
  TJ_ARITH(-, Sub)
  TJ_ARITH(*, Mul)
  TJ_ARITH(/, Div)
#undef TJ_ARITH
#define TJ_INT(op, Op)                                                                    \
  friend Val operator op(const Val& a, const Val& b) requires Integral<T> {               \
    return Val(ir::Binary::make(ir::BinOp::Op, a.e_, b.e_));                              \
  }
  TJ_INT(%, Mod)
  TJ_INT(&, BitAnd)
  TJ_INT(|, BitOr)
  TJ_INT(^, BitXor)
  TJ_INT(<<, Shl)
  TJ_INT(>>, Shr)
#undef TJ_INT
#define TJ_CMP(op, Op)                                                                    \
  friend Val<bool> operator op(const Val& a, const Val& b) requires HasLiteral<T> { \
    return Val<bool>(ir::Binary::make(ir::BinOp::Op, a.e_, b.e_));                        \
  }
  TJ_CMP(<, Lt)
  TJ_CMP(<=, Le)
  TJ_CMP(>, Gt)
  TJ_CMP(>=, Ge)
  TJ_CMP(==, Eq)
  TJ_CMP(!=, Ne)
#undef TJ_CMP
  friend Val operator&&(const Val& a, const Val& b) requires std::is_same_v<T, bool> {
    return Val(ir::Binary::make(ir::BinOp::And, a.e_, b.e_));
  }
  friend Val operator||(const Val& a, const Val& b) requires std::is_same_v<T, bool> {
    return Val(ir::Binary::make(ir::BinOp::Or, a.e_, b.e_));
  }
  friend Val operator!(const Val& a) requires std::is_same_v<T, bool> { return Val(ir::Unary::make(ir::UnOp::Not, a.e_)); }
  friend Val operator-(const Val& a) requires Arithmetic<T> { return Val(ir::Unary::make(ir::UnOp::Neg, a.e_)); }
  friend Val operator~(const Val& a) requires Integral<T> { return Val(ir::Unary::make(ir::UnOp::BitNot, a.e_)); }

 private:
  static ir::Expr make_literal(T v) {
    if constexpr (std::is_same_v<T, bool>) return ir::BoolImm::make(v);
    else if constexpr (std::is_floating_point_v<T>) return ir::FloatImm::make(scalar_of<T>::value, v);
    else return ir::IntImm::make(scalar_of<T>::value, static_cast<int64_t>(v));
  }
  ir::Expr e_;
  uint64_t scope_ = current_scope();
};

using i32 = Val<int32_t>;
using u32 = Val<uint32_t>;
using i64 = Val<int64_t>;
using u64 = Val<uint64_t>;
using f32 = Val<float>;
using bf16v = Val<bf16>;
using boolean = Val<bool>;
using u32x4 = Val<u32x4_t>;
using bf16x2 = Val<bf16x2_t>;
using f16x2 = Val<f16x2_t>;
using f32x2 = Val<f32x2_t>;
using f32x4 = Val<f32x4_t>;

// An array index, remembering where in the user's code it was written (the
// default argument is evaluated at the user's call site).
struct Index {
  ir::Expr expr;
  ir::Loc loc;
  Index(const Val<int32_t>& v, std::source_location l = std::source_location::current())
      : expr(v.expr()), loc(ir::Loc::from(l)) {}
  Index(const Val<uint32_t>& v, std::source_location l = std::source_location::current())
      : expr(v.expr()), loc(ir::Loc::from(l)) {}
  Index(const Val<int64_t>& v, std::source_location l = std::source_location::current())
      : expr(v.expr()), loc(ir::Loc::from(l)) {}
  Index(int v, std::source_location l = std::source_location::current())
      : expr(ir::IntImm::make(ir::Scalar::I32, v)), loc(ir::Loc::from(l)) {}
};

// A value on the right of an assignment, with the user's line (captured at
// the call site by the default argument of the converting constructor).
template <DslScalar T>
struct Located {
  ir::Expr expr;
  ir::Loc loc;
  Located(const Val<T>& v, std::source_location l = std::source_location::current())
      : expr(v.expr()), loc(ir::Loc::from(l)) {}
  Located(T literal, std::source_location l = std::source_location::current()) requires HasLiteral<T>
      : expr(Val<T>(literal).expr()), loc(ir::Loc::from(l)) {}
};

// Statement sink shared by Var/Ref assignment; defined in builder.cpp.
void append_stmt(ir::Stmt s);

// One element of a buffer. Reads as a value; assigning to it stores.
template <DslScalar T>
class Ref : public Val<T> {
 public:
  Ref(ir::Expr ptr, Index idx)
      : Val<T>(ir::Load::make(ptr, idx.expr, idx.loc)), ptr_(std::move(ptr)), index_(idx.expr), loc_(idx.loc) {}
  Ref(const Ref&) = default;

  const Ref& operator=(const Located<T>& v) const {
    append_stmt(ir::Store::make(ptr_, index_, v.expr, v.loc));
    return *this;
  }
  const Ref& operator=(const Ref& r) const {
    append_stmt(ir::Store::make(ptr_, index_, r.expr(), loc_));
    return *this;
  }

  const ir::Expr& ptr() const { return ptr_; }
  const ir::Expr& index() const { return index_; }
  const ir::Loc& loc() const { return loc_; }

 private:
  ir::Expr ptr_, index_;
  ir::Loc loc_;
};

// `p` as a pointer to `to` (Ptr::as); only global pointers (dsl/scalar.cpp).
ir::Expr reinterpret_pointer(const ir::Expr& p, ir::Scalar to, const std::source_location& loc);

// A pointer to elements of T in global memory, this CTA's shared memory, or a
// peer CTA's shared memory (from map_shared_rank).
template <DslScalar T>
class Ptr {
 public:
  explicit Ptr(ir::Expr e) : e_(std::move(e)) {}
  Ref<T> operator[](Index i) const { return Ref<T>(e_, std::move(i)); }
  // This global buffer seen as elements of U, indexed in U's units: as<f32x4_t>()[i]
  // moves 16 bytes at once (the address must be aligned to sizeof(U)).
  template <DslScalar U>
  Ptr<U> as(std::source_location loc = std::source_location::current()) const {
    return Ptr<U>(reinterpret_pointer(e_, scalar_of<U>::value, loc));
  }
  const ir::Expr& expr() const { return e_; }
  ir::Space space() const { return e_->type.space; }

 private:
  ir::Expr e_;
};

// A mutable local variable. Reads as its current value; assigning records an
// assignment statement.
template <DslScalar T>
class Var : public Val<T> {
 public:
  explicit Var(ir::Expr ref) : Val<T>(std::move(ref)) {}
  Var(const Var&) = default;
  const Var& operator=(const Located<T>& v) const {
    append_stmt(ir::Assign::make(this->expr(), v.expr, v.loc));
    return *this;
  }
  const Var& operator=(const Var& v) const {
    append_stmt(ir::Assign::make(this->expr(), v.expr(), {}));
    return *this;
  }
};

}  // namespace tj::dsl
