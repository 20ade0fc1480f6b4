// One compiled kernel, loaded on each device it runs on. A cubin is compiled once
// per arch (the compile cache's key holds the arch and nothing of the device), and a
// module belongs to one context: this keeps the cubin and loads it into each device's
// primary context on first use there.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/device.h"
#include "runtime/module.h"

namespace tj::rt {

// Why a cubin built for `cubin_arch` cannot run on `device`, or "" when it can: the
// "a" targets (sm_90a, sm_100a) run only on that exact compute capability.
std::string arch_mismatch(const std::string& cubin_arch, const DeviceInfo& device);

class DeviceModules {
public:
  DeviceModules(std::string arch, std::string cubin, std::string kernel_name, size_t param_count);

  // The kernel's module in ctx, loaded there on the first call for ctx's device.
  // RuntimeError(Usage) when the device's arch is not the cubin's (compile for it).
  // Safe to call from several threads.
  const Module& on(const Context& ctx);

  const std::string& arch() const { return arch_; }
  // How many devices the kernel has been loaded on.
  size_t loaded_count() const;

private:
  std::string arch_, cubin_, kernel_name_;
  size_t param_count_;
  mutable std::mutex mu_;
  std::map<int, std::unique_ptr<Module>> by_device_;  // device ordinal -> module in its primary context
};

} // namespace tj::rt
