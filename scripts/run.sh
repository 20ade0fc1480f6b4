#!/usr/bin/env bash
# The main job: set up, build, then `tilejit run` a spec (default: the GEMM, 4096^3 bf16).
# With a GPU: compiles, launches, checks against the reference (cuBLAS for the GEMM) and
# times; for the default GEMM it then times cuBLAS beside it in one interleaved run
# (tilejit_bench_gemm) and prints both TFLOP/s and the ratio.
# Without one: compiles, writes the PTX to tilejit-out/, and says launching needs a GPU (exit 3).
set -euo pipefail
cd "$(dirname "$0")/.."
default_spec=samples/specs/gemm.json
spec=${1:-$default_spec}
[ $# -gt 0 ] && shift
scripts/setup.sh --target tilejit tilejit_bench_gemm
bin=${BUILD_DIR:-build}
rc=0
"$bin/cli/tilejit" run "$spec" "$@" || rc=$?
if [ "$rc" = 0 ] && [ "$spec" = "$default_spec" ]; then
  echo
  echo "ours beside cuBLAS (same inputs, interleaved in one run):"
  "$bin/bench/tilejit_bench_gemm" --shapes 4096x4096x4096 --config cluster=1x2 --iters 50 --reps 5 | grep -E '^(device|\|)' || rc=$?
fi
exit "$rc"
