// A loaded cubin and the one kernel tilejit launches from it.
#pragma once

#include <string>

#include <cuda.h>

#include "runtime/device.h"

namespace tj::rt {

class Context;

class Module {
public:
  // Loads `cubin` into ctx (made current) and finds `kernel_name` (the symbol name:
  // extern "C" or mangled). Throws RuntimeError(Launch) naming the kernel on failure.
  static Module load(const Context& ctx, const std::string& cubin, const std::string& kernel_name);

  ~Module();
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  CUfunction function() const { return function_; }
  const std::string& kernel_name() const { return kernel_name_; }
  // The device it was loaded for: launch checks limits against it.
  const DeviceInfo& device() const { return device_; }
  int num_regs() const;
  int static_smem() const;
  int max_threads_per_block() const;

private:
  Module() = default;
  int attribute(CUfunction_attribute attr, const char* what) const;

  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  std::string kernel_name_;
  DeviceInfo device_;
};

} // namespace tj::rt
