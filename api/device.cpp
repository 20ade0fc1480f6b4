#include "api/device.h"

#include <map>
#include <mutex>

#include "codegen/target.h"
#include "runtime/driver.h"

namespace tj {

Device Device::get(int ordinal) {
  if (ordinal < 0) ordinal = rt::default_device_ordinal();
  // Primary contexts are per process in the driver; one retained Context per device
  // mirrors that, so tensors and kernels made on a device share its context.
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<const rt::Context>> contexts;
  std::shared_ptr<const rt::Context> ctx;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::shared_ptr<const rt::Context>& slot = contexts[ordinal];
    if (!slot) slot = std::make_shared<const rt::Context>(ordinal);
    ctx = slot;
  }
  ctx->make_current();
  return Device(std::move(ctx));
}

bool gpu_available(std::string* why) {
  std::string reason;
  if (!rt::driver_available(&reason)) {
    if (why) *why = "no CUDA driver (" + reason + ")";
    return false;
  }
  int count = 0;
  if (rt::driver().cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    if (why) *why = "the CUDA driver sees no GPU";
    return false;
  }
  rt::DeviceInfo info;
  try {
    info = rt::query_device(rt::default_device_ordinal());
  } catch (const rt::RuntimeError& e) {  // TILEJIT_DEVICE names no device, ...
    if (why) *why = e.what();
    return false;
  }
  const std::string arch = rt::arch_for(info.cc_major, info.cc_minor);
  if (!codegen::Target::parse(arch)) {
    if (why) *why = info.name + " is " + arch + "; tilejit runs kernels on sm_90a (Hopper) or sm_100a (Blackwell)";
    return false;
  }
  return true;
}

}  // namespace tj
