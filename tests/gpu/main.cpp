// The GPU test binary. Without a CUDA driver or an sm_90a/sm_100a GPU it says
// so and exits 77, which CTest reports as "Skipped": never a silent pass. Catch2's
// implementation is tests/catch.cpp.
#include <cstdio>
#include <string>

#include "codegen/target.h"
#include "runtime/compiler.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "samples/builtin.h"
#include "tests/catch_session.h"
#include "tests/kernels/test_kernels.h"

int main(int argc, char** argv) {
  if (!tj::rt::disable_nvrtc_result_cache()) {  // before the driver starts: it reads the variable once
    std::printf("tilejit_gpu_tests: CUDA_CACHE_DISABLE is set to something other than 1: NVRTC's result cache "
                "would answer compiles without ptxas; unset it\n");
    return 1;
  }
  std::string why;
  if (!tj::rt::driver_available(&why)) {
    std::printf("SKIPPED: every [gpu] test: no CUDA driver (%s)\n", why.c_str());
    return 77;
  }
  int count = 0;
  if (tj::rt::driver().cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    std::printf("SKIPPED: every [gpu] test: the driver sees no GPU\n");
    return 77;
  }
  tj::rt::DeviceInfo info = tj::rt::query_device(tj::rt::default_device_ordinal());
  std::string arch = tj::rt::arch_for(info.cc_major, info.cc_minor);
  if (!tj::codegen::Target::parse(arch)) {
    std::printf("SKIPPED: every [gpu] test: %s is %s; tilejit runs on sm_90a or sm_100a\n", info.name.c_str(), arch.c_str());
    return 77;
  }
  std::printf("GPU tests on %s (%s, %d SMs)\n", info.name.c_str(), arch.c_str(), info.sm_count);
  // The test-only kernels join the registry after the built-in samples, as a plugin would.
  tj::samples::registry().register_from("tests/kernels", tj::samples::register_test_kernels);
  return tj::test::run_catch_session(argc, argv);
}
