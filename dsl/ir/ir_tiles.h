// Part of dsl/ir/ir.h (which includes it at its end; include that one): the IR nodes
// of the tile layer: warpgroup roles and their named barriers, MMAs on tiles and their
// waits, accumulators as values (element maps, row reductions, stores, split-K
// partials), and tile schedules (for_each_tile).
#pragma once

#include "dsl/ir/ir.h"

namespace tj::ir {

// ---- tiles, MMA, warpgroup roles, tile schedules ----------------------------------

// A warpgroup role: the warpgroups [first, first + count) of the CTA run `body`,
// all 128 threads of each warpgroup together (MMAs and setmaxnreg need that).
// max_regs: the per-thread register count the role runs with (setmaxnreg); 0
// leaves the allocation the kernel was launched with.
// index_var: the local holding the thread's warpgroup index within the role,
// (%tid.x / 128) - first, declared by the body's first statement; empty: none.
// Emission may compute it in a warp-uniform way because it knows what it holds.
struct Role final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Role;
  const std::string name;
  const unsigned first, count, max_regs;
  const unsigned id;  // the role's index in the kernel (its named barrier is id + 1)
  const Stmt body;
  const std::string index_var;
  static Stmt make(std::string name, unsigned first, unsigned count, unsigned max_regs, unsigned id, Stmt body, Loc loc,
                   std::string index_var = {});
  Role(std::string n, unsigned f, unsigned c, unsigned r, unsigned i, Stmt b, Loc l, std::string iv)
      : StmtNode(static_kind, std::move(l)), name(std::move(n)), first(f), count(c), max_regs(r), id(i), body(std::move(b)),
        index_var(std::move(iv)) {}
  // The condition "this thread belongs to the role" (thread_idx_x / 128 in range).
  Expr condition() const;
};

// bar.sync id, threads: the warps of one role, one warpgroup or a pair taking turns
// meet; id 0 is sync_threads. `arrive`: bar.arrive, counted without waiting.
struct NamedBarrier final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::NamedBarrier;
  const Expr id;  // i32, 1..15
  const unsigned threads;
  const bool arrive;
  static Stmt make(Expr id, unsigned threads, Loc loc, bool arrive = false);
  NamedBarrier(Expr i, unsigned t, Loc l, bool a)
      : StmtNode(static_kind, std::move(l)), id(std::move(i)), threads(t), arrive(a) {}
};

// Part of a tile buffer: stage `stage`, starting at row `row`.
struct TileOperand {
  Expr tile;   // a SharedRef of a buffer with a tile layout
  Expr stage;  // i32
  Expr row;    // i32
};

// acc (+)= a x b over K elements [k_first, k_first + k_count) of the tiles' K
// extent (k_count 0: from k_first to the end), issued asynchronously by the
// warpgroup as one MMA group: a holds acc.m rows of M (from a.row), b holds acc.n
// of N. With `accumulate` false the accumulator is overwritten.
// With `a_fragment` set, A is that accumulator (acc.m rows, K columns) converted in
// registers to B's element type, and `a` is unused (null expressions).
// cta_group 2 (tcgen05 on sm_100a): the CTA pair's MMA, issued by the pair leader for
// both CTAs: a holds this CTA's acc.m rows in each CTA of the pair, b half of N (acc.n / 2
// rows of a K-major B) in each, and acc (acc.m x acc.n) lands in each CTA's own
// tensor memory: a 2 acc.m x acc.n product per pair.
// k_steps_first (wgmma, an accumulator of several 64-row blocks): every block's MMA for
// one K step before the next step's, instead of each block's K steps back to back.
struct Mma final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Mma;
  const std::string acc;
  const TileOperand a, b;
  const Expr accumulate;  // bool
  const unsigned k_first, k_count;
  const std::string a_fragment;
  const unsigned cta_group;  // 1, or 2 for the pair MMA
  const Expr acc_stage;      // i32: the buffer of a staged accumulator (AccumulatorDecl::stages); null: 0
  const bool k_steps_first;
  static Stmt make(std::string acc, TileOperand a, TileOperand b, Expr accumulate, Loc loc, unsigned k_first = 0,
                   unsigned k_count = 0, unsigned cta_group = 1, Expr acc_stage = nullptr, bool k_steps_first = false);
  static Stmt make_register_a(std::string acc, std::string a_fragment, TileOperand b, Expr accumulate, Loc loc);
  Mma(std::string c, TileOperand x, TileOperand y, Expr acc_, unsigned kf, unsigned kc, Loc l, std::string af = {}, unsigned g = 1,
      Expr as = nullptr, bool ksf = false)
      : StmtNode(static_kind, std::move(l)), acc(std::move(c)), a(std::move(x)), b(std::move(y)), accumulate(std::move(acc_)),
        k_first(kf), k_count(kc), a_fragment(std::move(af)), cta_group(g), acc_stage(std::move(as)), k_steps_first(ksf) {}
};

// Wait until at most `pending` of this warpgroup's MMA groups are in flight:
// their shared-memory operands may then be overwritten; with 0 every accumulator
// may be read, with more the ones named in `ready` (completed by this wait).
struct MmaWait final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::MmaWait;
  const unsigned pending;
  const std::vector<std::string> ready;
  static Stmt make(unsigned pending, Loc loc, std::vector<std::string> ready = {});
  MmaWait(unsigned p, Loc l, std::vector<std::string> r) : StmtNode(static_kind, std::move(l)), pending(p), ready(std::move(r)) {}
};

// The epilogue's first step: dst (acc.m rows from dst.row) = epilogue at each element
// of the accumulator's columns [first_col, first_col + cols), converted to dst's element
// type; dst holds exactly those columns. `epilogue` is an f32 expression of FragElem
// nodes (the element's value, row, column, other fragments there, and c's value there):
// alpha * acc + beta * C is one such function. c is the tile its FragElem Tile nodes
// read, with dst's layout and type (each element read before it is written: c may be
// dst itself), absent when it reads none.
// `transposed`: dst holds the accumulator transposed: element (r, c) of the accumulator
// lands at dst row dst.row + c - first_col, column r (dst has acc.m columns and `cols`
// rows from dst.row); the epilogue still sees the accumulator's row and column.
struct AccStore final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::AccStore;
  const std::string acc;
  const TileOperand dst;
  const std::optional<TileOperand> c;
  const unsigned first_col, cols;
  const Expr epilogue;   // f32
  const Expr acc_stage;  // i32: the buffer of a staged accumulator; null: 0
  const bool transposed;
  static Stmt make(std::string acc, TileOperand dst, std::optional<TileOperand> c, unsigned first_col, unsigned cols, Expr epilogue,
                   Loc loc, Expr acc_stage = nullptr, bool transposed = false);
  AccStore(std::string a, TileOperand d, std::optional<TileOperand> c_, unsigned fc, unsigned nc, Expr ep, Loc l, Expr as, bool t)
      : StmtNode(static_kind, std::move(l)), acc(std::move(a)), dst(std::move(d)), c(std::move(c_)), first_col(fc), cols(nc),
        epilogue(std::move(ep)), acc_stage(std::move(as)), transposed(t) {}
  // The rows of dst it writes from dst.row: the accumulator's rows, or its columns transposed.
  unsigned dst_rows(unsigned acc_m) const { return transposed ? cols : acc_m; }
};

// Every element of fragment `dst` (an accumulator, or a row fragment: one value per
// row) = `value`, an f32 expression in which FragElem nodes read the element being
// computed: fill, copy, scale, mask, exp. Run by the whole warpgroup that owns dst.
struct FragMap final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::FragMap;
  const std::string dst;
  const Expr value;
  static Stmt make(std::string dst, Expr value, Loc loc);
  FragMap(std::string d, Expr v, Loc l) : StmtNode(static_kind, std::move(l)), dst(std::move(d)), value(std::move(v)) {}
};

// Row fragment `dst` = op over the columns of each row of accumulator `src`, combined
// with dst's own value when `accumulate` (dst = op(dst, op over the row)).
enum class ReduceOp : uint8_t { Sum, Max, Min };
std::string_view reduce_name(ReduceOp);
struct RowReduce final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::RowReduce;
  const std::string dst, src;
  const ReduceOp op;
  const bool accumulate;
  static Stmt make(std::string dst, std::string src, ReduceOp op, bool accumulate, Loc loc);
  RowReduce(std::string d, std::string s, ReduceOp o, bool a, Loc l)
      : StmtNode(static_kind, std::move(l)), dst(std::move(d)), src(std::move(s)), op(o), accumulate(a) {}
};

// ptr[index] = fragment `frag`'s value at each row the warpgroup holds, where `valid`
// holds (null: every row); index and valid are expressions of FragElem nodes (the row,
// the fragment's value). One thread of those holding a row stores it.
struct RowStore final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::RowStore;
  const std::string frag;
  const Expr ptr, index, valid;
  static Stmt make(std::string frag, Expr ptr, Expr index, Expr valid, Loc loc);
  RowStore(std::string f, Expr p, Expr i, Expr v, Loc l)
      : StmtNode(static_kind, std::move(l)), frag(std::move(f)), ptr(std::move(p)), index(std::move(i)), valid(std::move(v)) {}
};

// Split-K's accumulator as a partial sum, by the warpgroup that owns the accumulator,
// over its columns [first_col, first_col + cols) (cols 0: all of them). A slot holds
// acc.m x cols f32 at ptr[slot * acc.m * cols ...]:
//  - Store: the slot (global memory) = acc;
//  - Add: acc += the slot (global memory, or this CTA's shared memory);
//  - Send: the slot of a peer CTA's shared buffer (ptr from map_shared_rank) = acc, by
//    st.async completing on the peer's barrier bar[bar_index] (also mapped) with
//    acc.m x cols x 4 bytes per warpgroup;
//  - Reduce: the slot (global memory) += acc, by relaxed gpu-scope atomic adds (many
//    warpgroups may add into one slot at once);
//  - Take: acc += the slot (global memory), then the slot = 0 (ready for the next Reduces).
// The slot's layout is the accumulator's fragment order (each thread's registers,
// 4 at a time, 128 threads side by side: 16-byte accesses, coalesced in global memory,
// free of bank conflicts in shared memory), opaque to the user: only partials of the
// same accumulator shape and columns meet in a slot.
enum class AccPartialOp : uint8_t { Store, Add, Send, Reduce, Take };
// The DSL's name of the op: "store_accumulator_partial", ...
const char* acc_partial_name(AccPartialOp op);
struct AccPartial final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::AccPartial;
  const AccPartialOp op;
  const std::string acc;
  const Expr ptr;   // f32 pointer (its space is checked by verify_tiles)
  const Expr slot;  // i32
  const unsigned first_col = 0, cols = 0;  // whole groups of 8; cols 0: all
  const Expr bar, bar_index;               // Send only: the peer's barrier
  static Stmt make(AccPartialOp op, std::string acc, Expr ptr, Expr slot, Loc loc, unsigned first_col = 0, unsigned cols = 0,
                   Expr bar = nullptr, Expr bar_index = nullptr);
  AccPartial(AccPartialOp o, std::string a, Expr p, Expr s, Loc l, unsigned fc, unsigned c, Expr b, Expr bi)
      : StmtNode(static_kind, std::move(l)), op(o), acc(std::move(a)), ptr(std::move(p)), slot(std::move(s)), first_col(fc), cols(c),
        bar(std::move(b)), bar_index(std::move(bi)) {}
  // The columns the partial covers, given the accumulator's width.
  unsigned col_count(unsigned acc_n) const { return cols ? cols : acc_n; }
};

// Tensor memory (tcgen05, sm_100a): per CTA 128 lanes x 512 columns of 32-bit cells.
// Alloc: one whole warp allocates `columns` (a power of two, 32..512) and the address
// (lane << 16 | column) lands in slot[index] (a u32 shared buffer); Relinquish: the
// warp gives up the permit to allocate again; Dealloc: the same warp frees `columns`
// at `addr` before the CTA exits. cta_group 2: the CTA pair of a cluster allocates
// together (the .cta_group::2 forms); a kernel uses one group.
enum class TmemAction : uint8_t { Alloc, Relinquish, Dealloc };
struct TmemOp final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::TmemOp;
  const TmemAction action;
  const unsigned cta_group;  // 1 or 2
  const unsigned columns;    // Alloc, Dealloc; 0 for Relinquish
  const Expr slot, slot_index;  // Alloc: where the address lands; null otherwise
  const Expr addr;              // Dealloc: the allocation's address (u32); null otherwise
  static Stmt make(TmemAction action, unsigned cta_group, unsigned columns, Expr slot, Expr slot_index, Expr addr, Loc loc);
  TmemOp(TmemAction a, unsigned g, unsigned c, Expr s, Expr si, Expr ad, Loc l)
      : StmtNode(static_kind, std::move(l)), action(a), cta_group(g), columns(c), slot(std::move(s)), slot_index(std::move(si)),
        addr(std::move(ad)) {}
};
std::string_view tmem_action_name(TmemAction a);  // "tmem_alloc", "tmem_relinquish", "tmem_dealloc"

// How output tiles are handed to CTAs. StaticPersistent: each cluster walks the
// cluster tiles t = cluster id, + number of clusters, ...; `group` cluster rows
// of tiles are walked together (grouped rasterization) so that tiles sharing
// operands run close in time. Dynamic: each cluster starts with the unit of its
// cluster id and claims the next one at run time (ask first, then compute):
// cluster launch control on sm_100a, an atomic counter on sm_90a
// (codegen/schedules/dynamic.h); `slots` claims may be in flight between the
// roles of a CTA (a ring of responses in shared memory).
enum class ScheduleKind : uint8_t { StaticPersistent, Dynamic };
// The order in which units are numbered (and so handed out: lowest first).
// Rasterized: grouped rasterization, cluster row 0 first. LongestRowsFirst: the
// groups from the last cluster row up, each group row by row (across a row, then the
// row above), for kernels whose tiles cost more the larger tile_m is (causal
// attention's query blocks): units start in order of cost, the short ones fill the tail.
enum class UnitOrder : uint8_t { Rasterized, LongestRowsFirst };
struct TileSchedule {
  ScheduleKind kind = ScheduleKind::StaticPersistent;
  unsigned group = 8;
  unsigned slots = 2;  // Dynamic: claim responses in flight (1..8)
  UnitOrder order = UnitOrder::Rasterized;
  // Split-K inside the cluster: the cluster's z dimension holds the splits. Each plane
  // (cluster_ctaid.z) takes the same block of cluster_dim_y x cluster_dim_x tiles, and a
  // CTA's split is its cluster_ctaid.z (the ForEachTile's splits is cluster_dim_z). The
  // walk is over cluster tiles only.
  bool cluster_splits = false;
  bool operator==(const TileSchedule&) const = default;
};
std::string_view schedule_name(ScheduleKind);
std::string_view order_name(UnitOrder);

// for each (tile_m, tile_n) of a tiles_m x tiles_n grid that the schedule gives
// this CTA: body. Each CTA of a cluster gets its own tile of the cluster's
// cluster_dim_y x cluster_dim_x block (y along M, x along N).
// With `splits` (split-K): the work units are (cluster tile, split) for split in
// [0, splits), the splits of one cluster tile adjacent in unit order, so that a
// schedule hands them to different clusters at the same time; the body also sees
// var_split. Without (null, var_split empty): one unit per cluster tile.
struct ForEachTile final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::ForEachTile;
  const TileSchedule schedule;
  const Expr tiles_m, tiles_n;  // i32
  const std::string var_m, var_n;
  const Stmt body;
  const Expr splits;            // i32, at least 1 at run time; may be null (1)
  const std::string var_split;  // empty exactly when splits is null
  static Stmt make(TileSchedule schedule, Expr tiles_m, Expr tiles_n, std::string var_m, std::string var_n, Stmt body,
                   Loc loc, Expr splits = nullptr, std::string var_split = {});
  ForEachTile(TileSchedule s, Expr tm, Expr tn, std::string vm, std::string vn, Stmt b, Loc l, Expr sp, std::string vs)
      : StmtNode(static_kind, std::move(l)), schedule(s), tiles_m(std::move(tm)), tiles_n(std::move(tn)), var_m(std::move(vm)),
        var_n(std::move(vn)), body(std::move(b)), splits(std::move(sp)), var_split(std::move(vs)) {}
  // A copy with another body (passes that rewrite the body keep the split fields).
  Stmt with_body(Stmt body) const;
};

}  // namespace tj::ir
