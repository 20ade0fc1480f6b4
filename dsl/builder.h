// KernelBuilder: the object a user's kernel is written against. While a
// builder is alive it is the active one on this thread, and DSL statements
// (stores, loops, barriers) are appended to it.
#pragma once

#include <map>
#include <optional>
#include <utility>
#include <functional>
#include <set>
#include <source_location>
#include <string>
#include <vector>

#include "dsl/ir/kernel.h"
#include "dsl/values.h"

namespace tj::dsl {

using SrcLoc = std::source_location;

// A TMA tensor map parameter and what the kernel knows of it.
struct TensorMap {
  ir::Expr ref;  // the parameter (type tensor_map)
  ir::TensorMapDecl decl;
  uint64_t box_bytes() const { return decl.box_bytes(); }
};

// A tile buffer (KernelBuilder::shared_tile) and its layout.
struct SharedTile {
  ir::Expr ref;  // the shared buffer
  ir::TileLayout layout;
  std::string name;
};
// A TMA view bound to a tile's layout (KernelBuilder::tile_map).
struct TileMap {
  TensorMap map;
  ir::TileLayout layout;  // the tile it was made for
  unsigned box_rows;
};
// An MMA accumulator (KernelBuilder::accumulator).
struct Accumulator {
  std::string name;
  unsigned m, n;
  unsigned stages = 1;       // buffers (KernelBuilder::accumulator with stages; tcgen05)
  ir::Expr buffer = nullptr;  // the buffer stage(acc, s) chose; null: the accumulator itself (buffer 0)
};
// The warpgroups of one role taking turns in order (KernelBuilder::turns): barrier ids
// first .. first + warpgroups - 1, one per warpgroup, "your turn".
struct Turns {
  unsigned first, warpgroups;
  unsigned role;  // ir::Role::id of the role that takes them
};
// An accumulator's values converted to 16-bit MMA operands and kept in registers
// (KernelBuilder::operand_fragment): written by convert, read by mma(acc, registers(p), ...).
struct OperandFragment {
  std::string name;
  unsigned m, n;
  ir::Scalar elem;
};
// One f32 per row of an m-row accumulator, held like it by each warpgroup
// (KernelBuilder::row_fragment): row maxima, sums, per-row scales.
struct RowFragment {
  std::string name;
  unsigned m;
};

template <class T> struct param_handle { using type = Val<T>; };
template <class T> struct param_handle<T*> { using type = Ptr<T>; };

class KernelBuilder {
 public:
  // Starts a kernel named `name` (a C identifier) and makes it the active builder.
  explicit KernelBuilder(std::string name, SrcLoc loc = SrcLoc::current());
  ~KernelBuilder();
  KernelBuilder(const KernelBuilder&) = delete;
  KernelBuilder& operator=(const KernelBuilder&) = delete;

  // A kernel parameter: param<float*>("out") is a global buffer, param<int32_t>("n") a scalar.
  template <class T>
  typename param_handle<T>::type param(std::string name, SrcLoc loc = SrcLoc::current()) {
    if constexpr (std::is_pointer_v<T>) {
      using E = std::remove_cv_t<std::remove_pointer_t<T>>;
      return Ptr<E>(add_param(std::move(name), ir::Type::pointer(scalar_of<E>::value, ir::Space::Global), loc));
    } else {
      return Val<T>(add_param(std::move(name), ir::Type::of(scalar_of<T>::value), loc));
    }
  }

  // A global buffer of T that the runtime allocates and binds at each launch (a
  // schedule's workspace), not an argument the caller passes; one per stream, kept
  // between launches. It holds 0 elements until size_workspace gives its size. zeroed:
  // the runtime zeroes it when it allocates it, and the kernel leaves it zeroed at exit.
  template <DslScalar T>
  Ptr<T> workspace(std::string name, bool zeroed, SrcLoc loc = SrcLoc::current()) {
    return Ptr<T>(add_workspace(std::move(name), scalar_of<T>::value, zeroed, loc));
  }
  // The elements of T a launch needs in workspace `buffer`: built from integer scalar
  // parameters, constants, the cluster shape and the grid (num_clusters_x(),
  // grid_dim_x(), ...), which the host evaluates before each launch.
  template <DslScalar T>
  void size_workspace(const Ptr<T>& buffer, const i64& elements, SrcLoc loc = SrcLoc::current()) {
    set_workspace_size(buffer.expr(), elements.expr(), loc);
  }

  // A statically sized shared buffer of `count` elements (at most 48 KiB in all).
  template <DslScalar T>
  Ptr<T> shared(std::string name, uint64_t count, SrcLoc loc = SrcLoc::current()) {
    return Ptr<T>(add_shared(std::move(name), scalar_of<T>::value, count, false, loc));
  }
  // A shared buffer placed in the launch's dynamic shared memory (up to 227 KiB in all).
  // `align`: its byte alignment, a power of two from 16 to 1024 (TMA boxes with a
  // 128-byte swizzle need 1024).
  template <DslScalar T>
  Ptr<T> dynamic_shared(std::string name, uint64_t count, unsigned align = 16, SrcLoc loc = SrcLoc::current()) {
    check_align(name, align, loc);
    Ptr<T> p(add_shared(std::move(name), scalar_of<T>::value, count, true, loc));
    kernel_.shared.back().align = align;
    return p;
  }

  // `count` mbarriers in shared memory, each completing a phase after `arrivals`
  // arrivals (plus the transaction bytes announced with expect_tx). They are
  // initialized at kernel start, before any other statement.
  Ptr<mbarrier_t> mbarriers(std::string name, unsigned count, unsigned arrivals, SrcLoc loc = SrcLoc::current());

  // A TMA view of a global tensor of T: a kernel parameter the host fills with
  // an encoded CUtensorMap. `box` is the tile one copy moves, innermost
  // dimension first; `swizzle` the shared-memory layout of the box.
  template <DslScalar T>
  TensorMap tensor_map(std::string name, std::vector<unsigned> box, ir::Swizzle swizzle = ir::Swizzle::None,
                       SrcLoc loc = SrcLoc::current()) {
    return add_tensor_map(std::move(name), scalar_of<T>::value, std::move(box), swizzle, loc);
  }

  // ---- tiles (dsl/tile.h has the operations on them) ----

  // `stages` shared-memory tiles of rows x cols T (cols contiguous), stored in
  // panels of the swizzle's span, 1024-byte aligned: what TMA boxes of
  // {span / sizeof(T), rows} write and what the MMA reads. For an MMA operand,
  // `major` says whether cols is K (A as M x K, B as N x K) or M/N (B as K x N).
  template <DslScalar T>
  SharedTile shared_tile(std::string name, unsigned rows, unsigned cols, unsigned stages = 1,
                         ir::Major major = ir::Major::K, ir::Swizzle swizzle = ir::Swizzle::B128,
                         SrcLoc loc = SrcLoc::current()) {
    return add_tile(std::move(name), scalar_of<T>::value, rows, cols, stages, major, swizzle, loc);
  }
  // The same with the element type as a value (bf16, f16 or f32), for generators.
  SharedTile shared_tile(ir::Scalar elem, std::string name, unsigned rows, unsigned cols, unsigned stages = 1,
                         ir::Major major = ir::Major::K, ir::Swizzle swizzle = ir::Swizzle::B128,
                         SrcLoc loc = SrcLoc::current()) {
    return add_tile(std::move(name), elem, rows, cols, stages, major, swizzle, loc);
  }
  // A TMA view of a global matrix, shaped for `tile`: its box is one panel of
  // box_rows rows ({span / sizeof(T), box_rows}, the tile's swizzle), so the box
  // and the tile's layout are one fact. box_rows divides the tile's rows (a
  // cluster's CTAs may each load a slice and multicast it); a swizzled tile's
  // slices start 128-byte aligned (any row of 128-byte rows, every second of
  // 64-byte ones), anywhere in the 8-row swizzle atom.
  TileMap tile_map(std::string name, const SharedTile& tile, unsigned box_rows, SrcLoc loc = SrcLoc::current());
  // An m x n f32 MMA accumulator, one per warpgroup of the role that uses it
  // (registers on sm_90a: m * n / 128 per thread).
  Accumulator accumulator(std::string name, unsigned m, unsigned n, SrcLoc loc = SrcLoc::current());
  // `stages` buffers of m x n, one chosen per MMA and store with stage(acc, s): on sm_100a
  // (tensor memory) the epilogue of one tile reads a buffer while the next tile's MMAs
  // write another. wgmma keeps accumulators in registers and takes one buffer.
  Accumulator accumulator(std::string name, unsigned m, unsigned n, unsigned stages, SrcLoc loc = SrcLoc::current());
  // A row fragment for accumulators of m rows (registers on sm_90a: m / 32 per thread,
  // each row's value held by the four threads that hold the row).
  RowFragment row_fragment(std::string name, unsigned m, SrcLoc loc = SrcLoc::current());
  // An m x n operand fragment of bf16 or f16 (registers on sm_90a: m * n / 256 per thread):
  // convert(p, acc) fills it; an MMA reads it as A while acc is free for the next product.
  OperandFragment operand_fragment(std::string name, unsigned m, unsigned n, ir::Scalar elem, SrcLoc loc = SrcLoc::current());
  // A warpgroup role: the next `warpgroups` warpgroups of the CTA run body(w),
  // w being the warpgroup's index within the role. max_regs (24..256, a multiple
  // of 8) sets their per-thread register count with setmaxnreg; 0 leaves it.
  void role(std::string name, unsigned warpgroups, unsigned max_regs, const std::function<void(i32)>& body,
            SrcLoc loc = SrcLoc::current());
  // Inside a role of at least 2 warpgroups: its warpgroups take turns 0, 1, ..., n - 1,
  // 0, ... between wait_turn and pass_turn (dsl/tile.h). Call it once, where every
  // warpgroup of the role passes before its first wait_turn: warpgroup 0 has the turn.
  Turns turns(SrcLoc loc = SrcLoc::current());
  // The role being built, if any (its warpgroups meet at role_sync()).
  const ir::Role* current_role() const { return roles_.empty() ? nullptr : &roles_.back(); }
  // A for_each_tile walk in the current role: roles that hand units to each other walk
  // the same grid with the same schedule. Refused when another role's walk at the same
  // place in its sequence of walks (its first, second, ...) walks another one.
  void note_tile_walk(const ir::TileSchedule& schedule, const ir::Expr& tiles_m, const ir::Expr& tiles_n,
                      const ir::Expr& splits, const ir::Loc& loc);

  // The cluster shape set so far (for mask helpers).
  const ir::Dim3& cluster_shape() const { return kernel_.cluster; }
  // A helper built a value from the cluster shape set so far (mask_col): a later
  // cluster() of another shape is refused, naming it.
  void note_cluster_read(const std::string& what, SrcLoc loc);

  // Threads per CTA.
  KernelBuilder& threads(unsigned x, unsigned y = 1, unsigned z = 1, SrcLoc loc = SrcLoc::current());
  // CTAs per cluster; the grid is then given in clusters at launch.
  KernelBuilder& cluster(unsigned x, unsigned y = 1, unsigned z = 1, SrcLoc loc = SrcLoc::current());
  // Opt in to clusters of 9..16 CTAs (not portable across GPUs; Hopper allows 16).
  KernelBuilder& allow_non_portable_cluster();
  // Asks that `n` CTAs fit on one SM at once: __launch_bounds__(threads, n), so ptxas
  // limits registers per thread to 65536 / (n * threads). n * threads may not exceed
  // the SM's 2048 threads, nor n its 32 CTAs (checked when the kernel is lowered).
  KernelBuilder& min_blocks_per_sm(unsigned n, SrcLoc loc = SrcLoc::current());
  // Programmatic dependent launch: the kernel is launched so that its CTAs may start
  // while the kernel before it in the stream is finishing. Each CTA runs what tilejit
  // puts before the body (barrier init, tensor memory, the cluster sync), then waits
  // (griddepcontrol.wait) until that kernel has completed and its writes are visible,
  // then lets the next kernel's CTAs start the same way (griddepcontrol.launch_dependents)
  // and runs the body: the body sees memory as after a plain stream order. What it saves
  // is the launch latency and the prologue, hidden under the previous kernel's tail.
  KernelBuilder& dependent_launch(bool on = true);

  // Statements appended while `reason` is open are exempt from the race check (allow_race).
  void open_race_allowance(std::string reason, const SrcLoc& loc);
  void close_race_allowance();

  // Finishes the kernel. The builder stops being active; build() may be called once.
  ir::Kernel build();

  // ---- used by the DSL functions ----
  static KernelBuilder& active(const SrcLoc& loc);
  void append(ir::Stmt s);
  // A nested body (of an if_, a loop, a role, ...: `what` at `loc`) opens.
  void push_block(const char* what, const ir::Loc& loc);
  std::vector<ir::Stmt> pop_block();
  std::vector<ir::Stmt>& current_block();
  // The shared buffer `ptr` names (itself or a peer's through map_shared_rank) aligned to at
  // least `bytes` (TMA boxes need 128); nothing for other pointers.
  void align_at_least(const ir::Expr& ptr, unsigned bytes);
  // The turns of role `role` in program order: wait_turn opens one, pass_turn closes it
  // (each refused out of order; build() refuses one left open).
  void turn_taken(unsigned role, const ir::Loc& loc);
  void turn_passed(unsigned role, const ir::Loc& loc);
  size_t depth() const { return blocks_.size(); }
  std::string fresh_name(std::string hint, const SrcLoc& loc);
  // What `e` reads that the host cannot evaluate before a launch (a local, a load, a
  // thread's register), or "" (parameters, constants, the cluster shape, the grid).
  std::string host_unknown(const ir::Expr& e) const;

 private:
  std::optional<std::pair<std::string, ir::Loc>> cluster_read_;  // note_cluster_read: what, and where
  ir::Expr add_param(std::string name, ir::Type type, const SrcLoc& loc);
  ir::Expr add_workspace(std::string name, ir::Scalar elem, bool zeroed, const SrcLoc& loc);
  void set_workspace_size(const ir::Expr& buffer, const ir::Expr& elements, const SrcLoc& loc);
  TensorMap add_tensor_map(std::string name, ir::Scalar dtype, std::vector<unsigned> box, ir::Swizzle swizzle,
                           const SrcLoc& loc);
  SharedTile add_tile(std::string name, ir::Scalar elem, unsigned rows, unsigned cols, unsigned stages, ir::Major major,
                      ir::Swizzle swizzle, const SrcLoc& loc);
  ir::Expr add_shared(std::string name, ir::Scalar elem, uint64_t count, bool dynamic, const SrcLoc& loc);
  std::string claim_name(std::string name, const SrcLoc& loc);
  static void check_align(const std::string& name, unsigned align, const SrcLoc& loc);

  ir::Kernel kernel_;
  std::vector<std::vector<ir::Stmt>> blocks_;
  // Per open block: its scope id (0 for the kernel's own body) and what opened it.
  struct Scope {
    uint64_t id;
    const char* what;
    ir::Loc loc;
  };
  std::vector<Scope> scopes_;
  friend uint64_t current_scope();
  friend void check_rebind(uint64_t home);
  std::set<std::string> names_;
  int counter_ = 0;
  bool built_ = false;
  std::vector<std::pair<std::string, ir::Loc>> allowances_;  // open allow_race scopes, innermost last
  std::vector<ir::Role> roles_;  // the roles being built (outermost first); bodies empty
  std::map<unsigned, ir::Loc> open_turns_;  // per role id: the wait_turn not yet passed on
  struct TileWalk {
    std::string role;  // the role's name
    ir::TileSchedule schedule;
    std::string grid;  // "tiles_m x tiles_n (splits)" as IR text
    ir::Loc loc;
  };
  std::vector<TileWalk> tile_walks_;
  unsigned next_warpgroup_ = 0, role_count_ = 0;
  unsigned turn_floor_ = 8;  // barrier ids of turns are taken downwards from 7: the lowest one taken
  KernelBuilder* previous_ = nullptr;
};

// ---- locals -----------------------------------------------------------------

// A new local variable holding `init`. `name` is a hint for the generated code.
template <DslScalar T>
Var<T> var(const Val<T>& init, std::string name = {}, SrcLoc loc = SrcLoc::current()) {
  KernelBuilder& b = KernelBuilder::active(loc);
  std::string n = b.fresh_name(name.empty() ? "v" : name, loc);
  b.append(ir::Declare::make(n, init.expr(), ir::Loc::from(loc)));
  return Var<T>(ir::VarRef::make(n, init.expr()->type, ir::Loc::from(loc)));
}

// ---- control flow -------------------------------------------------------------

// for (i = begin; i < end; i += step) body(i)
void for_(const i32& begin, const i32& end, const i32& step, const std::function<void(i32)>& body,
          SrcLoc loc = SrcLoc::current());
void for_(const i32& begin, const i32& end, const std::function<void(i32)>& body, SrcLoc loc = SrcLoc::current());
void for_(const i64& begin, const i64& end, const i64& step, const std::function<void(i64)>& body,
          SrcLoc loc = SrcLoc::current());

// while (cond) body(): cond is evaluated before each iteration (a Var the body assigns,
// a flag a wait delivers). The race and transaction checks treat its trip count as unknown.
void while_(const boolean& cond, const std::function<void()>& body, SrcLoc loc = SrcLoc::current());
// A while_ whose iterations are units of work (a hand-written schedule's loop): `unit`
// numbers each iteration's unit (evaluated as the iteration starts), `count` bounds the
// iterations of one launch summed over the clusters (built from the parameters and the
// grid, like a workspace size). `tilejit run --timeline` records each iteration's SM,
// start and end (for_each_tile's loops are recorded the same way); without it the code
// is the same as while_'s.
void while_units(const boolean& cond, const i32& unit, const i64& count, const std::function<void()>& body,
                 SrcLoc loc = SrcLoc::current());

class IfChain {
 public:
  IfChain(KernelBuilder& b, size_t depth, size_t index, ir::Stmt node) : b_(&b), depth_(depth), index_(index), node_(std::move(node)) {}
  // The statements to run when the condition is false.
  void else_(const std::function<void()>& body, SrcLoc loc = SrcLoc::current());

 private:
  KernelBuilder* b_;
  size_t depth_, index_;
  ir::Stmt node_;  // the If this chain belongs to
};
// if (cond) then(); chain .else_(...) for the other branch.
IfChain if_(const boolean& cond, const std::function<void()>& then, SrcLoc loc = SrcLoc::current());

// ---- expressions ----------------------------------------------------------------

// Converts to another scalar type (round to nearest for floats).
template <DslScalar To, DslScalar From>
Val<To> cast(const Val<From>& v) {
  if constexpr (std::is_same_v<To, From>) return v;
  else return Val<To>(ir::Cast::make(scalar_of<To>::value, v.expr()));
}
template <Arithmetic T>
Val<T> min(const Val<T>& a, const Val<T>& b) { return Val<T>(ir::Binary::make(ir::BinOp::Min, a.expr(), b.expr())); }
template <Arithmetic T>
Val<T> max(const Val<T>& a, const Val<T>& b) { return Val<T>(ir::Binary::make(ir::BinOp::Max, a.expr(), b.expr())); }
// With a host constant on either side: max(x, 0.0f), min(i, 7).
template <Arithmetic T>
Val<T> min(const Val<T>& a, std::type_identity_t<T> b) { return min(a, Val<T>(b)); }
template <Arithmetic T>
Val<T> min(std::type_identity_t<T> a, const Val<T>& b) { return min(Val<T>(a), b); }
template <Arithmetic T>
Val<T> max(const Val<T>& a, std::type_identity_t<T> b) { return max(a, Val<T>(b)); }
template <Arithmetic T>
Val<T> max(std::type_identity_t<T> a, const Val<T>& b) { return max(Val<T>(a), b); }
// cond ? a : b
template <DslScalar T>
Val<T> select(const boolean& cond, const Val<T>& a, const Val<T>& b) {
  return Val<T>(ir::Select::make(cond.expr(), a.expr(), b.expr()));
}
template <HasLiteral T>
Val<T> select(const boolean& cond, const Val<T>& a, std::type_identity_t<T> b) { return select(cond, a, Val<T>(b)); }
template <HasLiteral T>
Val<T> select(const boolean& cond, std::type_identity_t<T> a, const Val<T>& b) { return select(cond, Val<T>(a), b); }

// ---- special registers (all i32) ------------------------------------------------
#define TJ_SREG(Enum, name, ptx, cluster) \
  inline i32 name() { return i32(ir::SpecialReg::make(ir::SpecialRegKind::Enum)); }
#include "dsl/ir/special_regs.def"

// ---- memory -------------------------------------------------------------------

// Atomically adds v to r (no result): red.add on global, shared or a peer's shared memory.
template <DslScalar T>
void atomic_add(const Ref<T>& r, const std::type_identity_t<Located<T>>& v) {
  append_stmt(ir::AtomicAdd::make(r.ptr(), r.index(), v.expr, v.loc));
}

// Atomically adds v to r (global memory) and returns r's old value: one
// `atom.<order>.<scope>.global.add.u32` by each thread that runs it. State the
// order (relaxed, acquire, release or acq_rel) and the scope (cta, cluster, gpu):
// e.g. acq_rel at gpu scope publishes this thread's earlier writes (and, through a
// barrier before it, its CTA's) to whoever later reads the counter, and makes
// theirs visible here. The result is this thread's own: broadcast it through
// shared memory when others need it.
u32 atomic_fetch_add(const Ref<uint32_t>& r, const u32& v, ir::MemoryOrder order, ir::MemoryScope scope,
                     SrcLoc loc = SrcLoc::current());

// ---- barriers -------------------------------------------------------------------

// __syncthreads(): every thread of this CTA.
void sync_threads(SrcLoc loc = SrcLoc::current());

// ---- the race check's opt-out ----------------------------------------------------

// Runs body(); the statements it writes may take part in a race the check would
// refuse (a user who knows better, or a test of the race itself). `reason` is
// required; the generated CUDA shows it above each such statement. No barrier
// is inserted either way.
void allow_race(const std::string& reason, const std::function<void()>& body, SrcLoc loc = SrcLoc::current());

}  // namespace tj::dsl
