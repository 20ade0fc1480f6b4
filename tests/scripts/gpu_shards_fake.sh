#!/usr/bin/env sh
# Runs scripts/gpu_session.sh tests with GPU_TEST_SHARDS=3 in a scratch tree against a fake
# tilejit_gpu_tests (it lists five cases whose names hold commas, and runs those of its
# --input-file as Catch2 v2 parses it, logging their names): every case must run exactly once
# over the shards, and the note must sum the shards'
# counts, a failing shard's included; a binary that cannot list runs none. No GPU needed.
set -eu
. "$(dirname "$0")/scratch_tree.sh"
cat > "$work/.stage/bin/tilejit_gpu_tests" <<'FAKE'
#!/usr/bin/env sh
if [ "${1:-}" = "--list-test-names-only" ]; then
  echo "GPU tests on Fake GPU (sm_90a, 132 SMs)"
  for i in 1 2 3 4 5; do echo "case $i: a, b and [brackets] [gpu]"; done
  exit 1  # as Catch2 v2 does after a listing
fi
[ "$1" = "-f" ] || { echo "fake: want -f FILE, got $*"; exit 3; }
# As Catch2 v2 reads the file: an unescaped ',' splits a line into filters that match nothing
# ("Invalid Filter"); '\X' stands for X. FAKE_LOSE names a case to refuse the same way.
n=0
while IFS= read -r line; do
  if printf '%s' "$line" | sed 's/\\.//g' | grep -q , || { [ -n "${FAKE_LOSE:-}" ] && case "$line" in "$FAKE_LOSE"*) true;; *) false;; esac; }; then
    echo "Invalid Filter: \"$line\""; continue
  fi
  printf '%s\n' "$line" | sed 's/\\\(.\)/\1/g' >> "$(dirname "$0")/ran.txt"; n=$((n + 1))
done < "$2"
if grep -q '^case 5:' "$2"; then
  printf 'test cases: %d | %d passed | 1 failed\nassertions: 10 | 9 passed | 1 failed\n' "$n" "$((n - 1))"; exit 1
fi
echo "All tests passed ($((n * 10)) assertions in $n test cases)"
FAKE
chmod +x "$work/.stage/bin/tilejit_gpu_tests"
cd "$work"
OUT="$work/out" GPU_TEST_SHARDS=3 bash scripts/gpu_session.sh tests > log.txt 2>&1 || { cat log.txt; exit 1; }
.stage/bin/tilejit_gpu_tests --list-test-names-only | tail -n +2 | sort > listed.txt || true
sort .stage/bin/ran.txt | diff listed.txt - || { echo "each listed case, by its name, once"; exit 1; }
grep -q '^gpu tests (all) in 3 shards of 5 cases, rc 0 1 0: .*; in all: 5 test cases, 4 passed, 1 failed, 40 assertions$' out/summary.txt ||
  { echo "the note"; cat out/summary.txt; exit 1; }
# A case Catch2 cannot match is counted as not run, never dropped from the sums quietly.
rm .stage/bin/ran.txt
OUT="$work/out1" FAKE_LOSE="case 3" GPU_TEST_SHARDS=3 bash scripts/gpu_session.sh tests > log1.txt 2>&1 || { cat log1.txt; exit 1; }
grep -q '; in all: 4 test cases, .*; NOT RUN: 1 of the 5 listed cases (1 invalid filter(s) in the logs)$' out1/summary.txt ||
  { echo "the note on a case not run"; cat out1/summary.txt; exit 1; }
# A binary that cannot list (no GPU: exit 77) runs no shard, and the note says why.
printf '#!/usr/bin/env sh\necho "SKIPPED: every [gpu] test: no GPU here"\nexit 77\n' > .stage/bin/tilejit_gpu_tests
OUT="$work/out2" GPU_TEST_SHARDS=3 bash scripts/gpu_session.sh tests > log2.txt 2>&1 || { cat log2.txt; exit 1; }
grep -q '^gpu tests (all) in 3 shards: not run, the listing gave rc=77: SKIPPED: every \[gpu\] test: no GPU here' out2/summary.txt ||
  { echo "the listing's failure"; cat out2/summary.txt; exit 1; }
[ ! -e out2/gpu_tests.0.log ] || { echo "a shard ran"; exit 1; }
