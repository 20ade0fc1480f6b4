// What cublas.cpp and cublaslt.cpp share: opening a cuBLAS-family library once, its
// errors and version, and tilejit's values as those libraries take them.
#pragma once

#include <cublas_api.h>
#include <cuda.h>
#include <library_types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cublas_layout.h"
#include "runtime/open_library.h"

namespace tj::rt {

inline cudaDataType_t cuda_data_type(BlasType t) {
  switch (t) {
    case BlasType::BF16: return CUDA_R_16BF;
    case BlasType::F16: return CUDA_R_16F;
    case BlasType::F32: return CUDA_R_32F;
  }
  return CUDA_R_32F;
}

inline void* device_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

// A library's entry points (`Api`: a struct of function pointers) once it opened.
template <class Api>
struct BlasLibrary {
  Api api;
  void* handle = nullptr;  // null when none of the names would do
  std::string name;        // the one that opened
  std::string error;       // when none did: "<title> is not available (<each name and why>); <fix>"
};

// The first of `names` that has every one of `symbols`, its api filled by resolve(handle, api).
template <class Api>
BlasLibrary<Api> open_blas_library(const std::vector<std::string>& names, const std::vector<const char*>& symbols,
                                   void (*resolve)(void* handle, Api& api), const std::string& title,
                                   const std::string& fix) {
  BlasLibrary<Api> l;
  const OpenedLibrary o = open_first_library(names, symbols);
  if (!o.handle) {
    l.error = title + " is not available (" + o.tried + "); " + fix;
    return l;
  }
  resolve(o.handle, l.api);
  l.handle = o.handle;
  l.name = o.name;
  return l;
}

// Throws "<call> failed: CUBLAS_STATUS_... (n): <text>" with the library's own name and
// text for the status: a Device error when the GPU failed, a Launch error otherwise.
[[noreturn]] void throw_blas_error(cublasStatus_t status, const std::string& call, const char* status_name,
                                   const char* status_text);

// "13.1.0": major, minor and patch level from a library's GetProperty (named `function`),
// each call checked by `check`.
using GetPropertyFn = cublasStatus_t (*)(libraryPropertyType, int*);
std::string blas_version(GetPropertyFn get_property, const std::string& function,
                         void (*check)(cublasStatus_t, const std::string&));

}  // namespace tj::rt
