#!/usr/bin/env bash
# Runs the tutorial's program (bin/tilejit_tutorial) in a scratch folder and checks what
# it printed: exit 77 (skipped) when it could not launch here, else the launch must
# have verified and the wrong argument must have been refused by name.
#   run_tutorial.sh PROGRAM WORK_DIR
set -uo pipefail
program=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$program" > out.txt 2>&1
rc=$?
cat out.txt
[ "$rc" = 0 ] || { echo "FAILED: the program exited $rc"; exit 1; }
if grep -q "^not launched:" out.txt; then
  grep -q "^compiled ring for sm_" out.txt || { echo "FAILED: the program did not compile its kernel"; exit 1; }
  echo "SKIPPED: the tutorial's launch (its kernel compiled): $(grep '^not launched:' out.txt)"
  exit 77
fi
grep -q "^ring values: all 540672 match" out.txt || { echo "FAILED: no 'ring values: all 540672 match'"; exit 1; }
grep -qF "refused: kernel 'ring' parameter 1 'salt' (u32, declared at first_cluster_kernel.cpp:13): got a double (7.5); pass an integer" out.txt || { echo "FAILED: the wrong argument was not refused by name"; exit 1; }
grep -q "^ring: .* ms median" out.txt || { echo "FAILED: no timing line"; exit 1; }
echo "PASSED: the tutorial's kernel launched, verified and was timed"
