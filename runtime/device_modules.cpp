#include "runtime/device_modules.h"

#include "runtime/error.h"

namespace tj::rt {

std::string arch_mismatch(const std::string& cubin_arch, const DeviceInfo& device) {
  const std::string device_arch = arch_for(device.cc_major, device.cc_minor);
  if (device_arch == cubin_arch) return "";
  return "the kernel was compiled for " + cubin_arch + ", and device " + std::to_string(device.ordinal) + " (" +
         device.name + ") is " + device_arch + "; compile it for " + device_arch + " too (a cubin is built per arch)";
}

DeviceModules::DeviceModules(std::string arch, std::string cubin, std::string kernel_name, size_t param_count)
    : arch_(std::move(arch)), cubin_(std::move(cubin)), kernel_name_(std::move(kernel_name)),
      param_count_(param_count) {}

const Module& DeviceModules::on(const Context& ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  const int ordinal = ctx.info().ordinal;
  if (auto it = by_device_.find(ordinal); it != by_device_.end()) return *it->second;
  if (std::string why = arch_mismatch(arch_, ctx.info()); !why.empty())
    throw RuntimeError(ErrorKind::Usage, "kernel '" + kernel_name_ + "': " + why);
  auto m = std::make_unique<Module>(Module::load(ctx, cubin_, kernel_name_, param_count_));
  return *by_device_.emplace(ordinal, std::move(m)).first->second;
}

size_t DeviceModules::loaded_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_device_.size();
}

} // namespace tj::rt
