#!/usr/bin/env bash
# Random GEMM shapes where the default path's decision says PATTERN, for an A/B grid that tries
# a rule on shapes it was not fitted to. No GPU: each draw goes through `tilejit compile --emit ir`
# with an H200's facts (132 SMs, 66 pairs and 30 clusters of 4 at once), whose "auto" line is
# what `tilejit run` prints there.
#
#   scripts/rule_shapes.sh PATTERN COUNT [SEED] [VARIANT]
#
# PATTERN: an extended regex matched against the auto line ("one wave -> swap", "packing -> bn 80").
# COUNT: shapes to print; at most 40 x COUNT draws. M and N are drawn log-uniform over
# RULE_M (default 256-8192) and RULE_N (256-8192), K over RULE_K (256-16384) in multiples of
# RULE_K_STEP (16: rows of whole 32-byte sectors for bf16); bf16 in and out, layout tn.
# VARIANT: printed after "SHAPE default", making each line a gpu_session.sh gemm-ab line
# (default: swap=0); `@packing` prints each shape's packing pick instead (bn, cluster, bm and
# consumers as "packing ->" names them), to try a rule that replaces it against it, and skips
# shapes whose decision has none. Prints the lines on stdout, each decision on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ] || ! [[ "$2" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/rule_shapes.sh PATTERN COUNT [SEED] [VARIANT]  (COUNT a positive integer)" >&2
  exit 2
fi
pattern=$1 count=$2 seed=${3:-$(date +%s)} variant=${4:-swap=0}
cli=${TILEJIT_CLI:-${BUILD_DIR:-build}/cli/tilejit}
[ -x "$cli" ] || { echo "rule_shapes: $cli not built (scripts/setup.sh builds it)" >&2; exit 2; }
m_range=${RULE_M:-256-8192} n_range=${RULE_N:-256-8192} k_range=${RULE_K:-256-16384}
for v in "RULE_M=$m_range" "RULE_N=$n_range" "RULE_K=$k_range"; do
  [[ "${v#*=}" =~ ^[1-9][0-9]*-[1-9][0-9]*$ ]] || { echo "rule_shapes: $v is not LO-HI (positive integers)" >&2; exit 2; }
done
k_step=${RULE_K_STEP:-16}
[[ "$k_step" =~ ^[1-9][0-9]*$ ]] || { echo "rule_shapes: RULE_K_STEP=$k_step is not a positive integer" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$seed" "$((count * 40))" "$m_range" "$n_range" "$k_range" "$k_step" > "$work/draws" <<'EOF'
import math, random, sys
seed, draws, step = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[6])
lo_hi = [tuple(int(x) for x in a.split("-")) for a in sys.argv[3:6]]
r = random.Random(seed)
def pick(lo, hi, step=1):
    return max(step, int(math.exp(r.uniform(math.log(lo), math.log(hi)))) // step * step)
for _ in range(draws):
    (ml, mh), (nl, nh), (kl, kh) = lo_hi
    print(pick(ml, mh), pick(nl, nh), pick(kl, kh, step))
EOF
# The auto line's packing pick as a variant ("bn=80,cluster=2x2,bm=128,consumers=2"), or nothing.
packing_pick() {
  local p bm=128 consumers=2
  p=$(grep -oE 'packing -> bn [0-9]+(, bm [0-9]+ -> [0-9]+, consumers [0-9]+ -> [0-9]+)?(, cluster [0-9]x[0-9] -> [0-9]x[0-9]| in [0-9]x[0-9])' <<< "$1" | head -1)
  [ -n "$p" ] || return 0
  if [[ "$p" =~ bm\ [0-9]+\ -\>\ ([0-9]+),\ consumers\ [0-9]+\ -\>\ ([0-9]+) ]]; then
    bm=${BASH_REMATCH[1]} consumers=${BASH_REMATCH[2]}
  fi
  echo "bn=$(sed -E 's/^packing -> bn ([0-9]+).*/\1/' <<< "$p"),cluster=$(grep -oE '[0-9]x[0-9]$' <<< "$p"),bm=$bm,consumers=$consumers"
}
found=0
while read -r m n k; do
  printf '{"kernel":"gemm","params":{"m":%d,"n":%d,"k":%d,"dtype":"bf16","out":"bf16","layout":"tn"}}\n' "$m" "$n" "$k" > "$work/spec.json"
  line=$("$cli" compile "$work/spec.json" --arch sm_90a --sms 132 --clusters-fit 2=66,4=30 --emit ir -o "$work/out" 2>&1 | grep '^auto' || true)
  if grep -qE -- "$pattern" <<< "$line"; then
    v=$variant
    if [ "$variant" = "@packing" ]; then
      v=$(packing_pick "$line")
      [ -n "$v" ] || continue
    fi
    echo "${m}x${n}x${k} default $v"
    echo "${m}x${n}x${k}: $(sed 's/^auto *//' <<< "$line")" | cut -c1-400 >&2
    found=$((found + 1))
    [ "$found" -ge "$count" ] && break
  fi
done < "$work/draws"
echo "rule_shapes: $found of $count shapes matched '$pattern' (seed $seed)" >&2
[ "$found" -gt 0 ]
