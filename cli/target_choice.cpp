#include "cli/target_choice.h"

#include <charconv>

#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/error.h"

namespace tj::cli {

codegen::Target choose_target(const std::string& arch_flag) {
  std::string arch = arch_flag.empty() ? rt::default_arch() : arch_flag;
  std::optional<codegen::Target> t = codegen::Target::parse(arch);
  if (!t) throw rt::RuntimeError(rt::ErrorKind::Usage, "unsupported architecture '" + arch + "'; use sm_90a or sm_100a");
  return *t;
}

codegen::Target device_target(const rt::Context& ctx) {
  std::optional<codegen::Target> t = codegen::Target::parse(ctx.arch());
  if (!t)
    throw rt::RuntimeError(rt::ErrorKind::NoDriver, "GPU " + ctx.info().name + " is " + ctx.arch() +
                                                        "; tilejit runs kernels on sm_90a (Hopper) or sm_100a (Blackwell)");
  return *t;
}

int parse_device_flag(const std::string& text) {
  int n = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || ec != std::errc() ||
      end != text.data() + text.size())
    throw rt::RuntimeError(rt::ErrorKind::Usage,
                           "--device: '" + text + "' is not a device number; use 0, 1, ... (`tilejit info` shows device 0)");
  return n;
}

Device open_device(std::optional<int> device_flag) {
  if (device_flag) {
    int count = 0;
    rt::check(rt::driver().cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0) throw rt::RuntimeError(rt::ErrorKind::NoDriver, "no CUDA device found; launching needs a GPU");
    if (*device_flag >= count)
      throw rt::RuntimeError(rt::ErrorKind::Usage, "--device " + std::to_string(*device_flag) + ": this machine has " +
                                                       std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") +
                                                       ", numbered 0.." + std::to_string(count - 1));
    return Device::get(*device_flag);
  }
  return Device::get();
}

}  // namespace tj::cli
