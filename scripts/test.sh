#!/usr/bin/env bash
# The test suite (the README's one test command; CI runs it through .ci/run). Two stages:
#   1. scripts/setup.sh builds everything into BUILD_DIR (default build), then CTest runs
#      there. GPU tests run when a CUDA driver and an sm_90a/sm_100a GPU are present and
#      show as skipped otherwise. Arguments go to this CTest run (e.g. -R '^cli:').
#   2. SANITIZE_BUILD_DIR (default build-sanitize): one clang 19 build with AddressSanitizer,
#      UBSan and libFuzzer's coverage (-DTILEJIT_FUZZ=ON): the CPU tests run again there,
#      and the spec fuzzer (tests/fuzz) for TILEJIT_FUZZ_SECONDS (default 60). The GPU test
#      binary and the tutorial program are not built there (CUDA's driver does not start
#      under ASan); their tests show as skipped.
# TILEJIT_CI_QUICK=1 stops after stage 1 (a quick local run); CI runs both.
# scripts/setup.sh reads CUDA_ROOT and CMAKE_BUILD_TYPE (both stages) and TILEJIT_CMAKE_ARGS
# (stage 1 only: stage 2 sets its own).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
start=$SECONDS
took() { echo "tilejit test: $1 took $((SECONDS - start)) s"; start=$SECONDS; }

scripts/setup.sh
took "stage 1 build"
ctest --test-dir "${BUILD_DIR:-build}" -j"$jobs" --output-on-failure "$@"
took "stage 1 tests"

if [ "${TILEJIT_CI_QUICK:-0}" = 1 ]; then
  echo "tilejit test: TILEJIT_CI_QUICK=1, skipping the sanitizer and fuzzer build (CI runs it)"
  exit 0
fi

san=${SANITIZE_BUILD_DIR:-build-sanitize}
echo "tilejit test: the CPU tests under ASan + UBSan, and the spec fuzzer for ${TILEJIT_FUZZ_SECONDS:-60} s ($san)"
BUILD_DIR=$san TILEJIT_CMAKE_ARGS="-DTILEJIT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-19 -DTILEJIT_FUZZ_SECONDS=${TILEJIT_FUZZ_SECONDS:-60}" \
  scripts/setup.sh --target tilejit tilejit_unit_tests tilejit_bench_gemm tilejit_shared tilejit_plugins tilejit_fuzz_spec
took "stage 2 build"
UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir "$san" -j"$jobs" --output-on-failure
took "stage 2 tests"
