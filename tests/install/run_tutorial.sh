#!/usr/bin/env bash
# Runs the tutorial's two programs (bin/tilejit_tutorial, and bin/tilejit_tutorial_epilogue
# from its section 7) in a scratch folder and checks what they printed. Each must compile
# its kernel; exit 77 (skipped) when they could not launch here, else the launches must
# have verified and the wrong argument must have been refused by name.
#   run_tutorial.sh PROGRAM EPILOGUE_PROGRAM WORK_DIR
set -uo pipefail
program=$1 epilogue=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAILED: $*"; exit 1; }
"$program" > out.txt 2>&1
rc=$?
"$epilogue" > epilogue.txt 2>&1
erc=$?
cat out.txt epilogue.txt
[ "$rc" = 0 ] || fail "the program exited $rc"
[ "$erc" = 0 ] || fail "the fused epilogue's program exited $erc"
grep -q "^compiled ring for sm_" out.txt || fail "the program did not compile its kernel"
grep -q "^compiled gelu_gemm for sm_" epilogue.txt || fail "the fused epilogue's program did not compile its kernel"
if grep -q "^not launched:" out.txt; then
  grep -q "^not launched:" epilogue.txt || fail "the fused epilogue's program launched where the first one did not"
  echo "SKIPPED: the tutorial's launches (both kernels compiled): $(grep '^not launched:' out.txt)"
  exit 77
fi
grep -q "^ring values: all 540672 match" out.txt || fail "no 'ring values: all 540672 match'"
grep -qF "refused: kernel 'ring' parameter 1 'salt' (u32, declared at first_cluster_kernel.cpp:13): got a double (7.5); pass an integer" out.txt || fail "the wrong argument was not refused by name"
grep -q "^ring: .* ms median" out.txt || fail "no timing line"
grep -q "^gelu_gemm values: all 32768 match" epilogue.txt || fail "no 'gelu_gemm values: all 32768 match'"
echo "PASSED: the tutorial's kernels launched and verified, the first one was timed"
