// From a built kernel to a launchable object in one call:
//   auto f = tj::jit(kernel);            // compile (cached) for the device, load
//   f.launch(clusters, out, n);          // arguments checked against the parameters
#pragma once

#include <cuda.h>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "api/args.h"
#include "api/compile.h"
#include "api/device.h"
#include "api/workspace.h"
#include "runtime/launch.h"
#include "runtime/module.h"
#include "runtime/timing.h"

namespace tj {

using rt::Timing;  // median_ms, min_ms, max_ms, iters
// Times any work queued on a stream (a reference library call, a copy) as JitKernel::time
// times launches: time_enqueued(what, stream, iters, warmup, [&] { enqueue(); }).
using rt::time_enqueued;

// A launch's grid, counted in clusters (one number: a 1-D grid).
struct Grid {
  unsigned x = 1, y = 1, z = 1;
  Grid(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT: implicit
};

// compile()'s options, and the device. `arch`, when set, must be the device's.
struct JitOptions : CompileOptions {
  int device = -1;  // -1: TILEJIT_DEVICE, else 0
};

// Arguments checked once (JitKernel::bind) for any number of launches.
class BoundArgs {
 public:
  const std::string& kernel_name() const { return kernel_; }
  rt::ArgPack& pack() { return pack_; }
  const rt::ArgPack& pack() const { return pack_; }
  CUfunction function() const { return function_; }

 private:
  friend class JitKernel;
  BoundArgs(std::string kernel, CUfunction function, rt::ArgPack pack)
      : kernel_(std::move(kernel)), function_(function), pack_(std::move(pack)) {}
  std::string kernel_;
  CUfunction function_;  // of the kernel they were checked against
  rt::ArgPack pack_;
};

// How `kernel` is launched with `grid` clusters: its cluster shape, block and dynamic
// shared memory.
rt::LaunchConfig launch_config(const CompiledKernel& kernel, Grid grid, CUstream stream = nullptr);

template <class A>
concept LaunchArg = std::is_constructible_v<Arg, A> && !std::is_same_v<std::remove_cvref_t<A>, BoundArgs>;

// A compiled kernel loaded on a device. Launches are asynchronous: synchronize()
// waits and reports faults inside the kernel.
class JitKernel {
 public:
  const CompiledKernel& compiled() const { return compiled_; }
  const std::string& name() const { return compiled_.name(); }
  const ir::Kernel& kernel() const { return compiled_.kernel(); }
  const Device& device() const { return device_; }
  const rt::Module& module() const { return module_; }
  // "out: u32*, n: i32"
  std::string signature() const { return tj::signature(kernel()); }

  // Launches on the default stream with `grid` clusters (the cluster shape, threads and
  // dynamic shared memory are the kernel's own). Workspace parameters are not passed:
  // each launch binds them to buffers this JitKernel keeps per stream (api/workspace.h).
  template <LaunchArg... A>
  void launch(Grid grid, A&&... args) {
    BoundArgs bound = bind(std::forward<A>(args)...);
    launch(grid, bound);
  }
  // The same on `stream`.
  template <LaunchArg... A>
  void operator()(CUstream stream, Grid grid, A&&... args) {
    BoundArgs bound = bind(std::forward<A>(args)...);
    launch(grid, bound, stream);
  }
  // Checks the arguments (and encodes tensor maps) once, for repeated launches.
  template <LaunchArg... A>
  BoundArgs bind(A&&... args) const {
    return bind_vector({Arg(std::forward<A>(args))...});
  }
  BoundArgs bind_vector(const std::vector<Arg>& args) const;
  void launch(Grid grid, BoundArgs& args, CUstream stream = nullptr);
  // `count` launches back to back, the launch checked once (for timing a stream of
  // launches between events of one's own, e.g. interleaved with a reference library).
  void launch_repeated(Grid grid, BoundArgs& args, int count, CUstream stream = nullptr);

  // Waits for the device; a fault inside the kernel is an rt::RuntimeError naming it.
  void synchronize() const;
  // Launches `warmup` times, then `iters` times each between its own pair of events;
  // min / median / max milliseconds per launch.
  Timing time(Grid grid, BoundArgs& args, int iters = 20, int warmup = 2, CUstream stream = nullptr);

  // How the kernel is launched with `grid`.
  rt::LaunchConfig launch_config(Grid grid, CUstream stream = nullptr) const {
    return tj::launch_config(compiled_, grid, stream);
  }
  // How many clusters of the kernel the device runs at once (a persistent grid's size).
  int max_active_clusters() const;
  // The grid its schedule decides for a launch with `args` (for_each_tile(dynamic(...)):
  // one cluster per unit on sm_100a, a persistent grid on sm_90a); nullopt when the
  // kernel's schedules leave the grid to the caller.
  std::optional<Grid> schedule_grid(const BoundArgs& args) const;
  // Device memory held for workspace parameters, over every stream launched on.
  uint64_t workspace_bytes() const { return workspaces_->bytes(); }
  // The buffer bound to workspace parameter `param` on `stream` by the last launch there
  // (what the launch left in it: the timeline's records); null before one. Throws
  // rt::RuntimeError (Usage) when the kernel has no such workspace parameter.
  rt::DeviceBuffer* workspace(const std::string& param, CUstream stream = nullptr);

 private:
  friend JitKernel load(CompiledKernel compiled, const Device& device);
  JitKernel(Device device, CompiledKernel compiled, rt::Module module)
      : device_(std::move(device)), compiled_(std::move(compiled)), module_(std::move(module)),
        workspaces_(std::make_unique<Workspaces>()) {}
  // Checks `args` were bound for this kernel, makes the device current and binds the workspaces.
  void prepare(Grid grid, BoundArgs& args, CUstream stream);
  Device device_;
  CompiledKernel compiled_;
  rt::Module module_;
  std::unique_ptr<Workspaces> workspaces_;
};

// Compiles `kernel` for the device (through the disk cache unless options.cache is false)
// and loads it there. Throws UserError for DSL mistakes, rt::RuntimeError otherwise
// (NoDriver without a GPU: tj::compile() gives the PTX on any machine).
JitKernel jit(const ir::Kernel& kernel, const JitOptions& options = {});

// Loads an already compiled kernel on `device`; its target must be the device's.
JitKernel load(CompiledKernel compiled, const Device& device = Device::get());

}  // namespace tj
