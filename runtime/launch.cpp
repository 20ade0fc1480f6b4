#include "runtime/launch.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "runtime/driver.h"
#include "runtime/module.h"

namespace tj::rt {

namespace {

constexpr unsigned kMaxClusterCtas = 16;  // hardware limit (Hopper, Blackwell)
constexpr unsigned kPortableClusterCtas = 8;

std::string dims(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

uint64_t volume(const Dim3& d) { return uint64_t(d.x) * d.y * d.z; }

RuntimeError launch_error(std::string_view kernel, const std::string& sentence) {
  return RuntimeError(ErrorKind::Launch, "kernel '" + std::string(kernel) + "': " + sentence);
}

// A cuLaunchKernelEx config whose attribute array lives as long as it does.
struct NativeConfig {
  CUlaunchConfig config{};
  CUlaunchAttribute attrs[2]{};

  // `launching`: the config of a launch, with its dependent-launch attribute; else the
  // one the occupancy queries see (the cluster shape alone).
  explicit NativeConfig(const LaunchConfig& c, bool launching = false) {
    Dim3 grid = grid_in_blocks(c);
    config.gridDimX = grid.x;
    config.gridDimY = grid.y;
    config.gridDimZ = grid.z;
    config.blockDimX = c.block.x;
    config.blockDimY = c.block.y;
    config.blockDimZ = c.block.z;
    config.sharedMemBytes = c.dynamic_smem;
    config.hStream = c.stream;
    // Always explicit, even 1x1x1, so the kernel sees the same cluster shape we checked.
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[0].value.clusterDim.x = c.cluster.x;
    attrs[0].value.clusterDim.y = c.cluster.y;
    attrs[0].value.clusterDim.z = c.cluster.z;
    config.attrs = attrs;
    config.numAttrs = 1;
    if (launching && c.dependent_launch) {
      attrs[1].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[1].value.programmaticStreamSerializationAllowed = 1;
      config.numAttrs = 2;
    }
  }
  NativeConfig(const NativeConfig&) = delete; // attrs points into this object
};

// Says which resource keeps a cluster of this config off the device, with the numbers.
std::string explain_no_room(const Module& module, const LaunchConfig& c) {
  const DeviceInfo& dev = module.device();
  long smem = long(module.static_smem()) + c.dynamic_smem;
  long threads = long(c.block.count());
  long regs = long(module.num_regs()) * threads;
  std::string why = "this device (" + dev.name + ", " + std::to_string(dev.sm_count) +
                    " SMs) cannot co-schedule one cluster of " + std::to_string(c.cluster.count()) +
                    " CTAs (" + dims(c.cluster) + "), each with " + std::to_string(smem) +
                    " bytes of shared memory (" + std::to_string(module.static_smem()) +
                    " static + " + std::to_string(c.dynamic_smem) + " dynamic; " +
                    std::to_string(dev.max_smem_per_sm) + " per SM), " + std::to_string(threads) +
                    " threads and " + std::to_string(regs) + " registers (" +
                    std::to_string(dev.max_regs_per_sm) +
                    " per SM): cuOccupancyMaxActiveClusters returned 0. ";
  if (dev.max_regs_per_sm > 0 && regs > dev.max_regs_per_sm)
    return why + "The registers per CTA exceed one SM; use fewer threads per CTA.";
  if (dev.max_smem_per_sm > 0 && smem > dev.max_smem_per_sm)
    return why + "The shared memory per CTA exceeds one SM; use less shared memory per CTA.";
  if (c.cluster.count() > kPortableClusterCtas)
    return why + "The cluster size is the limit: clusters over 8 CTAs need that many SMs of "
                 "one GPC free at once; use a cluster of 8 or fewer, or less shared memory per CTA.";
  return why + "Use a smaller cluster, less shared memory per CTA or fewer threads per CTA.";
}

// cuOccupancyMaxActiveClusters, once validate() and prepare() have run.
int active_clusters(const Module& module, const LaunchConfig& config) {
  NativeConfig native(config);
  int clusters = 0;
  check(driver().cuOccupancyMaxActiveClusters(&clusters, module.function(), &native.config),
        "cuOccupancyMaxActiveClusters", module.kernel_name());
  return clusters;
}

void check_room(const Module& module, const LaunchConfig& config) {
  if (active_clusters(module, config) == 0)
    throw launch_error(module.kernel_name(), explain_no_room(module, config));
}

void launch_unchecked(const Module& module, const LaunchConfig& config, ArgPack& args) {
  NativeConfig native(config, true);
  check(driver().cuLaunchKernelEx(&native.config, module.function(), args.data(), nullptr),
        "cuLaunchKernelEx", module.kernel_name());
}

void check_all(const Module& module, const LaunchConfig& config, const ArgPack& args) {
  validate(config, module.kernel_name());
  check_args(module, args);
  prepare(module, config);
  check_room(module, config);
}

} // namespace

Dim3 grid_in_blocks(const LaunchConfig& c) {
  return {c.grid_clusters.x * c.cluster.x, c.grid_clusters.y * c.cluster.y,
          c.grid_clusters.z * c.cluster.z};
}

void validate(const LaunchConfig& c, std::string_view kernel) {
  for (auto [what, d] : {std::pair{"grid_clusters", c.grid_clusters}, std::pair{"cluster", c.cluster},
                         std::pair{"block", c.block}})
    if (d.x == 0 || d.y == 0 || d.z == 0)
      throw launch_error(kernel, std::string(what) + " is " + dims(d) +
                                     "; every launch dimension must be at least 1");
  if (volume(c.cluster) > kMaxClusterCtas)
    throw launch_error(kernel, "a cluster of " + std::to_string(volume(c.cluster)) + " CTAs (" +
                                   dims(c.cluster) +
                                   ") exceeds the hardware limit of 16 CTAs per cluster "
                                   "(8 is the portable size); use a smaller cluster");
  if (volume(c.block) > 1024 || c.block.z > 64)
    throw launch_error(kernel, "a block of " + dims(c.block) + " threads exceeds the limit of 1024 "
                                   "threads per CTA (and 64 in z)");
  uint64_t gx = uint64_t(c.grid_clusters.x) * c.cluster.x;
  uint64_t gy = uint64_t(c.grid_clusters.y) * c.cluster.y;
  uint64_t gz = uint64_t(c.grid_clusters.z) * c.cluster.z;
  if (gx > 0x7fffffffu || gy > 65535 || gz > 65535)
    throw launch_error(kernel, "the grid of " + std::to_string(gx) + "x" + std::to_string(gy) + "x" +
                                   std::to_string(gz) +
                                   " CTAs exceeds the limits (2^31-1 in x, 65535 in y and z)");
}

ArgPack& ArgPack::push_bytes(const void* data, size_t bytes, size_t align) {
  align = std::max<size_t>(align, 16);
  void* block = ::operator new(std::max<size_t>(bytes, 1), std::align_val_t(align));
  blocks_.emplace_back(block, Free{align});
  if (bytes) std::memcpy(block, data, bytes);
  pointers_.push_back(block);
  sizes_.push_back(bytes);
  return *this;
}

void ArgPack::overwrite(size_t i, const void* data, size_t bytes) {
  if (i >= sizes_.size() || sizes_[i] != bytes)
    throw RuntimeError(ErrorKind::Usage, "ArgPack::overwrite: value " + std::to_string(i) + " is not " + std::to_string(bytes) + " bytes");
  std::memcpy(pointers_[i], data, bytes);
}

void check_args(const Module& module, const ArgPack& args) {
  const std::vector<size_t>& sizes = module.param_sizes();
  if (sizes.size() != args.size())
    throw launch_error(module.kernel_name(), "takes " + std::to_string(sizes.size()) + " parameter(s) but " +
                                                 std::to_string(args.size()) + " argument(s) were pushed");
  for (size_t i = 0; i < sizes.size(); ++i) {
    const size_t size = sizes[i];
    if (args.bytes_of(i) != size)
      throw launch_error(module.kernel_name(),
                         "argument " + std::to_string(i) + " is " + std::to_string(args.bytes_of(i)) +
                             " bytes but the kernel's parameter " + std::to_string(i) + " is " +
                             std::to_string(size) + " bytes");
  }
}

void prepare(const Module& module, const LaunchConfig& c) {
  const Driver& d = driver();
  const std::string& kernel = module.kernel_name();
  if (c.cluster.count() > kPortableClusterCtas)
    check(d.cuFuncSetAttribute(module.function(),
                               CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
          "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)", kernel);
  if (c.dynamic_smem > 0) {
    long total = long(module.static_smem()) + c.dynamic_smem;
    int limit = module.device().max_smem_per_block_optin;
    if (limit > 0 && total > limit)
      throw launch_error(kernel, "asks for " + std::to_string(c.dynamic_smem) +
                                     " bytes of dynamic shared memory plus " +
                                     std::to_string(module.static_smem()) + " static (" +
                                     std::to_string(total) + " in all), but this device allows " +
                                     std::to_string(limit) + " per CTA");
    check(d.cuFuncSetAttribute(module.function(), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               int(c.dynamic_smem)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", kernel);
  }
}

int max_active_clusters(const Module& module, const LaunchConfig& config) {
  validate(config, module.kernel_name());
  prepare(module, config); // clusters over 8 count as 0 until allowed
  return active_clusters(module, config);
}

void launch(const Module& module, const LaunchConfig& config, ArgPack& args) {
  check_all(module, config, args);
  launch_unchecked(module, config, args);
}

void launch_repeated(const Module& module, const LaunchConfig& config, ArgPack& args, int count) {
  check_all(module, config, args);
  for (int i = 0; i < count; ++i) launch_unchecked(module, config, args);
}

void synchronize(const Module& module) {
  check(driver().cuCtxSynchronize(), "cuCtxSynchronize", module.kernel_name());
}

Timing time_launches(const Module& module, const LaunchConfig& config, ArgPack& args, int iters,
                     int warmup) {
  check_all(module, config, args);
  return time_enqueued(module.kernel_name(), config.stream, iters, warmup,
                       [&] { launch_unchecked(module, config, args); });
}

} // namespace tj::rt
