#include "runtime/driver.h"

#include <dlfcn.h>

namespace tj::rt {

namespace {

struct Loaded {
  Driver driver;
  bool ok = false;
  std::string error; // why not ok
};

std::string describe_with(const Driver& d, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (d.cuGetErrorName) d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString) d.cuGetErrorString(result, &text);
  std::string out = name ? std::string(name) + " (" + std::to_string(int(result)) + ")"
                         : "CUresult " + std::to_string(int(result));
  if (text) out += std::string(": ") + text;
  return out;
}

Loaded open_driver() {
  Loaded l;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    l.error = std::string("dlopen(libcuda.so.1) failed: ") + (why ? why : "unknown reason");
    return l;
  }
  // Never dlclose: function pointers into it live as long as the process.
  auto get_proc = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!get_proc) {
    l.error = "libcuda.so.1 has no cuGetProcAddress_v2; the driver predates CUDA 12.0";
    return l;
  }
  // An unknown symbol comes back as CUDA_SUCCESS with a null pointer and a status of
  // SYMBOL_NOT_FOUND, so all three are checked.
#define TJ_LOAD(name, version)                                                                  \
  {                                                                                             \
    void* fn = nullptr;                                                                         \
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                \
    CUresult r = get_proc(#name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);           \
    if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || !fn) {                    \
      l.error = std::string("libcuda.so.1 lacks ") + #name + " (version " #version "): " +        \
                (r != CUDA_SUCCESS                                                              \
                     ? describe_with(l.driver, r)                                               \
                     : status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT                     \
                           ? std::string("the driver is too old")                               \
                           : std::string("symbol not found"));                                  \
      return l;                                                                                 \
    }                                                                                           \
    l.driver.name = reinterpret_cast<decltype(l.driver.name)>(fn);                              \
  }
  TJ_DRIVER_FUNCTIONS(TJ_LOAD)
#undef TJ_LOAD

  if (CUresult r = l.driver.cuInit(0); r != CUDA_SUCCESS) {
    l.error = "cuInit failed: " + describe_with(l.driver, r);
    return l;
  }
  l.driver.cuDriverGetVersion(&l.driver.version);
  l.ok = true;
  return l;
}

// Opened once, on first use; a function-local static is initialised thread-safely.
const Loaded& loaded() {
  static const Loaded instance = open_driver();
  return instance;
}

} // namespace

bool driver_available(std::string* why) {
  const Loaded& l = loaded();
  if (why) *why = l.error;
  return l.ok;
}

const Driver& driver() {
  const Loaded& l = loaded();
  if (!l.ok)
    throw RuntimeError(ErrorKind::NoDriver,
                       "no CUDA driver: " + l.error + "; launching needs a GPU");
  return l.driver;
}

ErrorKind classify(CUresult result) {
  switch (result) {
  // The context is broken (sticky faults) or the device itself failed.
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_TENSOR_MEMORY_LEAK:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
  case CUDA_ERROR_NVLINK_UNCORRECTABLE:
  case CUDA_ERROR_CONTAINED:
  case CUDA_ERROR_DEVICE_UNAVAILABLE:
  case CUDA_ERROR_OUT_OF_MEMORY:
    return ErrorKind::Device;
  default:
    return ErrorKind::Launch;
  }
}

std::string describe(CUresult result) {
  const Loaded& l = loaded();
  return describe_with(l.driver, result);
}

RuntimeError driver_error(CUresult result, const char* call, std::string_view kernel,
                          std::string_view hint) {
  std::string message = std::string(call) + " failed";
  if (!kernel.empty()) message += " for kernel '" + std::string(kernel) + "'";
  message += ": " + describe(result);
  if (!hint.empty()) message += ". " + std::string(hint);
  return RuntimeError(classify(result), std::move(message));
}

void check(CUresult result, const char* call, std::string_view kernel) {
  if (result != CUDA_SUCCESS) throw driver_error(result, call, kernel);
}

} // namespace tj::rt
