#!/usr/bin/env bash
# A session's first device call, whatever card comes (the device tool may give an H100 for an
# H200): the H200's issue table first (issue 20's figures count only from an H200), then the A/B
# grids named, then the GPU suite for the time left. Everything stays within FIRST_CALL_SECONDS
# (default 560, under the tool's 600-second limit); each part is cut short rather than the call.
# Logs and summary.txt go to $OUT, as gpu_session.sh writes them.
#   scripts/gpu_first_call.sh [GRID_FILE...]
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${FIRST_CALL_SECONDS:-560}
[[ "$budget" =~ ^[1-9][0-9]*$ ]] || { echo "gpu_first_call: FIRST_CALL_SECONDS=$budget is not a positive integer" >&2; exit 2; }
for f in "$@"; do [ -f "$f" ] || { echo "gpu_first_call: no grid file $f" >&2; exit 2; }; done
start=$SECONDS
left() { echo $((budget - (SECONDS - start))); }
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "card: ${card:-unknown}"
if [[ "$card" == *H200* ]]; then
  timeout "$(left)" scripts/gpu_session.sh issue-table
  echo "issue table done at $((SECONDS - start)) s"
fi
if [ $# -gt 0 ] && [ "$(left)" -gt 30 ]; then
  GEMM_AB="$*" timeout "$(left)" scripts/gpu_session.sh gemm-ab
  echo "grids done at $((SECONDS - start)) s"
fi
# The suite gets what is left, less 20 s for the tutorials that follow it in the section, in
# GPU_TEST_SHARDS processes at once (default 4: their NVRTC compiles overlap; 1 runs it in one).
if [ "$(left)" -gt 60 ]; then
  GPU_TEST_SHARDS=${GPU_TEST_SHARDS:-4} GPU_TESTS_SECONDS=$(( $(left) - 20 )) timeout "$(left)" scripts/gpu_session.sh tests
fi
echo "first call done at $((SECONDS - start)) s"
# The device tool brings back at most 8 files from $OUT: summary.txt and this call's own log
# (first_call*, still being written) beside one archive of the rest.
OUT=${OUT:-out}
if [ -f "$OUT/summary.txt" ]; then
  (cd "$OUT" && find . -maxdepth 1 -type f ! -name summary.txt ! -name logs.tgz ! -name 'first_call*' -printf '%P\n' |
    tar czf logs.tgz --remove-files -T -) && echo "logs in $OUT/logs.tgz beside $OUT/summary.txt"
fi
