#include "runtime/cublas.h"

#include <cublas_v2.h>
#include <dlfcn.h>

#include <cstdlib>
#include <utility>

#include "runtime/error.h"

namespace tj::rt {

namespace {

// cublasGemmEx has a C++ overload (a cudaDataType_t compute type); this is the C one.
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType_t, int, const void*, cudaDataType_t, int, const void*, void*,
                                    cudaDataType_t, int, cublasComputeType_t, cublasGemmAlgo_t);

// Every cuBLAS entry point tilejit calls, by its exported name (cublas_v2.h #defines
// cublasCreate and friends to these _v2 symbols), with its type.
#define TJ_CUBLAS_FUNCTIONS(X)                                  \
  X(cublasCreate_v2, decltype(&::cublasCreate_v2))              \
  X(cublasDestroy_v2, decltype(&::cublasDestroy_v2))            \
  X(cublasSetStream_v2, decltype(&::cublasSetStream_v2))        \
  X(cublasGemmEx, GemmExFn)                                     \
  X(cublasGetStatusName, decltype(&::cublasGetStatusName))      \
  X(cublasGetStatusString, decltype(&::cublasGetStatusString))  \
  X(cublasGetProperty, decltype(&::cublasGetProperty))

struct Api {
#define TJ_CUBLAS_MEMBER(name, type) type name = nullptr;
  TJ_CUBLAS_FUNCTIONS(TJ_CUBLAS_MEMBER)
#undef TJ_CUBLAS_MEMBER
};

struct Opened {
  Api api;
  void* library = nullptr;
  std::string name;   // the one that opened
  std::string error;  // when none did: every name and why
};

Opened open_first(const std::vector<std::string>& names) {
  Opened o;
  std::string tried;
  for (const std::string& name : names) {
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string("dlopen(") + name + ") failed: " + (why ? why : "unknown reason");
      continue;
    }
    Api api;
    std::string missing;
#define TJ_CUBLAS_RESOLVE(fn, type)                             \
  api.fn = reinterpret_cast<type>(dlsym(lib, #fn));             \
  if (!api.fn) missing += (missing.empty() ? "" : ", ") + std::string(#fn);
    TJ_CUBLAS_FUNCTIONS(TJ_CUBLAS_RESOLVE)
#undef TJ_CUBLAS_RESOLVE
    if (!missing.empty()) {
      tried += (tried.empty() ? "" : "; ") + name + " lacks " + missing;
      dlclose(lib);
      continue;
    }
    o.api = api;
    o.library = lib;
    o.name = name;
    return o;
  }
  o.error = "cuBLAS is not available (" + (tried.empty() ? std::string("no library names to try") : tried) +
            "); the GEMM reference needs the CUDA toolkit's libcublas: put its folder on LD_LIBRARY_PATH or "
            "set TILEJIT_CUBLAS to the library's path";
  return o;
}

// Opened once, on first use (thread-safe); never closed, as function pointers into it
// live as long as the process.
const Api& api() {
  static const Opened opened = open_first(cublas_library_names());
  if (!opened.library) throw RuntimeError(ErrorKind::NoDriver, opened.error);
  return opened.api;
}

// The one checking helper for cuBLAS calls: "<call> failed: CUBLAS_STATUS_... (n): <text>".
void check(cublasStatus_t status, const std::string& call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const Api& a = api();
  std::string message = call + " failed: " + a.cublasGetStatusName(status) + " (" + std::to_string(int(status)) +
                        "): " + a.cublasGetStatusString(status);
  throw RuntimeError(status == CUBLAS_STATUS_EXECUTION_FAILED ? ErrorKind::Device : ErrorKind::Launch,
                     std::move(message));
}

cudaDataType_t cuda_type(BlasType t) {
  switch (t) {
    case BlasType::BF16: return CUDA_R_16BF;
    case BlasType::F16: return CUDA_R_16F;
    case BlasType::F32: return CUDA_R_32F;
  }
  return CUDA_R_32F;
}

void* device_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

}  // namespace

std::vector<std::string> cublas_library_names() {
  if (const char* forced = std::getenv("TILEJIT_CUBLAS"); forced && *forced) return {forced};
  return {"libcublas.so.13", "libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so.13",
          "/usr/local/cuda/lib64/libcublas.so.12"};
}

std::string find_cublas(const std::vector<std::string>& names) {
  Opened o = open_first(names);
  if (!o.library) throw RuntimeError(ErrorKind::NoDriver, o.error);
  // Never dlclose cuBLAS (like the driver): unloading it drops the static allocations its
  // own C++ runtime made at load, which LeakSanitizer then reports from an unknown module.
  return o.name;
}

Cublas::Cublas() {
  cublasHandle_t handle = nullptr;
  check(api().cublasCreate_v2(&handle), "cublasCreate");
  handle_ = handle;
}

Cublas::~Cublas() {
  if (handle_) api().cublasDestroy_v2(handle_);  // destructors do not throw
}

Cublas::Cublas(Cublas&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

void Cublas::gemm(const RowMajorGemm& g, CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUstream stream) {
  // Named for messages only: benchmarks call this back to back, so nothing is built per call.
  auto call = [&] { return "cublasGemmEx(" + g.str() + ")"; };
  if (std::vector<std::string> problems = gemm_problems(g); !problems.empty()) {
    std::string msg = call() + ": ";
    for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
    throw RuntimeError(ErrorKind::Usage, msg);
  }
  const ColumnMajorGemm c = column_major(g);
  const Api& f = api();
  check(f.cublasSetStream_v2(handle_, stream), "cublasSetStream");
  const float alpha = g.alpha, beta = g.beta;
  const cublasStatus_t status = f.cublasGemmEx(
      handle_, c.transpose_first ? CUBLAS_OP_T : CUBLAS_OP_N, c.transpose_second ? CUBLAS_OP_T : CUBLAS_OP_N, int(c.m),
      int(c.n), int(c.k), &alpha, device_pointer(b), cuda_type(g.in), int(c.ld_first), device_pointer(a), cuda_type(g.in),
      int(c.ld_second), &beta, device_pointer(d), cuda_type(g.out), int(c.ld_out), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (status != CUBLAS_STATUS_SUCCESS) check(status, call());
}

std::string Cublas::version() {
  const Api& f = api();
  int major = 0, minor = 0, patch = 0;
  check(f.cublasGetProperty(MAJOR_VERSION, &major), "cublasGetProperty(MAJOR_VERSION)");
  check(f.cublasGetProperty(MINOR_VERSION, &minor), "cublasGetProperty(MINOR_VERSION)");
  check(f.cublasGetProperty(PATCH_LEVEL, &patch), "cublasGetProperty(PATCH_LEVEL)");
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace tj::rt
