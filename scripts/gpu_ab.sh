#!/usr/bin/env bash
# A/B of two builds in one device call: the staged bench binaries (.stage/bin) against
# another build's (OLD_BIN, default .stage/old), alternating A B A B so the card's
# thermal state hits both alike; each run is ours against cuBLAS, interleaved, so
# compare the ratio columns. Also the JIT bench of both.
#   OLD_BIN=.stage/old SHAPES=4096x4096x4096,8192x8192x8192 scripts/gpu_ab.sh
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export TILEJIT_CACHE_DIR=/tmp/tilejit-cache
NEW=.stage/bin OLD=${OLD_BIN:-.stage/old}
SHAPES=${SHAPES:-4096x4096x4096,6144x6144x6144,8192x8192x8192}
CONFIG=${CONFIG:-cluster=1x2}
: > "$OUT/ab.txt"  # this call's results only
for round in 1 2; do
  for side in new old; do
    bin=$NEW; [ $side = old ] && bin=$OLD
    $bin/tilejit_bench_gemm --iters 50 --reps ${REPS:-5} --shapes "$SHAPES" --config "$CONFIG" > "$OUT/ab_$side$round.log" 2>&1
    echo "== $side round $round rc=$?" >> "$OUT/ab.txt"; grep -E '^\|' "$OUT/ab_$side$round.log" >> "$OUT/ab.txt"
  done
done
for side in new old; do
  bin=$NEW; [ $side = old ] && bin=$OLD
  [ -x $bin/tilejit_bench_jit ] || continue
  $bin/tilejit_bench_jit --reps 10 > "$OUT/jit_$side.log" 2>&1
  echo "== jit $side rc=$?" >> "$OUT/ab.txt"; cat "$OUT/jit_$side.log" >> "$OUT/ab.txt"
done
cat "$OUT/ab.txt"
