// Accumulators as values: element-wise maps over a warpgroup's accumulator with
// each element's row and column, row fragments (one value per row) from
// reductions over the rows, fused epilogues, and an accumulator fed to the next
// MMA as its A operand. The Target owns the register layout: users never index
// registers.
//
//   auto s = k.accumulator("s", 64, 128);
//   auto m = k.row_fragment("m", 64);
//   fill(m, -INFINITY);
//   mma(s, q.stage(0), kt.stage(st), false); mma_wait(0);
//   row_max(m, s, /*combine=*/true);                       // m = max(m, row max of s)
//   acc_map(s, [&](const Elem& e) { return approx::exp2(e.value - e[m]); });
//   mma(o, registers(s), v.stage(st), true);              // o += bf16(s) x v
//   store_accumulator(out.stage(0), o, [&](const Elem& e) { return e.value / e[l]; });
//
// All of these are run by the whole warpgroup that owns the fragments, inside a
// role, after the mma_wait(0) that makes the accumulators readable.
#pragma once

#include <functional>
#include <memory>

#include "dsl/tile.h"

namespace tj::dsl {

struct ElemScope;  // what an element function may read besides fragments (fragment.cpp)

// The element a map computes: its value in the fragment being mapped (or the
// accumulator being stored), its row (0..m-1) and column (0..n-1) in the
// warpgroup's accumulator, and the values of other fragments at the same place.
struct Elem {
  f32 value;
  i32 row, col;
  // Another accumulator of the same shape, at this element.
  f32 operator[](const Accumulator& a) const;
  // A row fragment, at this element's row.
  f32 operator[](const RowFragment& r) const;
  // In store_accumulator's function only: tile t at this element's place in the
  // destination, as f32. t is laid out like the destination, or is the destination
  // itself (each element is read before it is written): C or a residual loaded there
  // by TMA. One tile per store.
  f32 operator[](const TileView& t) const;
  std::shared_ptr<ElemScope> scope;  // set by the op that calls the function
};
using ElemFn = std::function<f32(const Elem&)>;

// Every element of acc (or of a row fragment: col is then unavailable) = fn(elem).
void acc_map(const Accumulator& acc, const ElemFn& fn, SrcLoc loc = SrcLoc::current());
void row_map(const RowFragment& r, const ElemFn& fn, SrcLoc loc = SrcLoc::current());
// Shorthands of the maps.
void fill(const Accumulator& acc, const f32& v, SrcLoc loc = SrcLoc::current());
void fill(const RowFragment& r, const f32& v, SrcLoc loc = SrcLoc::current());
void copy(const Accumulator& dst, const Accumulator& src, SrcLoc loc = SrcLoc::current());
void copy(const RowFragment& dst, const RowFragment& src, SrcLoc loc = SrcLoc::current());

// dst = the sum / max / min over each row of src (of combine: op(dst, that)).
void row_sum(const RowFragment& dst, const Accumulator& src, bool combine = false, SrcLoc loc = SrcLoc::current());
void row_max(const RowFragment& dst, const Accumulator& src, bool combine = false, SrcLoc loc = SrcLoc::current());
void row_min(const RowFragment& dst, const Accumulator& src, bool combine = false, SrcLoc loc = SrcLoc::current());

// The epilogue as a function: dst rows [dst.row, + acc.m) = fn(elem) over the
// accumulator's columns cols (all of them without cols), converted to dst's type,
// in dst's swizzled layout (ready for tma_store_tile). alpha and beta are this with
// fn = alpha * e.value (+ beta * C).
void store_accumulator(const TileView& dst, const Accumulator& acc, const ElemFn& fn, SrcLoc loc = SrcLoc::current());
void store_accumulator(const TileView& dst, const Accumulator& acc, Columns cols, const ElemFn& fn,
                       SrcLoc loc = SrcLoc::current());
// The same, transposed: dst rows [dst.row, + cols.count) hold the accumulator's columns
// and dst's acc.m columns its rows (element (r, c) lands at dst row dst.row + c - cols.first,
// column r); e.row and e.col are still the accumulator's. An MMA run with the operands
// swapped (D^T = B A^T) stores D this way. sm_90a (stmatrix.trans for 16-bit tiles).
void store_accumulator_transposed(const TileView& dst, const Accumulator& acc, const ElemFn& fn, SrcLoc loc = SrcLoc::current());
void store_accumulator_transposed(const TileView& dst, const Accumulator& acc, Columns cols, const ElemFn& fn,
                                  SrcLoc loc = SrcLoc::current());

// dst[index(e)] = r's value at each row e.row the warpgroup holds, where valid(e) holds
// (every row without it): a per-row result (a logsumexp, a row maximum) out to memory.
// index and valid see e.row and e.value (r's value), not e.col. One of the four threads
// that hold a row stores it.
using ElemIndexFn = std::function<i64(const Elem&)>;
using ElemPredicateFn = std::function<boolean(const Elem&)>;
void store_rows(const RowFragment& r, const Ptr<float>& dst, const ElemIndexFn& index, const ElemPredicateFn& valid = nullptr,
                SrcLoc loc = SrcLoc::current());

// An accumulator as an MMA's A operand: its m x n values converted in registers to
// B's element type (bf16 or f16), K = n. On sm_90a: wgmma with A from registers.
struct RegisterOperand {
  std::string name;  // an accumulator (converted as the MMA is issued) or an operand fragment
};
inline RegisterOperand registers(const Accumulator& acc) { return RegisterOperand{acc.name}; }
// An operand fragment as an MMA's A operand, as convert left it (its type must be B's).
inline RegisterOperand registers(const OperandFragment& p) { return RegisterOperand{p.name}; }
// dst = src converted to dst's 16-bit type (round to nearest), in the register order an
// MMA reads: then src may be overwritten (the next S = Q K^T) while an MMA reads dst.
void convert(const OperandFragment& dst, const Accumulator& src, SrcLoc loc = SrcLoc::current());
// acc (+)= a x b: a.acc's rows by its columns, times b's K x N (K = a.acc.n).
void mma(const Accumulator& acc, RegisterOperand a, const TileView& b, const boolean& accumulate,
         SrcLoc loc = SrcLoc::current());

}  // namespace tj::dsl
