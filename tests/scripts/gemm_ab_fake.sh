#!/usr/bin/env sh
# Runs scripts/gpu_session.sh gemm-ab in a scratch tree against a fake tilejit_bench_gemm that
# prints one row per shape in each of its two tables (ours against cuBLAS, ours against the
# variant) and logs its arguments: the grid's lines of one config and variant must share a
# process, and each shape's note must carry its own rows; a variant the bench refuses (no rows,
# rc 2) gets a note with the bench's error. No GPU needed.
set -eu
. "$(dirname "$0")/scratch_tree.sh"
cat > "$work/.stage/bin/tilejit_bench_gemm" <<'FAKE'
#!/usr/bin/env sh
echo "ARGS $*"
case "$*" in *"--versus bn=999"*) echo "error: --versus: \$.params.bn: bn = 999 is too wide"; exit 2 ;; esac
shapes=$(printf '%s\n' "$*" | sed 's/.*--shapes //')
for s in $(printf '%s' "$shapes" | tr ',' ' '); do echo "| $s | tn | bf16->bf16 | 1 / 2 / 3 | 1 / 2 / 3 | 1.000 | 1 / 1 / 1 | yes |"; done
echo
for s in $(printf '%s' "$shapes" | tr ',' ' '); do echo "| $s | 1 / 2 / 3 | 4 / 5 / 6 | 0.400 | 0.4 / 0.4 / 0.4 |"; done
FAKE
chmod +x "$work/.stage/bin/tilejit_bench_gemm"
printf '100x200x300 default swap=0\n400x500x600 default swap=0\n\n700x800x900 bn=128 cluster=2x1\n10x20x30 default bn=999\n' > "$work/grid.txt"
cd "$work"
OUT="$work/out" GEMM_AB=grid.txt sh -c 'bash scripts/gpu_session.sh gemm-ab' > log.txt 2>&1 || { cat log.txt; exit 1; }
[ "$(grep -c '^ARGS' out/bench_ab_all.log)" -eq 3 ] || { echo "want 3 bench processes"; cat out/bench_ab_all.log; exit 1; }
grep -q 'ARGS .*--versus swap=0 --shapes 100x200x300,400x500x600$' out/bench_ab_all.log || { echo "first group"; exit 1; }
grep -q 'ARGS .*--config bn=128 --versus cluster=2x1 --shapes 700x800x900$' out/bench_ab_all.log || { echo "second group"; exit 1; }
[ "$(grep -c '^ab [0-9]' out/summary.txt)" -eq 4 ] || { echo "want 4 notes"; cat out/summary.txt; exit 1; }
grep -q '^ab 10x20x30 default vs bn=999 rc=2: NO ROW: error: --versus: \$.params.bn: bn = 999 is too wide$' out/summary.txt || { echo "refused note"; cat out/summary.txt log.txt; exit 1; }
! grep -q 'awk' log.txt || { echo "awk complained"; cat log.txt; exit 1; }
for s in 100x200x300 400x500x600 700x800x900; do
  grep -q "^ab $s .*rc=0: | $s | 1 / 2 / 3 | 4 / 5 / 6 | 0.400 | .* ours verified: *yes" out/summary.txt || { echo "note for $s"; cat out/summary.txt; exit 1; }
done
