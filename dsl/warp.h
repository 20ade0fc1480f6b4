// Warp shuffles and reductions. Every lane named in `mask` must execute the call,
// with the same mask (they wait for each other: shfl.sync, redux.sync); a lane
// missing from the call hangs the warp or reads undefined values. Results are
// per lane.
#pragma once

#include <source_location>

#include "dsl/values.h"

namespace tj::dsl {

// 32-bit values a shuffle moves, and the types a warp reduction combines.
template <class T>
concept Shuffled = std::is_same_v<T, float> || std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> ||
                   std::is_same_v<T, bf16x2_t> || std::is_same_v<T, f16x2_t>;
template <class T>
concept WarpReduced = std::is_same_v<T, float> || std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t>;

inline constexpr uint32_t kFullWarp = 0xffffffffu;

// The shuffle or reduction `op`, its operands checked at `loc` (dsl/scalar.cpp).
ir::Expr make_shuffle(ir::IntrinsicOp op, const ir::Expr& v, const ir::Expr& lane, const ir::Expr& mask, unsigned width,
                      const std::source_location& loc);
ir::Expr make_warp_reduce(ir::IntrinsicOp op, const ir::Expr& v, const ir::Expr& mask, const std::source_location& loc);

// v from lane (this lane ^ lane_mask) of this lane's group of `width` lanes (shfl.sync.bfly).
template <Shuffled T>
Val<T> shfl_xor(const Val<T>& v, const i32& lane_mask, const u32& mask = kFullWarp, unsigned width = 32,
                std::source_location loc = std::source_location::current()) {
  return Val<T>(make_shuffle(ir::IntrinsicOp::ShflXor, v.expr(), lane_mask.expr(), mask.expr(), width, loc));
}
// v from lane (this lane - delta); lanes below delta keep their own (shfl.sync.up).
template <Shuffled T>
Val<T> shfl_up(const Val<T>& v, const i32& delta, const u32& mask = kFullWarp, unsigned width = 32,
               std::source_location loc = std::source_location::current()) {
  return Val<T>(make_shuffle(ir::IntrinsicOp::ShflUp, v.expr(), delta.expr(), mask.expr(), width, loc));
}
// v from lane (this lane + delta); lanes past the group's end keep their own (shfl.sync.down).
template <Shuffled T>
Val<T> shfl_down(const Val<T>& v, const i32& delta, const u32& mask = kFullWarp, unsigned width = 32,
                 std::source_location loc = std::source_location::current()) {
  return Val<T>(make_shuffle(ir::IntrinsicOp::ShflDown, v.expr(), delta.expr(), mask.expr(), width, loc));
}
// v from lane `src` of this lane's group (shfl.sync.idx).
template <Shuffled T>
Val<T> shfl_idx(const Val<T>& v, const i32& src, const u32& mask = kFullWarp, unsigned width = 32,
                std::source_location loc = std::source_location::current()) {
  return Val<T>(make_shuffle(ir::IntrinsicOp::ShflIdx, v.expr(), src.expr(), mask.expr(), width, loc));
}

// The sum, maximum or minimum of v over the lanes in `mask`, in every one of them.
// i32/u32: redux.sync (exact). f32: a shfl.sync.bfly butterfly over a full warp, the
// members in lane order otherwise; every member gets the same bits. max/min of f32
// ignore NaN (fmaxf/fminf).
template <WarpReduced T>
Val<T> warp_sum(const Val<T>& v, const u32& mask = kFullWarp, std::source_location loc = std::source_location::current()) {
  return Val<T>(make_warp_reduce(ir::IntrinsicOp::WarpSum, v.expr(), mask.expr(), loc));
}
template <WarpReduced T>
Val<T> warp_max(const Val<T>& v, const u32& mask = kFullWarp, std::source_location loc = std::source_location::current()) {
  return Val<T>(make_warp_reduce(ir::IntrinsicOp::WarpMax, v.expr(), mask.expr(), loc));
}
template <WarpReduced T>
Val<T> warp_min(const Val<T>& v, const u32& mask = kFullWarp, std::source_location loc = std::source_location::current()) {
  return Val<T>(make_warp_reduce(ir::IntrinsicOp::WarpMin, v.expr(), mask.expr(), loc));
}

// Whether this lane is the lowest of its warp's lanes that run this call: one lane per
// warp acts for it (a record, a counter), whichever lanes diverged away (activemask).
boolean warp_leader(std::source_location loc = std::source_location::current());

}  // namespace tj::dsl
