// The CUDA driver API, opened at run time. libcuda is never linked, so every compile-only
// path (and every test that needs no GPU) works on a machine without a driver.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>
#include <string_view>

#include "runtime/error.h"

namespace tj::rt {

// Every driver entry point the runtime uses, with the version whose ABI its PFN typedef
// describes. Each is fetched with cuGetProcAddress(name, <that version>), so the function
// we get always matches the signature we call (cuCtxSynchronize, for one, changed in 13.0).
// cuda.h #defines some names to their _v2 forms; the members follow, consistently.
#define TJ_DRIVER_FUNCTIONS(X)                                                                  \
  X(cuGetErrorName, 6000)                                                                       \
  X(cuGetErrorString, 6000)                                                                     \
  X(cuInit, 2000)                                                                               \
  X(cuDriverGetVersion, 2020)                                                                   \
  X(cuDeviceGetCount, 2000)                                                                     \
  X(cuDeviceGet, 2000)                                                                          \
  X(cuDeviceGetName, 2000)                                                                      \
  X(cuDeviceGetAttribute, 2000)                                                                 \
  X(cuDeviceTotalMem, 3020)                                                                     \
  X(cuDevicePrimaryCtxRetain, 7000)                                                             \
  X(cuDevicePrimaryCtxRelease, 11000)                                                           \
  X(cuCtxSetCurrent, 4000)                                                                      \
  X(cuCtxGetDevice, 2000)                                                                       \
  X(cuCtxSynchronize, 2000)                                                                     \
  X(cuModuleLoadData, 2000)                                                                     \
  X(cuModuleUnload, 2000)                                                                       \
  X(cuModuleGetFunction, 2000)                                                                  \
  X(cuFuncGetAttribute, 2020)                                                                   \
  X(cuFuncSetAttribute, 9000)                                                                   \
  X(cuFuncGetParamInfo, 12040)                                                                  \
  X(cuMemAlloc, 3020)                                                                           \
  X(cuMemFree, 3020)                                                                            \
  X(cuMemcpyHtoD, 3020)                                                                         \
  X(cuMemcpyDtoH, 3020)                                                                         \
  X(cuMemcpyDtoD, 3020)                                                                         \
  X(cuMemcpyDtoDAsync, 3020)                                                                    \
  X(cuMemsetD8, 3020)                                                                           \
  X(cuMemsetD8Async, 3020)                                                                      \
  X(cuLaunchKernelEx, 11060)                                                                    \
  X(cuOccupancyMaxActiveClusters, 11070)                                                        \
  X(cuOccupancyMaxPotentialClusterSize, 11070)                                                  \
  X(cuEventCreate, 2000)                                                                        \
  X(cuEventRecord, 2000)                                                                        \
  X(cuEventSynchronize, 2000)                                                                   \
  X(cuEventElapsedTime, 12080)                                                                  \
  X(cuEventDestroy, 4000)                                                                       \
  X(cuStreamSynchronize, 2000)                                                                  \
  X(cuStreamCreate, 2000)                                                                       \
  X(cuStreamDestroy, 4000)                                                                      \
  X(cuStreamIsCapturing, 10000)                                                                 \
  X(cuStreamBeginCapture, 10010)                                                                \
  X(cuStreamEndCapture, 10000)                                                                  \
  X(cuGraphInstantiateWithFlags, 11040)                                                         \
  X(cuGraphLaunch, 10000)                                                                       \
  X(cuGraphExecDestroy, 10000)                                                                  \
  X(cuGraphDestroy, 10000)                                                                      \
  X(cuTensorMapEncodeTiled, 12000)

struct Driver {
#define TJ_DRIVER_MEMBER(name, version) PFN_##name##_v##version name = nullptr;
  TJ_DRIVER_FUNCTIONS(TJ_DRIVER_MEMBER)
#undef TJ_DRIVER_MEMBER
  int version = 0; // cuDriverGetVersion, e.g. 13000
};

// Whether the driver can be opened and initialised (cuInit succeeded). On false, `why`
// (if given) says what failed, e.g. "dlopen(libcuda.so.1) failed: ...".
bool driver_available(std::string* why = nullptr);

// The driver, opened and cuInit'ed on first use (thread-safe). Throws
// RuntimeError(NoDriver) when there is none.
const Driver& driver();

// Device faults and lost contexts are ErrorKind::Device; everything else is Launch.
ErrorKind classify(CUresult result);

// "CUDA_ERROR_INVALID_CLUSTER_SIZE (912): <cuGetErrorString text>"; just the number if the
// driver cannot name it.
std::string describe(CUresult result);

// The error check() throws, with an optional sentence appended (e.g. how to fix it).
RuntimeError driver_error(CUresult result, const char* call, std::string_view kernel,
                          std::string_view hint = {});

// The one checking helper for driver calls: throws RuntimeError(classify(result)) with
// "<call> failed for kernel '<kernel>': <describe(result)>". No-op on CUDA_SUCCESS.
void check(CUresult result, const char* call, std::string_view kernel = {});

} // namespace tj::rt
