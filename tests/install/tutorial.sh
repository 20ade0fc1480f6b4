#!/usr/bin/env bash
# The tutorial (docs/tutorial.md), followed as a user would, against an installed tree:
# installs the build into a prefix under WORK, writes the page's ```cmake and ```cpp
# blocks (```cpp fused_epilogue.cpp: the second program) into a fresh project, and runs
# its ```sh blocks in order (the first in a stand-in for the tilejit checkout, the others
# in the project) with TILEJIT_PREFIX set. Then checks what they made. On a machine
# without a GPU the programs compile their kernels to PTX and say they did not launch;
# with one they launch and verify.
#   tutorial.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
page=$src/docs/tutorial.md
extract() { cmake -DINPUT="$page" -DLANG="$1" -DOUTPUT="$2" ${3:+-DINDEX=$3} ${4:+-DCOUNT_FILE=$4} -P "$src/cmake/extract_blocks.cmake"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/checkout" "$work/project"
ln -s "$build" "$work/checkout/build"
export TILEJIT_PREFIX=$work/prefix
export TILEJIT_CACHE_DIR=$work/cache
unset TILEJIT_DUMP_DIR TILEJIT_ARCH TILEJIT_DEVICE

extract cmake "$work/project/CMakeLists.txt"
extract cpp "$work/project/first_cluster_kernel.cpp"
extract c++ "$work/project/ring_plugin.cpp"   # section 6: the plugin, and its spec
extract json "$work/project/ring.json"
extract "cpp fused_epilogue.cpp" "$work/project/fused_epilogue.cpp"   # section 7: the second program
extract sh "$work/sh_1.sh" 1 "$work/sh_count"
blocks=$(cat "$work/sh_count")
# Block 2 runs the first program, 5 the plugin, 6 the fused epilogue's program (checked below).
[ "$blocks" = 6 ] || fail "docs/tutorial.md has $blocks sh blocks; tutorial.sh checks the output of blocks 2, 5 and 6"
for ((i = 1; i <= blocks; i++)); do
  [ "$i" = 1 ] || extract sh "$work/sh_$i.sh" "$i"
  dir=$work/project
  [ "$i" = 1 ] && dir=$work/checkout
  echo "== sh block $i (in ${dir#$work/}):"
  sed 's/^/   $ /' "$work/sh_$i.sh"
  rc=0
  (cd "$dir" && bash -euo pipefail "$work/sh_$i.sh") > "$work/sh_$i.out" 2>&1 || rc=$?
  cat "$work/sh_$i.out"
  # `tilejit run` without a GPU compiles, says so and exits 3, as the page says.
  if [ "$rc" != 0 ]; then
    [ "$rc" = 3 ] && grep -q "^launch    not run: no GPU here" "$work/sh_$i.out" || fail "sh block $i exited $rc"
  fi
done

# The project was built against the prefix only: not the source tree, not the build.
grep -q "^tilejit_DIR:PATH=$TILEJIT_PREFIX/lib/cmake/tilejit$" "$work/project/build/CMakeCache.txt" ||
  fail "the project did not find tilejit in $TILEJIT_PREFIX: $(grep tilejit_DIR "$work/project/build/CMakeCache.txt")"
# Every include path of the project's compile line is the prefix's or the CUDA toolkit's.
includes=$(sed -n 's/^CXX_INCLUDES = //p' "$work/project/build/CMakeFiles/first_cluster_kernel.dir/flags.make")
[ -n "$includes" ] || fail "no CXX_INCLUDES in the project's flags.make"
checked=0 prev=
for flag in $includes; do
  path=
  case $flag in -I*) path=${flag#-I} ;; -isystem | -iquote) ;; *) [ "$prev" = -isystem ] || [ "$prev" = -iquote ] && path=$flag ;; esac
  prev=$flag
  [ -n "$path" ] || continue
  checked=$((checked + 1))
  case $path in "$TILEJIT_PREFIX"/* | */cuda*/include | */cuda*/targets/*/include) ;; *) fail "the project includes $path, outside the prefix" ;; esac
done
[ "$checked" -ge 2 ] || fail "read only $checked include path(s) from: $includes"
[ -f "$TILEJIT_PREFIX/share/tilejit/tilejit_prelude.cuh" ] || fail "no prelude under the prefix"
# The flattened prelude, as NVRTC receives it: the topic files of codegen/prelude/ inlined.
! grep -q "#include" "$TILEJIT_PREFIX/share/tilejit/tilejit_prelude.cuh" || fail "the installed prelude still includes its parts"
# What the program printed, and what it wrote.
out=$work/sh_2.out
grep -q "^compiled ring for sm_" "$out" || fail "the program did not say it compiled"
grep -q "mapa.shared::cluster.u32" "$work/project/ring.ptx" || fail "ring.ptx has no mapa.shared::cluster.u32"
grep -q "st.shared::cluster.u32" "$work/project/ring.ptx" || fail "ring.ptx has no st.shared::cluster.u32"
grep -q "barrier.cluster.wait" "$work/project/ring.ptx" || fail "ring.ptx has no barrier.cluster.wait"
# The lines of ring.cu the page quotes.
for line in "// Store at first_cluster_kernel.cpp:17: map_shared_rank(inbox, ((%cluster_ctarank + 1) % %cluster_nctarank))[i] = " \
            "tj::st_cluster(tj::map_shared_rank(inbox, ((tj::cluster_ctarank() + 1) % tj::cluster_nctarank())), i, " \
            "// ClusterBarrier at first_cluster_kernel.cpp:19: cluster_sync()"; do
  grep -qF -- "$line" "$work/project/ring.cu" || fail "ring.cu has no line '$line' (docs/tutorial.md quotes it)"
  grep -qF -- "${line%% = }" "$page" || fail "docs/tutorial.md no longer quotes '$line'"
done
cmp -s "$work/project/ring.ptx" "$work/project/dump/ring.ptx" || fail "TILEJIT_DUMP_DIR's ring.ptx differs from the program's"
[ -s "$work/project/sample/dsmem_ring.ptx" ] || fail "tilejit compile wrote no sample/dsmem_ring.ptx"
# Section 6: the plugin, built against the prefix, listed, compiled and (on a GPU) run.
plugin_out=$work/sh_5.out
grep -qx "ring" "$plugin_out" || fail "tilejit --plugin ... list does not show the plugin's generator 'ring'"
grep -q "mapa.shared::cluster.u32" "$work/project/plugin-out/ring.ptx" || fail "the plugin's ring.ptx has no mapa.shared::cluster.u32"
[ -s "$work/project/plugin-out/ring.cu" ] || fail "tilejit --plugin ... compile wrote no ring.cu"
if grep -q "^launch    not run: no GPU here" "$plugin_out"; then
  echo "tutorial: the plugin built, listed and compiled; its run not launched here (no GPU)"
else
  grep -q "^verify    PASSED: 135168 u32 through DSMEM: all 135168 match" "$plugin_out" || fail "the plugin's run did not verify"
fi
# Section 7: the fused epilogue's program compiled its kernel: the tile MMA, the GELU's
# tanh.approx and the epilogue's pair stores; on a GPU it verified.
epilogue_out=$work/sh_6.out
grep -q "^compiled gelu_gemm for sm_" "$epilogue_out" || fail "the fused epilogue's program did not say it compiled"
grep -q "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" "$work/project/gelu_gemm.ptx" || fail "gelu_gemm.ptx has no m64n128k16 wgmma"
grep -q "tanh.approx.f32" "$work/project/gelu_gemm.ptx" || fail "gelu_gemm.ptx has no tanh.approx.f32 (the GELU)"
grep -q "tj::store_pair_tile" "$work/project/gelu_gemm.cu" || fail "gelu_gemm.cu has no tj::store_pair_tile (the epilogue's stores)"
if grep -q "^not launched:" "$epilogue_out"; then
  echo "tutorial: the fused epilogue's kernel compiled; not launched here"
else
  grep -q "^gelu_gemm values: all 32768 match" "$epilogue_out" || fail "the fused epilogue's launch did not verify"
  echo "tutorial: the fused epilogue's kernel launched and verified"
fi
if grep -q "^not launched:" "$out"; then
  echo "tutorial: built against $TILEJIT_PREFIX and compiled to PTX; not launched here ($(grep '^not launched:' "$out"))"
else
  grep -q "^ring values: all 540672 match" "$out" || fail "the launch did not verify"
  grep -qF "refused: kernel 'ring' parameter 1 'salt' (u32, declared at first_cluster_kernel.cpp:13): got a double (7.5); pass an integer" "$out" ||
    fail "the wrong argument was not refused with the page's message"
  echo "tutorial: built against $TILEJIT_PREFIX, launched and verified"
fi
