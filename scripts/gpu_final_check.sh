#!/usr/bin/env bash
# A short verification pass for the end of a session (the device tool's time is scarce):
# GPU tests, every sample spec, the GEMM benches/ladder/JIT latency (gpu_session.sh tests
# runs gemm, with the CPU suite's [ptx] cases only), then compute-sanitizer memcheck and
# racecheck on the small stand-ins of the large GEMM specs (tests/sanitizer/gemm_small*.json:
# the same generated kernels, a test holds them to it). Logs and summary.txt go to $OUT.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
UNIT_TESTS="${UNIT_TESTS:-[ptx]}" OUT=$OUT scripts/gpu_session.sh tests runs gemm > /dev/null 2>&1
export TILEJIT_CACHE_DIR=/tmp/tilejit-cache
for s in .stage/sanitizer/gemm_small*.json; do
  for tool in memcheck racecheck; do
    timeout 240 compute-sanitizer --tool $tool --print-limit 3 .stage/bin/tilejit run "$s" --iters 0 > "$OUT/san.log" 2>&1; rc=$?
    echo "compute-sanitizer $tool $(basename "$s") rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^verify' "$OUT/san.log" | tr -s ' ' | cut -c1-120 | tr '\n' ' ')" >> "$OUT/summary.txt"
  done
done
cat "$OUT/summary.txt"
