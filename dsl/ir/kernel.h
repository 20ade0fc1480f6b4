// A whole kernel: its signature, shared buffers, body and launch shape.
#pragma once

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

struct Param {
  std::string name;
  Type type;  // a scalar, or a Space::Global pointer
  Loc loc;
};

struct SharedBuffer {
  std::string name;
  Scalar elem;
  uint64_t count;  // elements
  bool dynamic;    // lives in the launch's dynamic shared memory
  Loc loc;
  uint64_t bytes() const { return count * scalar_bytes(elem); }
};

// Shared buffers are 16-byte aligned, so the byte layout is fixed by the IR:
// the runtime's dynamic shared size and the emitter's offsets agree.
constexpr uint64_t kSharedAlign = 16;

struct Kernel {
  std::string name;
  Loc loc;
  std::vector<Param> params;
  std::vector<SharedBuffer> shared;
  Stmt body;
  Dim3 block{128, 1, 1};
  Dim3 cluster{1, 1, 1};
  Loc cluster_loc;            // where the cluster shape was set
  bool non_portable_cluster = false;  // user opted in to clusters of 9..16 CTAs

  uint64_t static_shared_bytes() const;
  uint64_t dynamic_shared_bytes() const;
  const SharedBuffer* find_shared(const std::string& name) const;
};

}  // namespace tj::ir
