#!/usr/bin/env bash
# Tuning on the GPU (issue 8), alone or from gpu_session.sh: `tilejit tune` of the 4096^3
# GEMM with a cold compile cache (timed), then `tilejit run` of the same spec, which must
# apply the recorded config (its "tuned" line), and the spec's defaults (--no-tuned) for
# comparison, then the same sweep again with every candidate in the compile cache.
# Run from the repo root with the binaries staged by scripts/stage.sh in .stage/; logs and
# the tuning DB go to $OUT (or ./out); the lines to read are in $OUT/tune_summary.txt.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
B=.stage/bin
SPEC=.stage/specs/gemm_auto.json
export TILEJIT_CACHE_DIR=/tmp/tilejit-cache-tune
export TILEJIT_TUNING_DB=$OUT/tuning.json
rm -rf "$TILEJIT_CACHE_DIR" "$TILEJIT_TUNING_DB"   # a cold sweep, and a DB with only this run's record
summary=$OUT/tune_summary.txt; : > "$summary"
note() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# $1: name of the logs. Progress (stderr, one line per candidate off a terminal) goes to .progress.
sweep() {
  local t0 rc; t0=$(now)
  $B/tilejit tune "$SPEC" --max-seconds 120 > "$OUT/$1.log" 2> "$OUT/$1.progress"; rc=$?
  note "== $1: tilejit tune $SPEC --max-seconds 120: rc=$rc, $(seconds "$t0" "$(now)") s for the whole command"
  cat "$OUT/$1.log" >> "$summary"
}

note "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), $(nproc) CPU cores"
sweep tune_cold

$B/tilejit run "$SPEC" -o "$OUT/ptx" > "$OUT/run_tuned.log" 2>&1; rc=$?
note "== tilejit run $SPEC (after the sweep): rc=$rc"
grep -E '^(tuned|launch|verify|compute)' "$OUT/run_tuned.log" | tee -a "$summary"
if grep -q '^tuned     bm=' "$OUT/run_tuned.log"; then note "OK: run applied the tuned config"
else note "FAIL: run did not apply a tuned config"; fi

$B/tilejit run "$SPEC" --no-tuned -o "$OUT/ptx" > "$OUT/run_untuned.log" 2>&1; rc=$?
note "== tilejit run $SPEC --no-tuned (the sample's defaults): rc=$rc"
grep -E '^(tuned|launch|verify|compute)' "$OUT/run_untuned.log" | tee -a "$summary"

sweep tune_warm
if [ -f "$TILEJIT_TUNING_DB" ]; then note "== the tuning DB ($TILEJIT_TUNING_DB):"; cat "$TILEJIT_TUNING_DB" >> "$summary"
else note "== no tuning DB was written"; fi
