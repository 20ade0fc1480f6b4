// A loaded cubin and the one kernel tilejit launches from it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <cuda.h>

#include "runtime/device.h"

namespace tj::rt {

class Context;

class Module {
public:
  // Loads `cubin` into ctx (made current) and finds `kernel_name` (the symbol name:
  // extern "C" or mangled). Throws RuntimeError(Launch) naming the kernel on failure.
  static Module load(const Context& ctx, const std::string& cubin, const std::string& kernel_name);
  // The same, for a kernel whose parameter count the caller knows (tilejit's
  // code generator does): the sizes are then read without probing past the end.
  static Module load(const Context& ctx, const std::string& cubin, const std::string& kernel_name,
                     size_t param_count);

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
  // The byte size of each kernel parameter. The driver has no count query, so
  // this probes cuFuncGetParamInfo past the last parameter (an API error a
  // sanitizer reports) once per module, not once per launch.
  const std::vector<size_t>& param_sizes() const;

private:
  Module() = default;
  int attribute(CUfunction_attribute attr, const char* what) const;

  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  std::string kernel_name_;
  DeviceInfo device_;
  mutable std::optional<std::vector<size_t>> param_sizes_;
  std::optional<size_t> param_count_;
};

} // namespace tj::rt
