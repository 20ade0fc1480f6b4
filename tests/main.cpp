// The CPU test binary's entry point (Catch2 v2).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "runtime/compiler.h"
#include "samples/builtin.h"
#include "tests/kernels/test_kernels.h"

// Before any test compiles: NVRTC's own result cache would answer repeated compiles
// on a GPU machine without running ptxas (no spill report to check).
static const bool kNvrtcCacheOff = tj::rt::disable_nvrtc_result_cache();
// The test-only kernels join the registry after the built-in samples, as a plugin would.
static const bool kTestKernels =
    (tj::samples::registry().register_from("tests/kernels", tj::samples::register_test_kernels), true);
