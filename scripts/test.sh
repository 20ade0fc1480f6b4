#!/usr/bin/env bash
# The test suite: set up, build everything, run CTest. GPU tests run when a
# CUDA driver and an sm_90a/sm_100a GPU are present and show as skipped otherwise.
#
# Then two more builds (CI runs them; TILEJIT_CI_QUICK=1 skips them for a quick local run):
#   build-asan: the CPU tests again with AddressSanitizer and UBSan (-DTILEJIT_SANITIZE=ON).
#   build-fuzz: clang and libFuzzer; the spec fuzzer (tests/fuzz) for TILEJIT_FUZZ_SECONDS (60).
# ASAN_BUILD_DIR and FUZZ_BUILD_DIR move those builds; arguments go to the first CTest run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/setup.sh
ctest --test-dir "${BUILD_DIR:-build}" -j"$jobs" --output-on-failure "$@"

if [ "${TILEJIT_CI_QUICK:-0}" = 1 ]; then
  echo "tilejit test: TILEJIT_CI_QUICK=1, skipping the sanitizer build and the fuzzer (CI runs them)"
  exit 0
fi

asan=${ASAN_BUILD_DIR:-build-asan}
echo "tilejit test: the CPU tests under ASan + UBSan ($asan)"
BUILD_DIR=$asan TILEJIT_CMAKE_ARGS="-DTILEJIT_SANITIZE=ON" \
  scripts/setup.sh --target tilejit tilejit_unit_tests tilejit_gpu_tests tilejit_bench_gemm tilejit_shared tilejit_tutorial tilejit_plugins
UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir "$asan" -j"$jobs" --output-on-failure

fuzz=${FUZZ_BUILD_DIR:-build-fuzz}
echo "tilejit test: fuzzing specs for ${TILEJIT_FUZZ_SECONDS:-60} s ($fuzz)"
BUILD_DIR=$fuzz TILEJIT_CMAKE_ARGS="-DTILEJIT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-19 -DTILEJIT_FUZZ_SECONDS=${TILEJIT_FUZZ_SECONDS:-60}" \
  scripts/setup.sh --target tilejit_fuzz_spec
ctest --test-dir "$fuzz" -L fuzz --output-on-failure
