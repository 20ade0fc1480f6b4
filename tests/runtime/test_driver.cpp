// Driver loading, error classification, arch selection. On a machine without libcuda (CI)
// the "no driver" branches run; on the GPU machine the others do.
#include <catch2/catch.hpp>

#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/error.h"
#include "tests/runtime/test_support.h"

using namespace tj::rt;
using namespace tj::rt::test;

TEST_CASE("driver_available says why there is no driver", "[runtime][driver]") {
  std::string why;
  if (driver_available(&why)) {
    CHECK(why.empty());
    CHECK(driver().version >= 12080);
    CHECK(driver().cuLaunchKernelEx != nullptr);
    CHECK(describe(CUDA_ERROR_INVALID_CLUSTER_SIZE) ==
          "CUDA_ERROR_INVALID_CLUSTER_SIZE (912): " + std::string([] {
            const char* s = nullptr;
            driver().cuGetErrorString(CUDA_ERROR_INVALID_CLUSTER_SIZE, &s);
            return s;
          }()));
    return;
  }
  CHECK(contains(why, "libcuda"));
  try {
    driver();
    FAIL("driver() must throw without a driver");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::NoDriver);
    CHECK(std::string(e.what()) == "no CUDA driver: " + why + "; launching needs a GPU");
  }
  CHECK(describe(CUDA_ERROR_INVALID_CLUSTER_SIZE) == "CUresult 912");
  CHECK(std::string(driver_error(CUDA_ERROR_INVALID_CLUSTER_SIZE, "cuLaunchKernelEx", "dsmem_ring")
                        .what()) ==
        "cuLaunchKernelEx failed for kernel 'dsmem_ring': CUresult 912");
}

TEST_CASE("device faults are Device errors, bad launches are Launch errors", "[runtime][driver]") {
  CHECK(classify(CUDA_ERROR_ILLEGAL_ADDRESS) == ErrorKind::Device);
  CHECK(classify(CUDA_ERROR_LAUNCH_FAILED) == ErrorKind::Device);
  CHECK(classify(CUDA_ERROR_MISALIGNED_ADDRESS) == ErrorKind::Device);
  CHECK(classify(CUDA_ERROR_OUT_OF_MEMORY) == ErrorKind::Device);
  CHECK(classify(CUDA_ERROR_INVALID_CLUSTER_SIZE) == ErrorKind::Launch);
  CHECK(classify(CUDA_ERROR_INVALID_VALUE) == ErrorKind::Launch);
  CHECK(classify(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) == ErrorKind::Launch);
  CHECK_NOTHROW(check(CUDA_SUCCESS, "cuInit"));
  try {
    check(CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize", "ring");
    FAIL("check must throw");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(contains(e.what(), "cuCtxSynchronize failed for kernel 'ring': "));
    CHECK(contains(e.what(), "700"));
  }
}

TEST_CASE("arch_for picks the feature-complete targets", "[runtime][driver]") {
  CHECK(arch_for(9, 0) == "sm_90a");
  CHECK(arch_for(10, 0) == "sm_100a");
  CHECK(arch_for(8, 9) == "sm_89");
  CHECK(arch_for(12, 0) == "sm_120");
  CHECK(is_supported_arch("sm_90a"));
  CHECK(is_supported_arch("sm_100a"));
  CHECK_FALSE(is_supported_arch("sm_90"));
  CHECK_FALSE(is_supported_arch("sm_80"));
}

TEST_CASE("TILEJIT_ARCH overrides the detected arch and is validated", "[runtime][driver]") {
  {
    ScopedEnv arch("TILEJIT_ARCH", "sm_100a");
    CHECK(default_arch() == "sm_100a");
  }
  {
    ScopedEnv arch("TILEJIT_ARCH", "sm_80");
    try {
      default_arch();
      FAIL("sm_80 must be refused");
    } catch (const RuntimeError& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      CHECK(contains(e.what(), "TILEJIT_ARCH='sm_80' is not a target tilejit generates code for"));
      CHECK(contains(e.what(), "sm_90a"));
    }
  }
  {
    ScopedEnv arch("TILEJIT_ARCH", std::nullopt);
    if (driver_available())
      CHECK(default_arch() == arch_for(query_device(0).cc_major, query_device(0).cc_minor));
    else
      CHECK(default_arch() == "sm_90a");
  }
}

TEST_CASE("TILEJIT_DEVICE selects the device ordinal", "[runtime][driver]") {
  {
    ScopedEnv device("TILEJIT_DEVICE", std::nullopt);
    CHECK(default_device_ordinal() == 0);
  }
  {
    ScopedEnv device("TILEJIT_DEVICE", "3");
    CHECK(default_device_ordinal() == 3);
  }
  for (const char* bad : {"gpu0", "-1", "1x"}) {
    ScopedEnv device("TILEJIT_DEVICE", bad);
    try {
      default_device_ordinal();
      FAIL("must be refused: " << bad);
    } catch (const RuntimeError& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      CHECK(contains(e.what(), "TILEJIT_DEVICE='" + std::string(bad) + "'"));
    }
  }
}

TEST_CASE("without a driver, a Context cannot be made", "[runtime][driver]") {
  if (driver_available()) return report_skipped("a CUDA driver is present: the [gpu] tests make Contexts");
  try {
    Context ctx;
    FAIL("Context needs a driver");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::NoDriver);
  }
}

TEST_CASE("error kinds have names", "[runtime][driver]") {
  CHECK(std::string(to_string(ErrorKind::NoDriver)) == "no-driver");
  CHECK(std::string(to_string(ErrorKind::Device)) == "device");
}
