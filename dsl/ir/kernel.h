// A whole kernel: its signature, shared buffers, body and launch shape.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dsl/ir/ir.h"

namespace tj::ir {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  unsigned count() const { return x * y * z; }
  bool operator==(const Dim3&) const = default;
  std::string str() const;  // "(4,1,1)"
};

// A global buffer the runtime binds instead of the caller: a schedule's per-launch
// workspace (split-K's partials and tile counters). The host evaluates `elements` (of
// the pointee type) at each launch from the scalar parameters, the cluster shape and the
// grid (%nclusterid, %nctaid), and passes a buffer that holds at least that many, kept
// between launches (one per stream). `zeroed`: the runtime zeroes a buffer when it
// allocates it, and the kernel must leave it zeroed when it exits.
struct Workspace {
  Expr elements;
  bool zeroed = false;
};

// The grid a schedule decides (set by lowering for_each_tile(dynamic(...))): `units`
// work units per launch, an expression the host evaluates from the scalar arguments
// like a workspace size. per_unit: one cluster per unit (cluster launch control claims
// the clusters that have not started); otherwise a persistent grid: as many clusters
// as run at once, at most one per unit.
struct ScheduleGrid {
  Expr units;
  bool per_unit = false;
};

struct Param {
  std::string name;
  Type type;  // a scalar, a Space::Global pointer, or a tensor_map
  Loc loc;
  std::optional<Workspace> workspace = std::nullopt;  // set: a pointer the runtime binds (not an argument)
};

// Shared-memory swizzle of a TMA box: the inner box row may span at most 32,
// 64 or 128 bytes, and 16-byte chunks are permuted within it.
enum class Swizzle : uint8_t { None, B32, B64, B128 };
std::string_view swizzle_name(Swizzle);
unsigned swizzle_span(Swizzle);  // bytes; 0 for None

// A TMA view of a global tensor, declared on the kernel: what the kernel code
// relies on (element type, rank, box, swizzle) is fixed at build time; the
// global address, shape and strides are encoded by the host at launch.
struct TensorMapDecl {
  std::string name;  // also the kernel parameter's name
  Scalar dtype;
  unsigned rank;             // 1..5
  std::vector<unsigned> box; // elements per dimension, innermost first
  Swizzle swizzle = Swizzle::None;
  Loc loc;
  uint64_t box_bytes() const;
};

// Which logical dimension of an MMA operand tile is contiguous in memory:
// K (A as M x K, B as N x K) or MN (A as K x M, B as K x N, read transposed).
enum class Major : uint8_t { K, MN };
std::string_view major_name(Major);

// A shared buffer's tile layout: `stages` tiles of rows x cols elements, the
// cols contiguous. A tile is stored as panels of rows x panel_cols elements,
// one after another, where a panel row is the swizzle span (128 bytes for
// Swizzle::B128): exactly what a TMA box of {panel_cols, rows} with that
// swizzle writes. For an MMA operand, `major` says whether cols is K or M/N.
struct TileLayout {
  unsigned rows = 0, cols = 0;
  Swizzle swizzle = Swizzle::B128;
  Major major = Major::K;
  unsigned stages = 1;
  Scalar elem = Scalar::BF16;
  unsigned panel_cols() const;        // swizzle span / element bytes (cols when unswizzled)
  uint64_t panel_elems() const { return uint64_t(rows) * panel_cols(); }
  uint64_t stage_elems() const { return uint64_t(rows) * cols; }
  unsigned panels() const { return cols / panel_cols(); }
  bool operator==(const TileLayout&) const = default;
};

// An MMA accumulator: an m x n f32 tile owned by each warpgroup of the role that
// uses it. Where it lives and what it costs is the target's MMA family's business
// (codegen/mma/): registers on sm_90a, tensor memory on sm_100a.
// A warpgroup's register fragment: an accumulator (m x n f32, what MMAs write), a row
// fragment (one f32 per row of an m-row accumulator: row maxima, sums, scales), or an
// operand fragment (m x n 16-bit values, `elem`, converted from an accumulator and kept
// for an MMA to read as its A operand).
enum class FragmentKind : uint8_t { Tile, Rows, Operand };
struct AccumulatorDecl {
  std::string name;
  unsigned m = 0, n = 0;  // Rows: n is 0
  Loc loc;
  FragmentKind kind = FragmentKind::Tile;
  Scalar elem = Scalar::F32;  // Operand: bf16 or f16
  unsigned stages = 1;        // Tile: buffers of m x n, chosen by an MMA's or a store's acc_stage (tcgen05)
};

struct SharedBuffer {
  std::string name;
  Scalar elem;
  uint64_t count;  // elements
  bool dynamic;    // lives in the launch's dynamic shared memory
  Loc loc;
  unsigned arrivals = 0;  // mbarrier buffers: arrivals that complete each phase
  unsigned align = 16;    // bytes; 1024 for TMA boxes with a 128-byte swizzle
  std::optional<TileLayout> tile = std::nullopt;  // a tile buffer (shared_tile): its layout
  // Every thread of the CTA that reads an element reads the same value there (one writer
  // fills it before a barrier all readers wait on, and no one rewrites it until every
  // reader has let it go: a tile schedule's answer slots). Checks take such reads, at an
  // index the same in every thread, as the same in every thread of the CTA.
  bool uniform_reads = false;
  uint64_t bytes() const { return count * scalar_bytes(elem); }
};

// Shared buffers are at least 16-byte aligned; the byte layout is fixed by the
// IR, so the runtime's dynamic shared size and the emitter's offsets agree.
constexpr uint64_t kSharedAlign = 16;
// The dynamic shared memory window itself is aligned to this.
constexpr uint64_t kDynamicSharedBaseAlign = 1024;

// A statement written inside allow_race(reason, ...): the race check does not
// refuse hazards it takes part in (it reports them as allowed), and the
// generated CUDA says so above it.
struct RaceAllowance {
  Loc stmt;            // the statement's source location
  std::string reason;  // the user's reason, non-empty
  Loc where;           // the allow_race call
};

struct Kernel {
  std::string name;
  Loc loc;
  std::vector<Param> params;
  std::vector<SharedBuffer> shared;
  std::vector<TensorMapDecl> tensor_maps;
  std::vector<AccumulatorDecl> accumulators;
  Stmt body;
  Dim3 block{128, 1, 1};
  Dim3 cluster{1, 1, 1};
  Loc cluster_loc;            // where the cluster shape was set
  Loc block_loc;              // where the threads per CTA were set
  bool non_portable_cluster = false;  // user opted in to clusters of 9..16 CTAs
  unsigned min_blocks_per_sm = 0;     // __launch_bounds__'s minimum CTAs per SM; 0: not asked for
  Loc min_blocks_loc;                 // where it was set
  // Programmatic dependent launch: launched so that its CTAs may start while the kernel
  // before it in the stream finishes; the body runs after griddepcontrol.wait (the
  // previous grid complete, its memory visible), behind a prologue that touches no
  // global memory (barrier init, tensor memory, cluster sync). KernelBuilder::dependent_launch.
  bool dependent_launch = false;
  std::vector<RaceAllowance> race_allowances;
  std::optional<ScheduleGrid> schedule_grid;  // set by a schedule that decides the launched grid

  uint64_t static_shared_bytes() const;
  uint64_t dynamic_shared_bytes() const;
  const SharedBuffer* find_shared(const std::string& name) const;
  const TensorMapDecl* find_tensor_map(const std::string& name) const;
  const AccumulatorDecl* find_accumulator(const std::string& name) const;
  // The allow_race covering the statement written at `stmt`, if any.
  const RaceAllowance* race_allowance(const Loc& stmt) const;
  // Byte offset of each dynamic buffer in the dynamic window (static buffers: 0).
  std::vector<uint64_t> dynamic_offsets() const;
};

}  // namespace tj::ir
