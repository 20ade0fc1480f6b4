#!/usr/bin/env bash
# Where the GEMM loses to cuBLAS, in one device call: the clocks and power while both run
# (nvidia-smi, 100 ms samples), ncu's speed-of-light and warp-state sections for both kernels,
# and a few configurations against cuBLAS at the large squares. Binaries staged in .stage/
# (scripts/stage.sh); logs in $OUT.   scripts/gpu_profile.sh [SHAPE] [CONFIG...]
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export TILEJIT_CACHE_DIR=/tmp/tilejit-cache
B=.stage/bin
shape=${1:-8192x8192x8192}; shift || true
nvidia-smi --query-gpu=name,power.limit,power.max_limit,clocks.max.sm,clocks.max.mem --format=csv > "$OUT/gpu.txt" 2>&1

# Clocks and power, ours and cuBLAS in long alternating blocks (about 0.5 s each at 8192^3).
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 100 > "$OUT/smi_trace.csv" 2>&1 & smi=$!
$B/tilejit_bench_gemm --iters 300 --reps 3 --shapes "$shape" --config cluster=1x2 > "$OUT/bench_long.log" 2>&1
kill $smi 2>/dev/null; wait $smi 2>/dev/null

# ncu: both kernels at one shape, one launch each after warm-up.
ncu --target-processes all --kernel-name-base demangled --launch-skip 2 --launch-count 6 \
  --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy \
  --section MemoryWorkloadAnalysis --section SchedulerStats --section ComputeWorkloadAnalysis \
  $B/tilejit_bench_gemm --iters 1 --reps 2 --shapes "$shape" --config cluster=1x2 > "$OUT/ncu.log" 2>&1
echo "ncu rc=$?" >> "$OUT/ncu.log"

for cfg in "$@"; do
  $B/tilejit_bench_gemm --iters 30 --reps 3 --shapes 6144x6144x6144,8192x8192x8192 --config "$cfg" > "$OUT/cfg.log" 2>&1
  echo "config $cfg rc=$?" >> "$OUT/configs.txt"; grep -E '^\|' "$OUT/cfg.log" >> "$OUT/configs.txt"
done
