#!/usr/bin/env sh
# Runs scripts/gpu_clocks.sh against a fake nvidia-smi (five samples, one idle, two under the
# power cap) and a fake tilejit that runs for half a second: the note gives the busy samples' median clock and power and the
# slowdown counts, the cuBLAS side says it did not run without PyTorch; bad shapes exit 2.
set -eu
src=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
cat > "$work/bin/nvidia-smi" <<'FAKE'
#!/usr/bin/env sh
printf '%s\n' "1980, 2619, 400.0, 50, 10, Not Active, Not Active, Not Active" "1755, 2619, 699.1, 66, 100, Active, Not Active, Not Active" \
  "1830, 2619, 650.2, 67, 100, Not Active, Not Active, Not Active" "1710, 1593, 700.3, 68, 100, Active, Not Active, Not Active" \
  "1800, 1593, 640.0, 65, 97, Not Active, Not Active, Not Active"
exec sleep 30
FAKE
printf '#!/usr/bin/env sh\nsleep 0.5\necho "gemm: 0.5000 ms median over $6 launches"\n' > "$work/bin/tilejit"
chmod +x "$work/bin/nvidia-smi" "$work/bin/tilejit"
cd "$work"
PATH="$work/bin:$PATH" B="$work/bin" OUT="$work/out" GPU_CLOCKS_PYTHON=false ITERS=7 sh -c "bash '$src/scripts/gpu_clocks.sh' 100x200x300" > log.txt 2>&1 || { cat log.txt; exit 1; }
grep -q '^ours_100x200x300 rc=0: 4 busy samples, SM clock median 1755 MHz, memory clock median 1593 MHz, power median 650 W, max 68 C; power cap 2, thermal 0, hw slowdown 0 of them$' log.txt || { echo "the note"; cat log.txt; exit 1; }
grep -q 'gemm: 0.5000 ms median over 7 launches' log.txt || { echo "ours' timing"; cat log.txt; exit 1; }
grep -q '^cublas_100x200x300: not run (no PyTorch with CUDA here)$' log.txt || { echo "the cuBLAS side"; cat log.txt; exit 1; }
grep -q '"m":100,"n":200,"k":300' out/100x200x300.json || { echo "the spec"; exit 1; }
set +e
bash "$src/scripts/gpu_clocks.sh" 100x200 > bad.txt 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "shape '100x200' is not MxNxK" bad.txt || { echo "a bad shape: rc=$rc"; cat bad.txt; exit 1; }
