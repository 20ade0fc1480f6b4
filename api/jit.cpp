#include "api/jit.h"

#include "runtime/cache.h"
#include "runtime/error.h"

namespace tj {

JitKernel load(CompiledKernel compiled, const Device& device) {
  if (compiled.target.arch != device.arch())
    throw rt::RuntimeError(rt::ErrorKind::Usage, "kernel '" + compiled.name() + "' was compiled for " + compiled.target.arch +
                                                     " but device " + std::to_string(device.ordinal()) + " (" +
                                                     device.info().name + ") is " + device.arch());
  device.make_current();
  rt::Module module =
      rt::Module::load(device.context(), compiled.cubin(), compiled.name(), compiled.kernel().params.size());
  return JitKernel(device, std::move(compiled), std::move(module));
}

JitKernel jit(const ir::Kernel& kernel, const JitOptions& options) {
  Device device = Device::get(options.device);
  std::optional<codegen::Target> target = codegen::Target::parse(device.arch());
  if (!target)
    throw rt::RuntimeError(rt::ErrorKind::NoDriver, "GPU " + device.info().name + " is " + device.arch() +
                                                        "; tilejit runs kernels on sm_90a (Hopper) or sm_100a (Blackwell)");
  if (!options.arch.empty() && options.arch != target->arch)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "jit: arch " + options.arch + " was asked for, but device " +
                                                     std::to_string(device.ordinal()) + " (" + device.info().name +
                                                     ") is " + target->arch + "; use tj::compile() for other targets");
  CompileOptions copts = options;
  copts.arch = target->arch;
  return load(compile(kernel, copts), device);
}

BoundArgs JitKernel::bind_vector(const std::vector<Arg>& args) const {
  device_.make_current();
  return BoundArgs(name(), module_.function(), bind_args(kernel(), args));
}

rt::LaunchConfig launch_config(const CompiledKernel& kernel, Grid grid, CUstream stream) {
  rt::LaunchConfig lc;
  const ir::Dim3& c = kernel.kernel().cluster;
  const ir::Dim3& b = kernel.kernel().block;
  lc.grid_clusters = {grid.x, grid.y, grid.z};
  lc.cluster = {c.x, c.y, c.z};
  lc.block = {b.x, b.y, b.z};
  lc.dynamic_smem = kernel.lowered.dynamic_smem;
  lc.stream = stream;
  lc.dependent_launch = kernel.kernel().dependent_launch;
  return lc;
}

namespace {
void check_bound(const BoundArgs& args, CUfunction function, const std::string& kernel) {
  if (args.function() != function)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "arguments bound for kernel '" + args.kernel_name() +
                                                     "' were passed to kernel '" + kernel + "'");
}
}  // namespace

void JitKernel::prepare(Grid grid, BoundArgs& args, CUstream stream) {
  check_bound(args, module_.function(), name());
  check_schedule_launch(kernel(), args.pack(), ir::Dim3{grid.x, grid.y, grid.z});
  device_.make_current();
  workspaces_->bind(kernel(), ir::Dim3{grid.x, grid.y, grid.z}, stream, args.pack());
}

void JitKernel::launch(Grid grid, BoundArgs& args, CUstream stream) {
  prepare(grid, args, stream);
  rt::launch(module_, launch_config(grid, stream), args.pack());
}

void JitKernel::launch_repeated(Grid grid, BoundArgs& args, int count, CUstream stream) {
  prepare(grid, args, stream);
  rt::launch_repeated(module_, launch_config(grid, stream), args.pack(), count);
}

void JitKernel::synchronize() const {
  device_.make_current();
  rt::synchronize(module_);
}

Timing JitKernel::time(Grid grid, BoundArgs& args, int iters, int warmup, CUstream stream) {
  prepare(grid, args, stream);
  return rt::time_launches(module_, launch_config(grid, stream), args.pack(), iters, warmup);
}

std::optional<Grid> JitKernel::schedule_grid(const BoundArgs& args) const {
  if (!kernel().schedule_grid) return std::nullopt;
  const int active = kernel().schedule_grid->per_unit ? 1 : max_active_clusters();
  const std::optional<uint64_t> n = schedule_clusters(kernel(), args.pack(), active);
  if (*n > 0x7fffffffu / kernel().cluster.x)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "kernel '" + name() + "': its schedule asks for " + std::to_string(*n) +
                                                     " clusters, more than a grid holds");
  return Grid{unsigned(*n), 1, 1};
}

int JitKernel::max_active_clusters() const {
  device_.make_current();
  return rt::max_active_clusters(module_, launch_config(Grid{}));
}

rt::DeviceBuffer* JitKernel::workspace(const std::string& param, CUstream stream) {
  const std::vector<ir::Param>& params = kernel().params;
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == param && params[i].workspace) return workspaces_->find(stream, i);
  throw rt::RuntimeError(rt::ErrorKind::Usage, "kernel '" + name() + "' has no workspace parameter '" + param + "'");
}

}  // namespace tj
