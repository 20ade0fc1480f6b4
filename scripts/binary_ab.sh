#!/usr/bin/env bash
# Two builds of the GEMM bench against each other (a change to the emitted code that no
# config parameter selects): each SHAPE CONFIG line of FILE ("default": the default path)
# through binary A, then B, then A, then B ... ROUNDS times (default 3), every process
# against cuBLAS. Prints one line per process (ours and cuBLAS TFLOP/s medians, the per-rep
# median ratio) and, per line, the median over rounds of each binary's ratio to cuBLAS and
# B's over A's. Processes differ in clocks and cuBLAS's pick: compare the ratios, and only
# within one call.
#   scripts/binary_ab.sh BENCH_A BENCH_B FILE [ROUNDS]
set -uo pipefail
a=${1:?bench binary A}; b=${2:?bench binary B}; file=${3:?file of SHAPE CONFIG lines}; rounds=${4:-3}
for bin in "$a" "$b"; do [ -x "$bin" ] || { echo "binary_ab: $bin is not an executable" >&2; exit 2; }; done
[ -r "$file" ] || { echo "binary_ab: cannot read $file" >&2; exit 2; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while read -r shape cfg; do
  [ -z "$shape" ] && continue
  args=(--config "$cfg"); [ "$cfg" = default ] && args=()
  ra=(); rb=()
  for ((r = 1; r <= rounds; ++r)); do
    for side in A B; do
      bin=$a; [ $side = B ] && bin=$b
      timeout 120 "$bin" --no-tuned --iters "${GEMM_ITERS:-20}" --reps "${GEMM_REPS:-5}" --sustained 0 "${args[@]}" --shapes "$shape" < /dev/null > "$log" 2>&1
      rc=$?
      # the per-rep ratio's median: "per rep MIN / MEDIAN / MAX" on the ratio line
      ratio=$(grep -oE 'per rep [0-9.]+ / [0-9.]+' "$log" | head -1 | awk '{print $5}')
      row=$(grep -E '^\| [0-9]' "$log" | tail -1)
      echo "$side round $r $shape $cfg rc=$rc ratio=${ratio:-none} $row"
      [ -n "$ratio" ] && { [ $side = A ] && ra+=("$ratio") || rb+=("$ratio"); }
    done
  done
  ma=$(printf '%s\n' "${ra[@]}" | median); mb=$(printf '%s\n' "${rb[@]}" | median)
  echo "binary_ab $shape $cfg: A/cuBLAS $ma, B/cuBLAS $mb, B over A $(awk -v a="$ma" -v b="$mb" 'BEGIN {if (a > 0) printf "%.3f", b / a; else print "nan"}') (${#ra[@]} and ${#rb[@]} rounds)"
done < "$file"
