#!/usr/bin/env bash
# The test suite (the README's one test command; CI runs it through .ci/run). Three stages:
#   1. scripts/setup.sh builds everything into BUILD_DIR (default build), then CTest runs
#      there. GPU tests run when a CUDA driver and an sm_90a/sm_100a GPU are present and
#      show as skipped otherwise. Arguments go to this CTest run (e.g. -R '^cli:').
#   2. ASAN_BUILD_DIR (default build-asan): the CPU tests again with AddressSanitizer and
#      UBSan (-DTILEJIT_SANITIZE=ON). The GPU test binary and the tutorial program are not
#      built there (CUDA's driver does not start under ASan); their tests show as skipped.
#   3. FUZZ_BUILD_DIR (default build-fuzz): clang and libFuzzer; the spec fuzzer
#      (tests/fuzz) runs for TILEJIT_FUZZ_SECONDS (default 60).
# TILEJIT_CI_QUICK=1 stops after stage 1 (a quick local run); CI runs all three.
# scripts/setup.sh reads CUDA_ROOT and CMAKE_BUILD_TYPE (every stage) and TILEJIT_CMAKE_ARGS
# (stage 1 only: stages 2 and 3 set their own).
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
  scripts/setup.sh --target tilejit tilejit_unit_tests tilejit_bench_gemm tilejit_shared tilejit_plugins
UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir "$asan" -j"$jobs" --output-on-failure

fuzz=${FUZZ_BUILD_DIR:-build-fuzz}
echo "tilejit test: fuzzing specs for ${TILEJIT_FUZZ_SECONDS:-60} s ($fuzz)"
BUILD_DIR=$fuzz TILEJIT_CMAKE_ARGS="-DTILEJIT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-19 -DTILEJIT_FUZZ_SECONDS=${TILEJIT_FUZZ_SECONDS:-60}" \
  scripts/setup.sh --target tilejit_fuzz_spec
ctest --test-dir "$fuzz" -L fuzz --output-on-failure
