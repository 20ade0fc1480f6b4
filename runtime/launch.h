// Launching a kernel with thread-block cluster dimensions, occupancy checks and timing.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <vector>

#include <cuda.h>

#include "runtime/timing.h"

namespace tj::rt {

class Module;

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  unsigned count() const { return x * y * z; }
};

struct LaunchConfig {
  Dim3 grid_clusters;         // the grid, counted in clusters
  Dim3 cluster;               // CTAs per cluster (at most 16; over 8 is non-portable)
  Dim3 block;                 // threads per CTA
  unsigned dynamic_smem = 0;  // bytes per CTA
  CUstream stream = nullptr;
  // Programmatic stream serialization: the grid may start while the one before it in the
  // stream finishes (the kernel must wait for it: griddepcontrol.wait, see
  // KernelBuilder::dependent_launch).
  bool dependent_launch = false;
};

// The grid in blocks: grid_clusters * cluster, per dimension.
Dim3 grid_in_blocks(const LaunchConfig& config);

// Rejects a config no device can launch (zero dims, cluster > 16, block > 1024 threads,
// grid out of range) with RuntimeError(Launch) and a sentence naming the kernel. CPU only.
void validate(const LaunchConfig& config, std::string_view kernel_name);

// Kernel parameters: owns a copy of each value at a stable address aligned to at least
// max(alignof(T), 16), so a 128-byte-aligned CUtensorMap can be passed by value.
class ArgPack {
public:
  ArgPack() = default;
  ArgPack(ArgPack&&) = default;
  ArgPack& operator=(ArgPack&&) = default;

  template <class T>
  ArgPack& push(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are copied bytewise");
    return push_bytes(&value, sizeof(T), alignof(T));
  }
  ArgPack& push_bytes(const void* data, size_t bytes, size_t align);

  // The cuLaunchKernelEx kernelParams array: one pointer per pushed value, in order.
  void** data() { return pointers_.data(); }
  size_t size() const { return pointers_.size(); }
  // The i-th value's bytes (bytes_of(i) of them).
  const void* value(size_t i) const { return pointers_[i]; }
  // Bytes of the i-th value: launch() compares them with the kernel's parameters.
  size_t bytes_of(size_t i) const { return sizes_[i]; }
  // Replaces the i-th value with `bytes` bytes at `data` (as many as it has).
  void overwrite(size_t i, const void* data, size_t bytes);

private:
  struct Free {
    size_t align;
    void operator()(void* p) const { ::operator delete(p, std::align_val_t(align)); }
  };
  std::vector<std::unique_ptr<void, Free>> blocks_;
  std::vector<void*> pointers_;
  std::vector<size_t> sizes_;
};

// cuOccupancyMaxActiveClusters for this config (after prepare()); 0 means the device cannot
// co-schedule one cluster of it.
int max_active_clusters(const Module& module, const LaunchConfig& config);

// Sets the function attributes the config needs: NON_PORTABLE_CLUSTER_SIZE_ALLOWED for
// clusters over 8 CTAs, MAX_DYNAMIC_SHARED_SIZE_BYTES for dynamic shared memory (checked
// against the device's per-CTA limit first).
void prepare(const Module& module, const LaunchConfig& config);

// Checks `args` against the kernel's parameters (count and sizes, cuFuncGetParamInfo).
void check_args(const Module& module, const ArgPack& args);

// validate + prepare + check_args + occupancy pre-check (0 active clusters ->
// RuntimeError(Launch) naming the resource) + cuLaunchKernelEx with the cluster dimension.
// Asynchronous: errors inside the kernel surface in synchronize().
void launch(const Module& module, const LaunchConfig& config, ArgPack& args);

// launch() `count` times back to back, checking once: nothing but the launches between
// two events a caller records around it (the benchmarks time a stream of launches so).
void launch_repeated(const Module& module, const LaunchConfig& config, ArgPack& args, int count);

// cuCtxSynchronize; an error names the kernel (device faults are ErrorKind::Device).
void synchronize(const Module& module);

// Launches warmup times, then iters times each between its own pair of events
// (time_enqueued); returns the per-launch statistics. Checks the config once, not per
// iteration.
Timing time_launches(const Module& module, const LaunchConfig& config, ArgPack& args, int iters,
                     int warmup = 2);

} // namespace tj::rt
