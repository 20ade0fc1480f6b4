#!/usr/bin/env bash
# The test suite: set up, build everything, run CTest. GPU tests run when a
# CUDA driver and an sm_90a/sm_100a GPU are present and show as skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir "${BUILD_DIR:-build}" -j"$(nproc)" --output-on-failure "$@"
