// The tilejit IR: immutable expression and statement nodes.
//
// Nodes are built only through their static make(), which checks the node's
// invariants (an IR the DSL could not have produced is an internal error), and
// are shared as std::shared_ptr<const ...>: once built, never changed.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dsl/ir/types.h"

namespace tj::ir {

enum class ExprKind : uint8_t {
#define TJ_EXPR(Name) Name,
#include "dsl/ir/node_kinds.def"
};
enum class StmtKind : uint8_t {
#define TJ_STMT(Name) Name,
#include "dsl/ir/node_kinds.def"
};
std::string_view kind_name(ExprKind);
std::string_view kind_name(StmtKind);

enum class BinOp : uint8_t {
#define TJ_BINOP(Enum, spelling, kind) Enum,
#include "dsl/ir/ops.def"
};
enum class UnOp : uint8_t {
#define TJ_UNOP(Enum, spelling, kind) Enum,
#include "dsl/ir/ops.def"
};
std::string_view op_spelling(BinOp);
std::string_view op_spelling(UnOp);
bool is_comparison(BinOp);

enum class SpecialRegKind : uint8_t {
#define TJ_SREG(Enum, name, ptx, cluster) Enum,
#include "dsl/ir/special_regs.def"
};
std::string_view sreg_name(SpecialRegKind);  // the DSL name, e.g. "cluster_ctarank"
std::string_view sreg_ptx(SpecialRegKind);   // e.g. "%cluster_ctarank"
bool sreg_needs_cluster(SpecialRegKind);

// Thrown when an IR invariant fails: a bug in tilejit, not in the user's kernel.
struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};
[[noreturn]] void internal_error(const std::string& what);

struct ExprNode;
struct StmtNode;
using Expr = std::shared_ptr<const ExprNode>;
using Stmt = std::shared_ptr<const StmtNode>;

struct ExprNode {
  const ExprKind kind;
  const Type type;
  const Loc loc;
  virtual ~ExprNode() = default;

  template <class T>
  const T* as() const { return kind == T::static_kind ? static_cast<const T*>(this) : nullptr; }

 protected:
  ExprNode(ExprKind k, Type t, Loc l) : kind(k), type(t), loc(std::move(l)) {}
};

struct StmtNode {
  const StmtKind kind;
  const Loc loc;
  virtual ~StmtNode() = default;

  template <class T>
  const T* as() const { return kind == T::static_kind ? static_cast<const T*>(this) : nullptr; }

 protected:
  StmtNode(StmtKind k, Loc l) : kind(k), loc(std::move(l)) {}
};

// ---- expressions ---------------------------------------------------------

struct IntImm final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::IntImm;
  const int64_t value;
  static Expr make(Scalar s, int64_t value);
  IntImm(Scalar s, int64_t v) : ExprNode(static_kind, Type::of(s), {}), value(v) {}
};

struct FloatImm final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::FloatImm;
  const double value;
  static Expr make(Scalar s, double value);
  FloatImm(Scalar s, double v) : ExprNode(static_kind, Type::of(s), {}), value(v) {}
};

struct BoolImm final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::BoolImm;
  const bool value;
  static Expr make(bool value);
  explicit BoolImm(bool v) : ExprNode(static_kind, Type::of(Scalar::Bool), {}), value(v) {}
};

// A named value: kernel parameter, local variable or loop index. The name is
// unique within the kernel (the builder makes it so).
struct VarRef final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::VarRef;
  const std::string name;
  static Expr make(std::string name, Type t, Loc loc = {});
  VarRef(std::string n, Type t, Loc l) : ExprNode(static_kind, t, std::move(l)), name(std::move(n)) {}
};

// The start of a shared buffer declared on the kernel (pointer, Space::Shared).
struct SharedRef final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::SharedRef;
  const std::string name;
  static Expr make(std::string name, Scalar elem, Loc loc = {});
  SharedRef(std::string n, Scalar e, Loc l)
      : ExprNode(static_kind, Type::pointer(e, Space::Shared), std::move(l)), name(std::move(n)) {}
};

struct SpecialReg final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::SpecialReg;
  const SpecialRegKind reg;
  static Expr make(SpecialRegKind reg, Loc loc = {});
  SpecialReg(SpecialRegKind r, Loc l) : ExprNode(static_kind, Type::of(Scalar::I32), std::move(l)), reg(r) {}
};

struct Unary final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Unary;
  const UnOp op;
  const Expr a;
  static Expr make(UnOp op, Expr a, Loc loc = {});
  Unary(UnOp o, Expr x, Type t, Loc l) : ExprNode(static_kind, t, std::move(l)), op(o), a(std::move(x)) {}
};

struct Binary final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Binary;
  const BinOp op;
  const Expr a, b;
  static Expr make(BinOp op, Expr a, Expr b, Loc loc = {});
  Binary(BinOp o, Expr x, Expr y, Type t, Loc l)
      : ExprNode(static_kind, t, std::move(l)), op(o), a(std::move(x)), b(std::move(y)) {}
};

struct Cast final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Cast;
  const Expr a;
  static Expr make(Scalar to, Expr a, Loc loc = {});
  Cast(Scalar to, Expr x, Loc l) : ExprNode(static_kind, Type::of(to), std::move(l)), a(std::move(x)) {}
};

struct Select final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Select;
  const Expr cond, a, b;
  static Expr make(Expr cond, Expr a, Expr b, Loc loc = {});
  Select(Expr c, Expr x, Expr y, Loc l)
      : ExprNode(static_kind, x->type, std::move(l)), cond(std::move(c)), a(std::move(x)), b(std::move(y)) {}
};

// map_shared_rank(buffer, rank): the same buffer inside CTA `rank` of this
// cluster. Its type is a Space::Cluster pointer. make() accepts any pointer:
// that the buffer really is shared memory is a user-level rule, checked by the
// verifier so the message can name the user's line.
struct MapSharedRank final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::MapSharedRank;
  const Expr buffer, rank;
  static Expr make(Expr buffer, Expr rank, Loc loc);
  MapSharedRank(Expr buf, Expr r, Loc l)
      : ExprNode(static_kind, Type::pointer(buf->type.scalar, Space::Cluster), std::move(l)),
        buffer(std::move(buf)), rank(std::move(r)) {}
};

struct Load final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Load;
  const Expr ptr, index;
  static Expr make(Expr ptr, Expr index, Loc loc);
  Load(Expr p, Expr i, Loc l)
      : ExprNode(static_kind, p->type.element(), std::move(l)), ptr(std::move(p)), index(std::move(i)) {}
};

// A packed value from its lanes (x, y[, z, w]): four u32 make a u32x4, two or
// four f32 an f32x2 or f32x4, two bf16 (f16) a bf16x2 (f16x2); lane 0 is the
// low half / lowest address. The type follows from the lanes (ir::vector_of).
struct VectorPack final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::VectorPack;
  const std::vector<Expr> lanes;
  static Expr make(std::vector<Expr> lanes, Loc loc = {});
  VectorPack(Scalar vec, std::vector<Expr> l, Loc loc)
      : ExprNode(static_kind, Type::of(vec), std::move(loc)), lanes(std::move(l)) {}
};

// One lane of a packed value, of its lane type.
struct VectorLane final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::VectorLane;
  const Expr vec;
  const unsigned lane;  // 0 .. lanes - 1
  static Expr make(Expr vec, unsigned lane, Loc loc = {});
  VectorLane(Expr v, unsigned l, Loc loc)
      : ExprNode(static_kind, Type::of(vector_lane_type(v->type.scalar)), std::move(loc)), vec(std::move(v)), lane(l) {}
};

// A scalar-layer operation (dsl/math.h): math functions, bitcasts, packed
// conversions, warp shuffles and reductions. The op table (intrinsics.def) gives
// each op's DSL name, arity, typing rule and prelude wrapper.
enum class IntrinsicOp : uint8_t {
#define TJ_INTRINSIC(Enum, name, arity, rule, wrapper) Enum,
#include "dsl/ir/intrinsics.def"
};
// How an op's operands and result are typed (checked by Intrinsic::make).
enum class IntrinsicRule : uint8_t {
  F32Math,      // f32 ... -> f32
  Abs,          // f32, i32 or i64 -> the same
  Bitcast,      // any value -> `to` of the same size (not bool, not opaque)
  CvtPack,      // f32 lo, f32 hi -> `to` (bf16x2 or f16x2)
  Shuffle,      // (32-bit value, i32 lane, u32 mask, i32 width) -> the value's type
  WarpReduce,   // (f32 / i32 / u32 value, u32 mask) -> the value's type
  Reinterpret,  // a global pointer -> a global pointer to `to`
  ClcQuery,     // a u32x4 cluster launch control response -> bool (is_canceled) or i32 (a ctaid)
  Clock,        // () -> u64 (global_timer) or u32 (sm_id); differs between reads and threads
  Leader,       // () -> bool (warp_leader), () -> u32 (warp_active), (u32) -> bool (warp_leader_of); per lane
};
std::string_view intrinsic_name(IntrinsicOp);     // the DSL spelling: "approx::exp2"
std::string_view intrinsic_wrapper(IntrinsicOp);  // the prelude function: "exp2_approx"
IntrinsicRule intrinsic_rule(IntrinsicOp);
unsigned intrinsic_arity(IntrinsicOp);
// Whether the op's result differs between the lanes of a warp in a way no host
// evaluation can know (shuffles, warp reductions).
bool intrinsic_is_warp_op(IntrinsicOp);

struct Intrinsic final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Intrinsic;
  const IntrinsicOp op;
  const std::vector<Expr> args;
  // `to`: the result scalar of Bitcast, CvtPack and Reinterpret (ignored by the others).
  static Expr make(IntrinsicOp op, std::vector<Expr> args, Loc loc = {}, Scalar to = Scalar::Bool);
  Intrinsic(IntrinsicOp o, std::vector<Expr> a, Type t, Loc l)
      : ExprNode(static_kind, t, std::move(l)), op(o), args(std::move(a)) {}
};

// Inside a fragment map (FragMap, or AccStore's epilogue): the element being computed.
// Value: fragment `fragment`'s value at this element (an accumulator's at its row and
// column, a row fragment's at its row); Row, Col: the element's row and column in the
// warpgroup's accumulator (row 0..m-1, column 0..n-1); Tile (AccStore's epilogue only):
// the store's tile c at the element's place in the destination, as f32.
enum class ElemPart : uint8_t { Value, Row, Col, Tile };
struct FragElem final : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::FragElem;
  const ElemPart part;
  const std::string fragment;  // Value only
  static Expr make(ElemPart part, std::string fragment, Loc loc = {});
  FragElem(ElemPart p, std::string f, Type t, Loc l) : ExprNode(static_kind, t, std::move(l)), part(p), fragment(std::move(f)) {}
};

// ---- statements ----------------------------------------------------------

// Memory orders of barriers and atomics (PTX .relaxed, .release, .acquire, .acq_rel).
enum class MemoryOrder : uint8_t { Default, Relaxed, Release, Acquire, AcqRel };
std::string_view order_name(MemoryOrder);
// The threads an ordering is made for (PTX .cta, .cluster, .gpu).
enum class MemoryScope : uint8_t { Cta, Cluster, Gpu };
std::string_view scope_name(MemoryScope);

struct Block final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Block;
  const std::vector<Stmt> body;
  static Stmt make(std::vector<Stmt> body, Loc loc = {});
  Block(std::vector<Stmt> b, Loc l) : StmtNode(static_kind, std::move(l)), body(std::move(b)) {}
};

struct Declare final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Declare;
  const std::string name;
  const Expr init;
  static Stmt make(std::string name, Expr init, Loc loc);
  Declare(std::string n, Expr i, Loc l) : StmtNode(static_kind, std::move(l)), name(std::move(n)), init(std::move(i)) {}
};

struct Assign final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Assign;
  const Expr var;  // a VarRef
  const Expr value;
  static Stmt make(Expr var, Expr value, Loc loc);
  Assign(Expr v, Expr x, Loc l) : StmtNode(static_kind, std::move(l)), var(std::move(v)), value(std::move(x)) {}
};

struct Store final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Store;
  const Expr ptr, index, value;
  static Stmt make(Expr ptr, Expr index, Expr value, Loc loc);
  Store(Expr p, Expr i, Expr v, Loc l)
      : StmtNode(static_kind, std::move(l)), ptr(std::move(p)), index(std::move(i)), value(std::move(v)) {}
};

struct AtomicAdd final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::AtomicAdd;
  const Expr ptr, index, value;
  static Stmt make(Expr ptr, Expr index, Expr value, Loc loc);
  AtomicAdd(Expr p, Expr i, Expr v, Loc l)
      : StmtNode(static_kind, std::move(l)), ptr(std::move(p)), index(std::move(i)), value(std::move(v)) {}
};

// let result = ptr[index]; ptr[index] += value, as one atomic read-modify-write
// (PTX atom.<order>.<scope>.global.add.u32) on global u32 memory. order: Relaxed,
// Acquire, Release or AcqRel (Default is refused); the declared local `result`
// holds the old value, in the issuing thread only.
struct AtomicFetchAdd final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::AtomicFetchAdd;
  const std::string result;
  const Expr ptr, index, value;
  const MemoryOrder order;
  const MemoryScope scope;
  static Stmt make(std::string result, Expr ptr, Expr index, Expr value, MemoryOrder order, MemoryScope scope, Loc loc);
  AtomicFetchAdd(std::string r, Expr p, Expr i, Expr v, MemoryOrder o, MemoryScope s, Loc l)
      : StmtNode(static_kind, std::move(l)), result(std::move(r)), ptr(std::move(p)), index(std::move(i)), value(std::move(v)),
        order(o), scope(s) {}
};

// A loop whose iterations are units of work (a schedule's tiles, stream-K's shares):
// `unit` (i32, evaluated at the start of each iteration) numbers the iteration's unit,
// `count` (i64, an expression of the scalar parameters and the grid, like a workspace
// size) bounds the iterations of one launch summed over the clusters. Only the timeline
// (LowerOptions::timeline, codegen/passes/insert_timeline.h) reads it; the code is the
// same without.
struct LoopUnits {
  Expr unit;
  Expr count;
};

struct For final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::For;
  const std::string var;  // the loop index, of begin's type
  const Expr begin, end, step;
  const Stmt body;
  const std::optional<LoopUnits> units;
  static Stmt make(std::string var, Expr begin, Expr end, Expr step, Stmt body, Loc loc,
                   std::optional<LoopUnits> units = std::nullopt);
  For(std::string v, Expr b, Expr e, Expr s, Stmt body_, Loc l, std::optional<LoopUnits> u)
      : StmtNode(static_kind, std::move(l)), var(std::move(v)), begin(std::move(b)), end(std::move(e)),
        step(std::move(s)), body(std::move(body_)), units(std::move(u)) {}
};

// while (cond) body: the loop of a schedule whose next unit is data (ask, then
// compute), or of a user's own; cond is evaluated before each iteration.
struct While final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::While;
  const Expr cond;
  const Stmt body;
  const std::optional<LoopUnits> units;
  static Stmt make(Expr cond, Stmt body, Loc loc, std::optional<LoopUnits> units = std::nullopt);
  While(Expr c, Stmt b, Loc l, std::optional<LoopUnits> u)
      : StmtNode(static_kind, std::move(l)), cond(std::move(c)), body(std::move(b)), units(std::move(u)) {}
};

struct If final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::If;
  const Expr cond;
  const Stmt then_body;
  const Stmt else_body;  // may be null
  static Stmt make(Expr cond, Stmt then_body, Stmt else_body, Loc loc);
  If(Expr c, Stmt t, Stmt e, Loc l)
      : StmtNode(static_kind, std::move(l)), cond(std::move(c)), then_body(std::move(t)), else_body(std::move(e)) {}
};

struct SyncThreads final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::SyncThreads;
  static Stmt make(Loc loc);
  explicit SyncThreads(Loc l) : StmtNode(static_kind, std::move(l)) {}
};

// The cluster barrier. Arrive orders this thread's earlier memory accesses
// (release, or relaxed: none); wait makes peers' released accesses visible
// (acquire). Sync is arrive.release followed by wait.acquire.
enum class ClusterBarrierOp : uint8_t { Arrive, Wait, Sync };

struct ClusterBarrier final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::ClusterBarrier;
  const ClusterBarrierOp op;
  const MemoryOrder order;
  static Stmt make(ClusterBarrierOp op, MemoryOrder order, Loc loc);
  ClusterBarrier(ClusterBarrierOp o, MemoryOrder m, Loc l) : StmtNode(static_kind, std::move(l)), op(o), order(m) {}
};

// ---- asynchronous copies and mbarriers -------------------------------------------
// A barrier or buffer element is named by a pointer expression and an index.

struct MbarrierInit final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::MbarrierInit;
  const Expr bar, index;  // a shared mbarrier
  const unsigned arrivals;
  static Stmt make(Expr bar, Expr index, unsigned arrivals, Loc loc);
  MbarrierInit(Expr b, Expr i, unsigned a, Loc l)
      : StmtNode(static_kind, std::move(l)), bar(std::move(b)), index(std::move(i)), arrivals(a) {}
};

enum class FenceKind : uint8_t {
  MbarrierInit,      // fence.mbarrier_init.release.cluster: inits visible to the cluster
  ProxyAsyncShared,  // fence.proxy.async.shared::cta: thread writes visible to TMA
  // tcgen05.fence::before_thread_sync / ::after_thread_sync (sm_100a): order this
  // thread's tcgen05 ops (tensor-memory allocation, MMAs, loads) before, or after, a
  // thread synchronization (bar.sync, barrier.cluster, an mbarrier wait).
  Tcgen05BeforeSync,
  Tcgen05AfterSync,
  // Programmatic dependent launch (sm_90+; Kernel::dependent_launch):
  // griddepcontrol.wait: wait until the grid this one was launched behind has completed
  // and its memory is visible (returns at once when there is none);
  // griddepcontrol.launch_dependents: let the grid launched behind this one start its
  // CTAs (they run up to their own wait) once every CTA of this grid has said so or exited.
  GridDependencyWait,
  LaunchDependents,
};
std::string_view fence_name(FenceKind f);
struct Fence final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Fence;
  const FenceKind fence;
  static Stmt make(FenceKind f, Loc loc);
  Fence(FenceKind f, Loc l) : StmtNode(static_kind, std::move(l)), fence(f) {}
};

// Arrive on a barrier, ours (Space::Shared) or a peer's (Space::Cluster), after
// announcing `tx` more bytes for the phase (expect_tx) when tx is set.
// order: Default releases this thread's earlier writes to whoever waits on the
// barrier (at the barrier's scope: the CTA, or the cluster for a peer's);
// Relaxed orders nothing: for giving back a slot whose reads have completed.
// commit_group 1 or 2 (sm_100a): tcgen05.commit of that CTA group, one arrival once every
// tcgen05 op the thread issued before has completed (relaxed, no bytes); with a mask
// (u32, 16 bits used), on the barrier at the same offset in each CTA of the mask.
struct MbarrierArrive final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::MbarrierArrive;
  const Expr bar, index;
  const Expr tx;  // may be null
  const MemoryOrder order;
  const unsigned commit_group;  // 0: a thread's arrive; 1, 2: tcgen05.commit
  const Expr mask;              // commit's multicast mask; null otherwise
  static Stmt make(Expr bar, Expr index, Expr tx, Loc loc, MemoryOrder order = MemoryOrder::Default, unsigned commit_group = 0,
                   Expr mask = nullptr);
  MbarrierArrive(Expr b, Expr i, Expr t, Loc l, MemoryOrder o, unsigned g, Expr m)
      : StmtNode(static_kind, std::move(l)), bar(std::move(b)), index(std::move(i)), tx(std::move(t)), order(o), commit_group(g),
        mask(std::move(m)) {}
};

// Wait until the barrier's current phase completes. Codegen keeps each
// thread's phase bit per barrier, so users never handle parity.
// cta_scope: acquire at CTA scope only. Enough when the phase is completed by
// TMA (multicast included: the bytes are visible when the phase completes) and
// by arrivals that publish nothing; a peer's DSMEM stores need the cluster scope.
struct MbarrierWait final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::MbarrierWait;
  const Expr bar, index;
  const bool cta_scope;
  static Stmt make(Expr bar, Expr index, Loc loc, bool cta_scope = false);
  MbarrierWait(Expr b, Expr i, Loc l, bool c)
      : StmtNode(static_kind, std::move(l)), bar(std::move(b)), index(std::move(i)), cta_scope(c) {}
};

// This thread lets `count` phases of the barrier ring `bar` pass without waiting for
// them: one phase of each of bar[first % n], bar[(first + 1) % n], ... (n barriers in
// the array), as if it had waited for them, so that its next wait on each barrier
// waits for the phase after. For a thread that takes only some of a pipeline's stages
// (ping-pong consumers taking turns over the stages of one producer). No ordering.
struct MbarrierSkip final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::MbarrierSkip;
  const Expr bar, first, count;  // bar: the array (this CTA's); first, count: i32
  static Stmt make(Expr bar, Expr first, Expr count, Loc loc);
  MbarrierSkip(Expr b, Expr f, Expr c, Loc l)
      : StmtNode(static_kind, std::move(l)), bar(std::move(b)), first(std::move(f)), count(std::move(c)) {}
};

// One TMA box of `tmap` at `coords` (innermost first) into dst[dst_index...],
// completing on bar[bar_index]; with a mask, delivered to every CTA of the
// cluster whose bit is set (same shared offsets, each CTA's own barrier).
// cta_group 2 (sm_100a, the CTA pair of a 2-CTA MMA): the box still lands in each
// destination CTA, but completes on the barrier at the same offset in that CTA's
// pair leader (the even CTA of ranks 2k, 2k + 1), where both CTAs' bytes meet.
struct TmaLoad final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::TmaLoad;
  const Expr tmap;  // a VarRef of type tensor_map
  const std::vector<Expr> coords;
  const Expr dst, dst_index, bar, bar_index;
  const Expr mask;           // u32, may be null (unicast)
  const unsigned cta_group;  // 1, or 2: completes on the pair leader's barrier
  static Stmt make(Expr tmap, std::vector<Expr> coords, Expr dst, Expr dst_index, Expr bar, Expr bar_index, Expr mask,
                   Loc loc, unsigned cta_group = 1);
  TmaLoad(Expr t, std::vector<Expr> c, Expr d, Expr di, Expr b, Expr bi, Expr m, unsigned g, Loc l)
      : StmtNode(static_kind, std::move(l)), tmap(std::move(t)), coords(std::move(c)), dst(std::move(d)),
        dst_index(std::move(di)), bar(std::move(b)), bar_index(std::move(bi)), mask(std::move(m)), cta_group(g) {}
};

struct TmaStore final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::TmaStore;
  const Expr tmap;
  const std::vector<Expr> coords;
  const Expr src, src_index;
  static Stmt make(Expr tmap, std::vector<Expr> coords, Expr src, Expr src_index, Loc loc);
  TmaStore(Expr t, std::vector<Expr> c, Expr s, Expr si, Loc l)
      : StmtNode(static_kind, std::move(l)), tmap(std::move(t)), coords(std::move(c)), src(std::move(s)),
        src_index(std::move(si)) {}
};

// A TMA box of `tmap` at `coords` fetched into L2 only (no shared memory, no barrier):
// the TMA load of the same box that follows finds it there instead of in DRAM.
struct TmaPrefetch final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::TmaPrefetch;
  const Expr tmap;
  const std::vector<Expr> coords;
  static Stmt make(Expr tmap, std::vector<Expr> coords, Loc loc);
  TmaPrefetch(Expr t, std::vector<Expr> c, Loc l) : StmtNode(static_kind, std::move(l)), tmap(std::move(t)), coords(std::move(c)) {}
};

// Bulk async-groups of this thread: commit the stores issued so far; wait
// until at most `pending` groups are outstanding (Wait: complete; WaitRead:
// their shared-memory sources may be reused).
enum class BulkGroupOp : uint8_t { Commit, Wait, WaitRead };
struct BulkGroup final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::BulkGroup;
  const BulkGroupOp op;
  const unsigned pending;
  static Stmt make(BulkGroupOp op, unsigned pending, Loc loc);
  BulkGroup(BulkGroupOp o, unsigned p, Loc l) : StmtNode(static_kind, std::move(l)), op(o), pending(p) {}
};

// `bytes` from our shared memory into a peer's (dst, Space::Cluster),
// completing on the peer's barrier `bar` (Space::Cluster).
struct BulkCopy final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::BulkCopy;
  const Expr dst, dst_index, src, src_index;
  const uint32_t bytes;
  const Expr bar, bar_index;
  static Stmt make(Expr dst, Expr dst_index, Expr src, Expr src_index, uint32_t bytes, Expr bar, Expr bar_index, Loc loc);
  BulkCopy(Expr d, Expr di, Expr s, Expr si, uint32_t n, Expr b, Expr bi, Loc l)
      : StmtNode(static_kind, std::move(l)), dst(std::move(d)), dst_index(std::move(di)), src(std::move(s)),
        src_index(std::move(si)), bytes(n), bar(std::move(b)), bar_index(std::move(bi)) {}
};

// One value stored into a peer's shared memory, completing on its barrier.
struct StAsync final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::StAsync;
  const Expr dst, dst_index, value, bar, bar_index;
  static Stmt make(Expr dst, Expr dst_index, Expr value, Expr bar, Expr bar_index, Loc loc);
  StAsync(Expr d, Expr di, Expr v, Expr b, Expr bi, Loc l)
      : StmtNode(static_kind, std::move(l)), dst(std::move(d)), dst_index(std::move(di)), value(std::move(v)),
        bar(std::move(b)), bar_index(std::move(bi)) {}
};

// clusterlaunchcontrol.try_cancel (sm_100a): asks the hardware to cancel the launch of
// a cluster of this grid that has not started yet, and to write the 16-byte answer
// into response[response_index .. + 3] (a u32 shared buffer, index a multiple of 4),
// completing 16 transaction bytes on bar[bar_index]. multicast: the answer lands in
// every CTA of the cluster, at the same offsets, on each CTA's own barrier (the
// .multicast::cluster::all form). Read it with the ClcIsCanceled / ClcFirstCtaidX
// intrinsics after the barrier's phase completes; never issue another after one
// whose answer was "not canceled".
struct ClcTryCancel final : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::ClcTryCancel;
  const Expr response, response_index, bar, bar_index;
  const bool multicast;
  static Stmt make(Expr response, Expr response_index, Expr bar, Expr bar_index, bool multicast, Loc loc);
  ClcTryCancel(Expr r, Expr ri, Expr b, Expr bi, bool m, Loc l)
      : StmtNode(static_kind, std::move(l)), response(std::move(r)), response_index(std::move(ri)), bar(std::move(b)),
        bar_index(std::move(bi)), multicast(m) {}
};

// The value of an integer constant expression, if it is one (after looking
// through casts of constants).
std::optional<int64_t> const_int(const Expr& e);

}  // namespace tj::ir

// The tile nodes (roles, MMAs, accumulators, tile schedules): part of this header.
#include "dsl/ir/ir_tiles.h"
