#!/usr/bin/env bash
# The SM clock and power each side runs at, per GEMM shape: ours alone (`tilejit run` on the
# default path, ITERS launches) and cuBLAS alone (PyTorch's bf16 matmul, the same shape and
# layout, for as long), each while nvidia-smi samples every 20 ms. A gap in TFLOP/s that comes
# with a lower clock under a power cap is the kernel's energy per FLOP, not its schedule.
# The two timings differ in method: `tilejit run` records an event pair around each launch
# (its median), PyTorch's loop runs back to back (the mean): compare clocks and power here, and
# TFLOP/s from the bench, which interleaves both the same way.
#   scripts/gpu_clocks.sh MxNxK... [ITERS=2000]     (logs in $OUT, default ./clocks_out)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-clocks_out}; mkdir -p "$out"
iters=${ITERS:-2000}
[[ "$iters" =~ ^[1-9][0-9]*$ ]] || { echo "gpu_clocks: ITERS=$iters is not a positive integer" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: scripts/gpu_clocks.sh MxNxK... (ITERS=N)" >&2; exit 2; }
for s in "$@"; do [[ "$s" =~ ^[1-9][0-9]*x[1-9][0-9]*x[1-9][0-9]*$ ]] || { echo "gpu_clocks: shape '$s' is not MxNxK" >&2; exit 2; }; done
command -v nvidia-smi > /dev/null || { echo "gpu_clocks: no nvidia-smi here: nothing measured" >&2; exit 77; }
B=${B:-.stage/bin}
fields=clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,clocks_event_reasons.sw_power_cap,clocks_event_reasons.sw_thermal_slowdown,clocks_event_reasons.hw_slowdown
py=${GPU_CLOCKS_PYTHON:-python3}
have_torch=0; "$py" -c "import torch; assert torch.cuda.is_available()" 2> /dev/null && have_torch=1

# sampled NAME CMD...: runs CMD while nvidia-smi samples; prints the busy samples' (utilization
# over 50%) median SM and memory clocks and power, max temperature and how many sat under each slowdown.
sampled() {
  local name=$1; shift
  nvidia-smi --query-gpu=$fields --format=csv,noheader,nounits -lms 20 > "$out/$name.smi" 2>&1 &
  local smi=$!
  "$@" > "$out/$name.log" 2>&1; local rc=$?
  kill "$smi" 2> /dev/null; wait "$smi" 2> /dev/null
  awk -F', *' -v name="$name" -v rc="$rc" '$5 + 0 > 50 {
      n++; clk[n] = $1; mem[n] = $2; pw[n] = $3; if ($4 > t) t = $4; cap += ($6 == "Active"); th += ($7 == "Active"); hw += ($8 == "Active") }
    function median(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } return a[int((n + 1) / 2)] }
    END { if (n == 0) { printf "%s rc=%d: no busy sample\n", name, rc; exit }
          printf "%s rc=%d: %d busy samples, SM clock median %d MHz, memory clock median %d MHz, power median %.0f W, max %d C; power cap %d, thermal %d, hw slowdown %d of them\n",
                 name, rc, n, median(clk, n), median(mem, n), median(pw, n), t, cap, th, hw }' "$out/$name.smi"
}

for shape in "$@"; do
  IFS=x read -r m n k <<< "$shape"
  printf '{"kernel":"gemm","params":{"m":%d,"n":%d,"k":%d,"dtype":"bf16","out":"bf16","layout":"tn"}}\n' "$m" "$n" "$k" > "$out/$shape.json"
  sampled "ours_$shape" "$B/tilejit" run "$out/$shape.json" --no-verify --no-tuned --iters "$iters"
  grep -iE "ms|TFLOP" "$out/ours_$shape.log" | tail -2 | sed 's/^/  /'
  if [ "$have_torch" = 1 ]; then
    sampled "cublas_$shape" "$py" - "$m" "$n" "$k" "$iters" <<'PY'
import sys, time, torch
m, n, k, iters = map(int, sys.argv[1:])
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
for _ in range(10): a @ b.t()
torch.cuda.synchronize()
t = time.perf_counter()
for _ in range(iters): a @ b.t()
torch.cuda.synchronize()
s = (time.perf_counter() - t) / iters
print(f"torch matmul {m}x{n}x{k}: {s * 1e3:.4f} ms per launch, {2 * m * n * k / s / 1e12:.1f} TFLOP/s over {iters} launches")
PY
    sed 's/^/  /' "$out/cublas_$shape.log" | tail -1
  else
    echo "cublas_$shape: not run (no PyTorch with CUDA here)"
  fi
done
