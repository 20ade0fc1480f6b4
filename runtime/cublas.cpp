#include "runtime/cublas.h"

#include <cublas_v2.h>
#include <dlfcn.h>

#include <utility>

#include "runtime/blas_library.h"
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
  X(cublasSetMathMode, decltype(&::cublasSetMathMode))          \
  X(cublasGemmEx, GemmExFn)                                     \
  X(cublasGetStatusName, decltype(&::cublasGetStatusName))      \
  X(cublasGetStatusString, decltype(&::cublasGetStatusString))  \
  X(cublasGetProperty, decltype(&::cublasGetProperty))

struct Api {
#define TJ_CUBLAS_MEMBER(name, type) type name = nullptr;
  TJ_CUBLAS_FUNCTIONS(TJ_CUBLAS_MEMBER)
#undef TJ_CUBLAS_MEMBER
};

using Library = BlasLibrary<Api>;

void resolve(void* handle, Api& api) {
#define TJ_CUBLAS_RESOLVE(fn, type) api.fn = reinterpret_cast<type>(dlsym(handle, #fn));
  TJ_CUBLAS_FUNCTIONS(TJ_CUBLAS_RESOLVE)
#undef TJ_CUBLAS_RESOLVE
}

Library open_first(const std::vector<std::string>& names) {
#define TJ_CUBLAS_NAME(fn, type) #fn,
  return open_blas_library<Api>(
      names, {TJ_CUBLAS_FUNCTIONS(TJ_CUBLAS_NAME)}, resolve, "cuBLAS",
      "the GEMM reference needs the CUDA toolkit's libcublas: put its folder on LD_LIBRARY_PATH or "
      "set TILEJIT_CUBLAS to the library's path");
#undef TJ_CUBLAS_NAME
}

// Opened once, on first use (thread-safe); never closed, as function pointers into it
// live as long as the process.
const Api& api() {
  static const Library opened = open_first(cublas_library_names());
  if (!opened.handle) throw RuntimeError(ErrorKind::NoDriver, opened.error);
  return opened.api;
}

// The one checking helper for cuBLAS calls: "<call> failed: CUBLAS_STATUS_... (n): <text>".
void check(cublasStatus_t status, const std::string& call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw_blas_error(status, call, api().cublasGetStatusName(status), api().cublasGetStatusString(status));
}

}  // namespace

std::vector<std::string> cublas_library_names() {
  return library_names("TILEJIT_CUBLAS", {"libcublas.so.13", "libcublas.so.12"});
}

std::string find_cublas(const std::vector<std::string>& names) {
  const Library l = open_first(names);
  if (!l.handle) throw RuntimeError(ErrorKind::NoDriver, l.error);
  // Never dlclose cuBLAS (like the driver): unloading it drops the static allocations its
  // own C++ runtime made at load, which LeakSanitizer then reports from an unknown module.
  return l.name;
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
      int(c.n), int(c.k), &alpha, device_pointer(b), cuda_data_type(g.in), int(c.ld_first), device_pointer(a),
      cuda_data_type(g.in), int(c.ld_second), &beta, device_pointer(d), cuda_data_type(g.out), int(c.ld_out),
      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (status != CUBLAS_STATUS_SUCCESS) check(status, call());
}

void Cublas::allow_reduced_precision_reduction(bool allowed) {
  const int mode = CUBLAS_DEFAULT_MATH | (allowed ? 0 : CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  check(api().cublasSetMathMode(handle_, cublasMath_t(mode)), "cublasSetMathMode");
}

std::string Cublas::version() { return blas_version(api().cublasGetProperty, "cublasGetProperty", check); }

}  // namespace tj::rt
