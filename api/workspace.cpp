#include "api/workspace.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "codegen/analysis/eval.h"
#include "dsl/ir/printer.h"
#include "runtime/driver.h"
#include "runtime/error.h"

namespace tj {

namespace {

// The integer scalar arguments in `args`, by parameter name: what a workspace size may read.
std::map<std::string, int64_t> scalar_values(const ir::Kernel& kernel, const rt::ArgPack& args) {
  std::map<std::string, int64_t> out;
  for (size_t i = 0; i < kernel.params.size() && i < args.size(); ++i) {
    const ir::Param& p = kernel.params[i];
    if (p.type.is_pointer()) continue;
    const void* v = args.value(i);
    switch (p.type.scalar) {
      case ir::Scalar::I32: { int32_t x; std::memcpy(&x, v, 4); out[p.name] = x; break; }
      case ir::Scalar::U32: { uint32_t x; std::memcpy(&x, v, 4); out[p.name] = x; break; }
      case ir::Scalar::I64: { int64_t x; std::memcpy(&x, v, 8); out[p.name] = x; break; }
      case ir::Scalar::U64: { uint64_t x; std::memcpy(&x, v, 8); out[p.name] = int64_t(x); break; }
      case ir::Scalar::U8: { uint8_t x; std::memcpy(&x, v, 1); out[p.name] = x; break; }
      default: break;
    }
  }
  return out;
}

}  // namespace

uint64_t workspace_elements(const ir::Kernel& kernel, size_t param, const rt::ArgPack& args, ir::Dim3 grid_clusters) {
  const ir::Param& p = kernel.params.at(param);
  if (!p.workspace) ir::internal_error("workspace_elements: parameter '" + p.name + "' is not a workspace");
  const std::map<std::string, int64_t> vars = scalar_values(kernel, args);
  codegen::EvalEnv env;
  env.cluster = kernel.cluster;
  env.block = kernel.block;
  env.grid_clusters = grid_clusters;
  env.vars = &vars;
  const std::string what = "kernel '" + kernel.name + "' workspace '" + p.name + "' (declared at " + p.loc.str() + ")";
  const std::optional<int64_t> n = codegen::eval_int(p.workspace->elements, env);
  if (!n)
    throw rt::RuntimeError(rt::ErrorKind::Usage, what + ": its size " + ir::to_string(p.workspace->elements) +
                                                     " cannot be evaluated from this launch's arguments and grid");
  if (*n < 0)
    throw rt::RuntimeError(rt::ErrorKind::Usage, what + ": its size " + ir::to_string(p.workspace->elements) + " is " +
                                                     std::to_string(*n) + " elements for this launch");
  return uint64_t(*n);
}

std::optional<uint64_t> schedule_clusters(const ir::Kernel& kernel, const rt::ArgPack& args, int max_active_clusters) {
  if (!kernel.schedule_grid) return std::nullopt;
  const std::map<std::string, int64_t> vars = scalar_values(kernel, args);
  codegen::EvalEnv env;
  env.cluster = kernel.cluster;
  env.block = kernel.block;
  env.vars = &vars;
  const std::optional<int64_t> units = codegen::eval_int(kernel.schedule_grid->units, env);
  if (!units)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "kernel '" + kernel.name + "': its schedule's unit count " +
                                                     ir::to_string(kernel.schedule_grid->units) +
                                                     " cannot be evaluated from this launch's arguments, so the grid cannot be sized");
  const uint64_t n = uint64_t(std::max<int64_t>(1, *units));
  if (kernel.schedule_grid->per_unit) return n;
  return std::max<uint64_t>(1, std::min<uint64_t>(n, uint64_t(std::max(1, max_active_clusters))));
}

void check_schedule_launch(const ir::Kernel& kernel, const rt::ArgPack& args, ir::Dim3 grid_clusters) {
  if (!kernel.schedule_grid) return;
  const std::string grid = "(" + std::to_string(grid_clusters.x) + ", " + std::to_string(grid_clusters.y) + ", " +
                           std::to_string(grid_clusters.z) + ") clusters";
  if (grid_clusters.y != 1 || grid_clusters.z != 1)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "kernel '" + kernel.name + "' walks a dynamic schedule, whose units follow the grid's x "
                                                 "only: a grid of " + grid + " would run each unit " +
                                                 std::to_string(uint64_t(grid_clusters.y) * grid_clusters.z) +
                                                 " times; launch the grid JitKernel::schedule_grid gives (N, 1, 1)");
  if (!kernel.schedule_grid->per_unit) return;
  const uint64_t units = *schedule_clusters(kernel, args, 1);
  if (grid_clusters.x != units)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "kernel '" + kernel.name + "' claims its units with cluster launch control, one cluster "
                                                 "per unit: this launch has " + std::to_string(units) + " units and a grid of " + grid +
                                                 (grid_clusters.x < units ? ", so the last units would never run"
                                                                          : ", so clusters past the last unit would run tiles outside the grid") +
                                                 "; launch the grid JitKernel::schedule_grid gives (" + std::to_string(units) + ", 1, 1)");
}

void Workspaces::bind(const ir::Kernel& kernel, ir::Dim3 grid_clusters, CUstream stream, rt::ArgPack& args) {
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const ir::Param& p = kernel.params[i];
    if (!p.workspace) continue;
    const uint64_t elements = workspace_elements(kernel, i, args, grid_clusters);
    const uint64_t elem_bytes = ir::scalar_bytes(p.type.scalar);
    if (elements > std::numeric_limits<uint64_t>::max() / elem_bytes)
      throw rt::RuntimeError(rt::ErrorKind::Usage, "kernel '" + kernel.name + "' workspace '" + p.name + "': " +
                                                       std::to_string(elements) + " elements do not fit in 64-bit bytes");
    const uint64_t bytes = elements * elem_bytes;
    rt::DeviceBuffer& buffer = buffers_[stream][i];
    if (buffer.bytes() < bytes) {
      // A graph being captured would hold the allocation's zeroing as a node of its own,
      // run again at every replay: the buffer must exist before the capture begins.
      CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
      rt::check(rt::driver().cuStreamIsCapturing(stream, &capturing), "cuStreamIsCapturing");
      if (capturing != CU_STREAM_CAPTURE_STATUS_NONE)
        throw rt::RuntimeError(rt::ErrorKind::Usage,
                               "kernel '" + kernel.name + "' workspace '" + p.name + "' needs " + std::to_string(bytes) +
                                   " bytes on a stream that is capturing a graph; launch the kernel once on that stream "
                                   "before the capture begins, so that its workspace is allocated (and zeroed) outside it");
      // Earlier launches on this stream may still read the old buffer.
      if (buffer.bytes()) rt::check(rt::driver().cuStreamSynchronize(stream), "cuStreamSynchronize (growing a workspace)");
      buffer = rt::DeviceBuffer();
      buffer = rt::DeviceBuffer(bytes);
      // Zeroed on the launch's own stream: ordered before the launch even on a stream that
      // does not synchronize with the legacy default stream (cuMemsetD8 runs there).
      if (p.workspace->zeroed) buffer.fill_u8_async(0, stream);
    }
    const CUdeviceptr address = bytes ? buffer.ptr() : 0;
    args.overwrite(i, &address, sizeof address);
  }
}

uint64_t Workspaces::bytes() const {
  uint64_t total = 0;
  for (const auto& [stream, by_param] : buffers_)
    for (const auto& [param, buffer] : by_param) total += buffer.bytes();
  return total;
}

rt::DeviceBuffer* Workspaces::find(CUstream stream, size_t param) {
  auto s = buffers_.find(stream);
  if (s == buffers_.end()) return nullptr;
  auto b = s->second.find(param);
  return b == s->second.end() ? nullptr : &b->second;
}

}  // namespace tj
