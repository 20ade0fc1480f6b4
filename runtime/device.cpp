#include "runtime/device.h"

#include <charconv>
#include <cstdlib>

#include "runtime/driver.h"

namespace tj::rt {

namespace {

int attribute(const Driver& d, CUdevice device, CUdevice_attribute attr, const char* what) {
  int value = 0;
  CUresult r = d.cuDeviceGetAttribute(&value, attr, device);
  if (r != CUDA_SUCCESS)
    throw driver_error(r, "cuDeviceGetAttribute", {}, std::string("querying ") + what);
  return value;
}

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

} // namespace

int default_device_ordinal() {
  const char* text = env("TILEJIT_DEVICE");
  if (!text) return 0;
  std::string_view s(text);
  int ordinal = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), ordinal);
  if (ec != std::errc() || end != s.data() + s.size() || ordinal < 0)
    throw RuntimeError(ErrorKind::Usage, "TILEJIT_DEVICE='" + std::string(s) +
                                             "' is not a device number; use 0, 1, ...");
  return ordinal;
}

DeviceInfo query_device(int ordinal) {
  const Driver& d = driver();
  int count = 0;
  check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0)
    throw RuntimeError(ErrorKind::NoDriver, "no CUDA device found; launching needs a GPU");
  if (ordinal < 0 || ordinal >= count)
    throw RuntimeError(ErrorKind::Usage,
                       "CUDA device " + std::to_string(ordinal) + " does not exist: this machine has " +
                           std::to_string(count) + " device(s); set TILEJIT_DEVICE to 0.." +
                           std::to_string(count - 1));
  CUdevice device = 0;
  check(d.cuDeviceGet(&device, ordinal), "cuDeviceGet");

  DeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  check(d.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  info.name = name;
  info.cc_major = attribute(d, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability");
  info.cc_minor = attribute(d, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability");
  info.sm_count = attribute(d, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
  info.max_smem_per_block_optin = attribute(
      d, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "shared memory per block");
  info.max_smem_per_sm = attribute(
      d, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "shared memory per SM");
  info.l2_bytes = attribute(d, device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 size");
  info.max_threads_per_block =
      attribute(d, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads per block");
  info.max_regs_per_sm =
      attribute(d, device, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "registers per SM");
  check(d.cuDeviceTotalMem(&info.total_mem, device), "cuDeviceTotalMem");
  return info;
}

int current_device_sm_count() {
  const Driver& d = driver();
  CUdevice device = 0;
  check(d.cuCtxGetDevice(&device), "cuCtxGetDevice");
  return attribute(d, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
}

std::string arch_for(int cc_major, int cc_minor) {
  // The "a" targets unlock wgmma (9.0) and tcgen05 (10.0); they run only on that exact chip,
  // which is the chip we are asking about.
  if (cc_major == 9 && cc_minor == 0) return "sm_90a";
  if (cc_major == 10 && cc_minor == 0) return "sm_100a";
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

bool is_supported_arch(std::string_view arch) { return arch == "sm_90a" || arch == "sm_100a"; }

std::string default_arch() {
  if (const char* arch = env("TILEJIT_ARCH")) {
    if (!is_supported_arch(arch))
      throw RuntimeError(ErrorKind::Usage,
                         "TILEJIT_ARCH='" + std::string(arch) +
                             "' is not a target tilejit generates code for; use sm_90a (Hopper) "
                             "or sm_100a (Blackwell), or unset it to use the GPU's own arch");
    return arch;
  }
  if (driver_available()) {
    int count = 0;
    if (driver().cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 0) {
      DeviceInfo info = query_device(default_device_ordinal());
      return arch_for(info.cc_major, info.cc_minor);
    }
  }
  return "sm_90a"; // no GPU here: compile for the H200 the tests run on
}

Context::Context(int ordinal) : info_(query_device(ordinal)) {
  const Driver& d = driver();
  check(d.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  check(d.cuDevicePrimaryCtxRetain(&ctx_, device_), "cuDevicePrimaryCtxRetain");
  if (CUresult r = d.cuCtxSetCurrent(ctx_); r != CUDA_SUCCESS) {
    d.cuDevicePrimaryCtxRelease(device_);
    ctx_ = nullptr;
    check(r, "cuCtxSetCurrent");
  }
}

Context::Context(Context&& other) noexcept
    : info_(std::move(other.info_)), device_(other.device_), ctx_(other.ctx_) {
  other.ctx_ = nullptr;
}

Context::~Context() {
  // Destructors do not throw; a failure to release at exit changes nothing we can act on.
  if (ctx_) driver().cuDevicePrimaryCtxRelease(device_);
}

void Context::make_current() const { check(driver().cuCtxSetCurrent(ctx_), "cuCtxSetCurrent"); }

} // namespace tj::rt
