// cuBLAS, opened at run time like the driver (never linked): the reference GEMM that
// samples check against and benchmarks compare with. It runs in the context current on
// the calling thread, i.e. the primary context an rt::Context made current.
#pragma once

#include <cuda.h>

#include <string>
#include <vector>

#include "runtime/cublas_layout.h"

struct cublasContext;  // cublasHandle_t points to one

namespace tj::rt {

// The libraries tried, in order: only $TILEJIT_CUBLAS when it is set; else
// libcublas.so.13, libcublas.so.12, then both under /usr/local/cuda/lib64/.
std::vector<std::string> cublas_library_names();

// The first of `names` that dlopen()s and has every entry point tilejit calls (it needs
// no GPU). None: RuntimeError(NoDriver) naming each library tried and why it failed.
std::string find_cublas(const std::vector<std::string>& names);

// A cuBLAS handle in the current context.
class Cublas {
 public:
  // cublasCreate. Throws RuntimeError(NoDriver) when cuBLAS cannot be opened.
  Cublas();
  ~Cublas();
  Cublas(Cublas&& other) noexcept;
  Cublas& operator=(Cublas&&) = delete;
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  // cublasGemmEx for `g` (see column_major()) with CUBLAS_COMPUTE_32F on `stream`,
  // asynchronously; a, b and d are device pointers of g's shapes and types. A shape
  // gemm_problems() refuses is RuntimeError(Usage).
  void gemm(const RowMajorGemm& g, CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUstream stream);

  // Whether split-K partials of a 16-bit output may be reduced in that type
  // (CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION unset: cuBLAS's default, true) or
  // only in the compute type (false).
  void allow_reduced_precision_reduction(bool allowed);

  // cuBLAS's version, "13.0.2" (cublasGetProperty).
  static std::string version();

 private:
  cublasContext* handle_ = nullptr;
};

}  // namespace tj::rt
