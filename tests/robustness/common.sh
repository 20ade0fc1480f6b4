# Shared by the cache robustness tests: sourced, never run. Each test gets TILEJIT (the
# binary), SPEC (a dsmem_ring spec) and WORK (a scratch folder, emptied here) as arguments.
set -euo pipefail
TILEJIT=$1 SPEC=$2 WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
unset TILEJIT_ARCH TILEJIT_DUMP_DIR TILEJIT_DUMP_IR TILEJIT_DEBUG_HANGS XDG_CACHE_HOME

fail() { echo "FAIL: $*" >&2; exit 1; }
# The test's own stdout, for what CTest must see even from inside a redirected command.
exec 3>&1

# compile NAME [env...]: one `tilejit compile` of SPEC to PTX; stdout, stderr and the exit
# code land in $WORK/NAME.{out,err,rc}. Never fails by itself. AS=unprivileged runs it so.
compile() {
  local name=$1; shift
  local rc=0
  ${AS:-} env "$@" "$TILEJIT" compile "$SPEC" --arch sm_90a --emit ptx -o "$WORK/out-$name" \
    >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
  echo "$rc" >"$WORK/$name.rc"
}

# unprivileged CMD...: runs CMD as a user that file permissions apply to: uid/gid 65534
# (nobody) when we are root (root ignores permission bits), ourselves otherwise. Without
# setpriv, as root, the test reports itself skipped (CTest: "SKIPPED: ", on the test's own
# stdout: compile() redirects the command's), never passed.
unprivileged() {
  if [ "$(id -u)" != 0 ]; then "$@"; return; fi
  command -v setpriv >/dev/null || { echo "SKIPPED: running as root and setpriv is missing: cannot drop privileges" >&3; exit 0; }
  setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}
# give_away PATH...: hands PATHs to the user `unprivileged` runs as.
give_away() { if [ "$(id -u)" = 0 ]; then chown 65534:65534 "$@"; fi; }

# expect_ok NAME: exit 0, the PTX written, no crash on stderr.
expect_ok() {
  local name=$1
  [ "$(cat "$WORK/$name.rc")" = 0 ] || fail "$name: exit $(cat "$WORK/$name.rc"), expected 0: $(cat "$WORK/$name.err")"
  [ -s "$WORK/out-$name/dsmem_ring.ptx" ] || fail "$name: no PTX written: $(cat "$WORK/$name.out")"
  if grep -qE "terminate called|Sanitizer|runtime error:" "$WORK/$name.err"; then
    fail "$name: crash on stderr: $(cat "$WORK/$name.err")"
  fi
}

# warnings NAME: how many "tilejit: warning:" lines the run printed.
warnings() { grep -c "^tilejit: warning:" "$WORK/$1.err" || true; }

# hit NAME / miss NAME: whether the compile came from the cache.
is_hit() { grep -q "(cache hit)" "$WORK/$1.out"; }

# The published entries: <cache>/<2 hex>/<64 hex>.
entries() { find "$1" -mindepth 2 -maxdepth 2 -type d -regextype posix-extended -regex '.*/[0-9a-f]{2}/[0-9a-f]{64}'; }
# Anything a writer leaves behind while publishing (temp dirs and temp files).
leftovers() { find "$1" -name '*.tmp-*' -o -name '.tmp-*'; }
