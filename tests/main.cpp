// The CPU test binary's entry point (Catch2 v2; its implementation is tests/catch.cpp).
#include <cstdio>

#include "runtime/compiler.h"
#include "samples/builtin.h"
#include "tests/catch_session.h"
#include "tests/kernels/test_kernels.h"

int main(int argc, char** argv) {
  // Before any test compiles: NVRTC's own result cache would answer repeated compiles
  // on a GPU machine without running ptxas (no spill report to check).
  if (!tj::rt::disable_nvrtc_result_cache()) {
    std::fprintf(stderr, "tilejit_unit_tests: CUDA_CACHE_DISABLE is set to something other than 1: NVRTC's result "
                         "cache would answer compiles without ptxas, and the spill checks would read nothing; unset it\n");
    return 1;
  }
  // The test-only kernels join the registry after the built-in samples, as a plugin would.
  tj::samples::registry().register_from("tests/kernels", tj::samples::register_test_kernels);
  return tj::test::run_catch_session(argc, argv);
}
