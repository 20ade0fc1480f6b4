// Scalar types, address spaces and source locations shared by the IR and the DSL.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>

namespace tj::ir {

// One row per scalar type: enum name, DSL/IR spelling, size in bytes.
#define TJ_SCALAR_TYPES(X) \
  X(I32, "i32", 4)         \
  X(U32, "u32", 4)         \
  X(I64, "i64", 8)         \
  X(U64, "u64", 8)         \
  X(F32, "f32", 4)         \
  X(BF16, "bf16", 2)       \
  X(F16, "f16", 2)         \
  X(Bool, "bool", 1)       \
  X(U32x4, "u32x4", 16)    \
  X(U8, "u8", 1)           \
  X(MBarrier, "mbarrier", 8) \
  X(TensorMap, "tensor_map", 128) \
  X(BF16x2, "bf16x2", 4)   \
  X(F16x2, "f16x2", 4)     \
  X(F32x2, "f32x2", 8)     \
  X(F32x4, "f32x4", 16)

enum class Scalar : uint8_t {
#define TJ_X(e, s, n) e,
  TJ_SCALAR_TYPES(TJ_X)
#undef TJ_X
};

std::string_view scalar_name(Scalar);
unsigned scalar_bytes(Scalar);
bool is_integer(Scalar);
bool is_float(Scalar);
// Packed types: u32x4, bf16x2, f16x2, f32x2, f32x4: lanes moved as one 4-, 8- or
// 16-byte access (lane 0 at the lowest address / in the low half).
bool is_vector(Scalar);
unsigned vector_lanes(Scalar);       // 1 for a non-packed type
Scalar vector_lane_type(Scalar);     // the scalar itself for a non-packed type
// The packed type of `lanes` lanes of `lane`; Bool (no such type) when none exists.
Scalar vector_of(Scalar lane, unsigned lanes);
// Opaque objects: an mbarrier (8 bytes of shared memory) and a TMA tensor map
// (a 128-byte kernel parameter). No arithmetic, loads or stores.
bool is_opaque(Scalar);

// Where a pointer points. Cluster is a peer CTA's shared memory seen through
// the cluster window (the result of map_shared_rank).
enum class Space : uint8_t { None, Global, Shared, Cluster };
std::string_view space_name(Space);

// A value's type: a scalar, or a pointer to scalars in one address space.
struct Type {
  Scalar scalar = Scalar::I32;
  Space space = Space::None;

  bool is_pointer() const { return space != Space::None; }
  Type element() const { return Type{scalar, Space::None}; }
  bool operator==(const Type&) const = default;
  std::string str() const;

  static Type of(Scalar s) { return Type{s, Space::None}; }
  static Type pointer(Scalar s, Space sp) { return Type{s, sp}; }
};

// Where in the user's C++ a DSL call was made. Only the file's base name is
// kept: generated code (and so the cache key) must not carry absolute paths.
struct Loc {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;

  static Loc from(const std::source_location& l);
  bool known() const { return line != 0; }
  std::string str() const;  // "file.cpp:12" or "<unknown>"
};

}  // namespace tj::ir
