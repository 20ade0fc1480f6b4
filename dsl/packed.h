// Bits and packed values: bitcast between types of one size; packed types
// (u32x4, f32x2, f32x4, bf16x2, f16x2) built from lanes, read a lane at a time,
// converted from f32 pairs; Ptr<T>::as<P>() for vector loads and stores.
#pragma once

#include <array>
#include <source_location>

#include "dsl/values.h"

namespace tj::dsl {

// The packed type of N lanes of L, and a packed type's lane type.
template <class L, unsigned N> struct packed_type;
template <> struct packed_type<uint32_t, 4> { using type = u32x4_t; };
template <> struct packed_type<float, 2> { using type = f32x2_t; };
template <> struct packed_type<float, 4> { using type = f32x4_t; };
template <> struct packed_type<bf16, 2> { using type = bf16x2_t; };
template <> struct packed_type<f16, 2> { using type = f16x2_t; };
template <class P> struct lane_type;
template <> struct lane_type<u32x4_t> { using type = uint32_t; static constexpr unsigned lanes = 4; };
template <> struct lane_type<f32x2_t> { using type = float; static constexpr unsigned lanes = 2; };
template <> struct lane_type<f32x4_t> { using type = float; static constexpr unsigned lanes = 4; };
template <> struct lane_type<bf16x2_t> { using type = bf16; static constexpr unsigned lanes = 2; };
template <> struct lane_type<f16x2_t> { using type = f16; static constexpr unsigned lanes = 2; };
template <class P>
concept Packed = requires { lane_type<P>::lanes; };

// Checks of the user's call, reported at `loc` (dsl/scalar.cpp).
ir::Expr make_bitcast(const ir::Expr& v, ir::Scalar to, const std::source_location& loc);
ir::Expr make_lane(const ir::Expr& v, unsigned lane, const std::source_location& loc);

// The bits of v as a To of the same size (f32 <-> u32/i32, bf16x2 <-> u32,
// f32x2 <-> u64, ...); sizes that differ are an error at the caller's line.
template <DslScalar To, DslScalar From>
Val<To> bitcast(const Val<From>& v, std::source_location loc = std::source_location::current()) {
  return Val<To>(make_bitcast(v.expr(), scalar_of<To>::value, loc));
}

// A packed value from its lanes: pack(a, b) of f32 is an f32x2, of bf16 a bf16x2;
// pack(a, b, c, d) of f32 an f32x4, of u32 a u32x4. Lane x is `a`.
template <DslScalar L>
Val<typename packed_type<L, 2>::type> pack(const Val<L>& a, const std::type_identity_t<Val<L>>& b,
                                           std::source_location loc = std::source_location::current()) {
  return Val<typename packed_type<L, 2>::type>(ir::VectorPack::make({a.expr(), b.expr()}, ir::Loc::from(loc)));
}
template <DslScalar L>
Val<typename packed_type<L, 4>::type> pack(const Val<L>& a, const std::type_identity_t<Val<L>>& b,
                                           const std::type_identity_t<Val<L>>& c, const std::type_identity_t<Val<L>>& d,
                                           std::source_location loc = std::source_location::current()) {
  return Val<typename packed_type<L, 4>::type>(
      ir::VectorPack::make({a.expr(), b.expr(), c.expr(), d.expr()}, ir::Loc::from(loc)));
}
// Four u32 lanes as one u32x4 (the same as pack(x, y, z, w)).
inline u32x4 pack_u32x4(const u32& x, const u32& y, const u32& z, const u32& w) { return pack(x, y, z, w); }

// Lane i (0 = x) of a packed value; a lane past the last is an error at the caller's line.
template <Packed P>
Val<typename lane_type<P>::type> lane(const Val<P>& v, unsigned i, std::source_location loc = std::source_location::current()) {
  return Val<typename lane_type<P>::type>(make_lane(v.expr(), i, loc));
}

// Two f32 rounded to nearest into a bf16x2 or f16x2 (cvt.rn.bf16x2.f32): lo in lane x.
template <class P>
  requires std::is_same_v<P, bf16x2_t> || std::is_same_v<P, f16x2_t>
Val<P> cvt_pack(const f32& lo, const f32& hi, std::source_location loc = std::source_location::current()) {
  return Val<P>(ir::Intrinsic::make(ir::IntrinsicOp::CvtPack, {lo.expr(), hi.expr()}, ir::Loc::from(loc), scalar_of<P>::value));
}
// A bf16x2 or f16x2 back to two f32 (exact): {lane x, lane y}.
template <class P>
  requires std::is_same_v<P, bf16x2_t> || std::is_same_v<P, f16x2_t>
std::array<f32, 2> cvt_unpack(const Val<P>& v, std::source_location loc = std::source_location::current()) {
  return {f32(ir::Cast::make(ir::Scalar::F32, make_lane(v.expr(), 0, loc), ir::Loc::from(loc))),
          f32(ir::Cast::make(ir::Scalar::F32, make_lane(v.expr(), 1, loc), ir::Loc::from(loc)))};
}

}  // namespace tj::dsl
