#include "runtime/blas_library.h"

#include "runtime/error.h"

namespace tj::rt {

void throw_blas_error(cublasStatus_t status, const std::string& call, const char* status_name,
                      const char* status_text) {
  throw RuntimeError(status == CUBLAS_STATUS_EXECUTION_FAILED ? ErrorKind::Device : ErrorKind::Launch,
                     call + " failed: " + status_name + " (" + std::to_string(int(status)) + "): " + status_text);
}

std::string blas_version(GetPropertyFn get_property, const std::string& function,
                         void (*check)(cublasStatus_t, const std::string&)) {
  int major = 0, minor = 0, patch = 0;
  check(get_property(MAJOR_VERSION, &major), function + "(MAJOR_VERSION)");
  check(get_property(MINOR_VERSION, &minor), function + "(MINOR_VERSION)");
  check(get_property(PATCH_LEVEL, &patch), function + "(PATCH_LEVEL)");
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace tj::rt
