#!/usr/bin/env bash
# Everything that needs the H200, in one go (the device tool's time is scarce):
# GPU tests, every sample spec through the CLI, benchmarks, tuning (gpu_tune.sh),
# multicast traffic with ncu, and compute-sanitizer on every sample. Run from the repo root with
# the binaries staged by scripts/stage.sh in .stage/; logs go to $OUT (or ./out).
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export TILEJIT_CACHE_DIR=/tmp/tilejit-cache
B=.stage/bin
summary=$OUT/summary.txt; : > "$summary"
note() { echo "$*" | tee -a "$summary"; }

note "== $(date -u +%F) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
$B/tilejit_gpu_tests > "$OUT/gpu_tests.log" 2>&1; note "gpu tests rc=$?: $(grep -E '^(All tests|test cases)' "$OUT/gpu_tests.log" | tr '\n' ' ')"
$B/tilejit_unit_tests > "$OUT/unit_tests.log" 2>&1; note "cpu unit tests on the GPU machine rc=$?: $(grep -E '^(All tests|test cases)' "$OUT/unit_tests.log" | tr '\n' ' ')"

for s in .stage/specs/*.json; do
  $B/tilejit run "$s" > "$OUT/run.log" 2>&1; rc=$?
  note "run $(basename "$s") rc=$rc: $(grep -E '^(tuned|compile|verify|time|compute)' "$OUT/run.log" | tr -s ' ' | tr '\n' ' ')"
done

$B/tilejit_bench_dsmem > "$OUT/bench_dsmem.log" 2>&1; note "bench dsmem rc=$?"; cat "$OUT/bench_dsmem.log" >> "$summary"
$B/tilejit_bench_tma_copy > "$OUT/bench_tma.log" 2>&1; note "bench tma_copy rc=$?"; cat "$OUT/bench_tma.log" >> "$summary"

OUT=$OUT scripts/gpu_tune.sh > /dev/null; note "tuning (scripts/gpu_tune.sh):"; cat "$OUT/tune_summary.txt" >> "$summary"

mkdir -p /tmp/mc && $B/multicast_traffic.sh $B/tilejit .stage/specs /tmp/mc > "$OUT/multicast.log" 2>&1
note "multicast traffic:"; cat "$OUT/multicast.log" >> "$summary"

for s in .stage/specs/dsmem_ring.json .stage/specs/cluster_reduce.json .stage/specs/tma_multicast.json \
         .stage/sanitizer/*.json; do
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool --print-limit 5 $B/tilejit run "$s" --iters 1 > "$OUT/san.log" 2>&1; rc=$?
    note "compute-sanitizer $tool $(basename "$s") rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|verify' "$OUT/san.log" | tr -s ' ' | tr '\n' ' ')"
  done
done
