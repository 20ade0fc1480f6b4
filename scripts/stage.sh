#!/usr/bin/env bash
# Builds and copies the binaries the GPU machine needs into .stage/ (git-ignored),
# with the sample specs, for the device tool's `carry`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
rm -rf .stage
cmake --install "${BUILD_DIR:-build}" --prefix .stage >/dev/null
mkdir -p .stage/specs .stage/sanitizer .stage/gpu_specs && cp samples/specs/*.json .stage/specs/ && cp tests/sanitizer/*.json .stage/sanitizer/
# Test-only: fault_injection (a fault, a hang), race_demo; their kernels are a plugin the
# install puts in .stage/lib/tilejit/plugins/ (tests/kernels).
cp tests/gpu/specs/*.json tests/cli/bad_specs/race_demo_refused.json .stage/gpu_specs/
cp bench/multicast_traffic.sh .stage/bin/
# The example plugin and its spec (`--plugin`; the gpu_session.sh section "plugins").
mkdir -p .stage/plugins && cp "${BUILD_DIR:-build}"/plugins/libtilejit_example_plugin.so samples/plugins/example/*.json .stage/plugins/
strip .stage/bin/tilejit* .stage/lib/libtilejit.so* 2>/dev/null || true  # keeps the dynamic symbol table plugins link against
# STAGE_VARIANT_BENCH=path: a GEMM bench built from a changed decision, staged beside the
# base one as tilejit_bench_gemm_variant (gpu_session.sh's default-ab section). Copy it out of
# the build before reverting the change: this script rebuilds the tree first.
if [ -n "${STAGE_VARIANT_BENCH:-}" ]; then
  cp "$STAGE_VARIANT_BENCH" .stage/bin/tilejit_bench_gemm_variant && strip .stage/bin/tilejit_bench_gemm_variant
fi
# STAGE_SLIM=1: without the CPU unit tests and the benches other than the GEMM's, so that
# .stage stays well under the device tool's 64 MiB carry (gpu_session.sh says what it skips).
if [ "${STAGE_SLIM:-0}" = 1 ]; then
  rm -f .stage/bin/tilejit_unit_tests .stage/bin/tilejit_bench_{dsmem,jit,schedules,softmax,tma_copy}
fi
du -sh .stage
