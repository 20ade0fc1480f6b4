// The device and its primary context; the target arch that follows from them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <cuda.h>

namespace tj::rt {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_smem_per_block_optin = 0; // bytes one CTA may use after raising the attribute
  int max_smem_per_sm = 0;
  size_t total_mem = 0;
  int l2_bytes = 0;
  int max_threads_per_block = 0;
  int max_regs_per_sm = 0;
};

// TILEJIT_DEVICE if set (a non-negative integer, else RuntimeError(Usage)), else 0.
int default_device_ordinal();

// Attributes of device `ordinal`, without creating a context. Needs the driver.
DeviceInfo query_device(int ordinal);

// The SM count of the current context's device (a Context must be current).
int current_device_sm_count();

// "sm_90a" for 9.0, "sm_100a" for 10.0 (the feature-complete targets tilejit emits),
// else "sm_XY".
std::string arch_for(int cc_major, int cc_minor);

// The arches tilejit generates code for: sm_90a and sm_100a.
bool is_supported_arch(std::string_view arch);

// TILEJIT_ARCH if set (must be sm_90a or sm_100a, else RuntimeError(Usage)); else the arch
// of the default device when a driver and device exist; else "sm_90a".
std::string default_arch();

// Retains the device's primary context and makes it current on this thread. Everything
// else (buffers, modules, launches) runs in the current context, so keep a Context alive
// while using them.
class Context {
public:
  explicit Context(int ordinal = default_device_ordinal());
  ~Context();
  Context(Context&& other) noexcept;
  Context& operator=(Context&&) = delete;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& info() const { return info_; }
  std::string arch() const { return arch_for(info_.cc_major, info_.cc_minor); }
  CUcontext handle() const { return ctx_; }
  // Makes this context current on the calling thread (other threads start with none).
  void make_current() const;

private:
  DeviceInfo info_;
  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
};

} // namespace tj::rt
