// The runtime's half of workspace parameters (ir::Workspace): before each launch, the
// size of each workspace is evaluated from the launch's scalar arguments and grid, and
// the parameter gets a buffer that holds it. Buffers belong to the JitKernel, one set
// per stream (launches on one stream run in order, so they may share a buffer; two
// streams never do), and grow when a launch needs more; a zeroed workspace is zeroed
// when it is allocated, and its kernel leaves it zeroed.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "dsl/ir/kernel.h"
#include "runtime/buffer.h"
#include "runtime/launch.h"

namespace tj {

// The elements workspace parameter `param` of `kernel` needs for a launch with `args`
// (bound by bind_args) on a grid of `grid_clusters` clusters. Throws rt::RuntimeError
// (Usage) naming the kernel and the parameter when the size is negative or cannot be
// evaluated.
uint64_t workspace_elements(const ir::Kernel& kernel, size_t param, const rt::ArgPack& args, ir::Dim3 grid_clusters);

// The clusters a launch of `kernel` with `args` gets when its schedule decides the grid
// (ir::Kernel::schedule_grid, for_each_tile(dynamic(...))): one per work unit (sm_100a:
// cluster launch control claims the ones not started), or a persistent grid of
// min(units, max_active_clusters) (sm_90a); at least 1. nullopt for other kernels.
// Throws rt::RuntimeError (Usage) when the unit count cannot be evaluated from `args`.
std::optional<uint64_t> schedule_clusters(const ir::Kernel& kernel, const rt::ArgPack& args, int max_active_clusters);

// Refuses (rt::RuntimeError, Usage) a launch of a kernel whose schedule decides the grid on
// `grid_clusters` that would lose or repeat units: its units are numbered along the
// grid's x only (y and z must be 1), and with cluster launch control (sm_100a) one
// cluster per unit is the only grid that runs each unit once (fewer leave units
// unclaimed, more start clusters past the last unit). Nothing to check for other kernels.
void check_schedule_launch(const ir::Kernel& kernel, const rt::ArgPack& args, ir::Dim3 grid_clusters);

class Workspaces {
 public:
  // Writes the buffers of `kernel`'s workspace parameters into `args` for a launch on
  // `stream` (allocating or growing them first). Nothing to do for a kernel without one.
  void bind(const ir::Kernel& kernel, ir::Dim3 grid_clusters, CUstream stream, rt::ArgPack& args);
  // Bytes held, over every stream (for tests and diagnostics).
  uint64_t bytes() const;
  // The buffer of workspace parameter `param` on `stream`, or null before a launch there
  // bound one (to read what a launch left in it, or to clear it before the next).
  rt::DeviceBuffer* find(CUstream stream, size_t param);

 private:
  std::map<CUstream, std::map<size_t, rt::DeviceBuffer>> buffers_;  // stream -> parameter -> buffer
};

}  // namespace tj
