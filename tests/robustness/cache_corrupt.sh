#!/usr/bin/env bash
# A damaged cache entry (kernel.cubin truncated, a byte of kernel.ptx flipped, meta gone) is
# detected with one warning, rebuilt, and the run after that is a hit without a warning.
source "$(dirname "$0")/common.sh"
cache=$WORK/cache
compile first TILEJIT_CACHE_DIR="$cache"
expect_ok first
! is_hit first || fail "a fresh cache hit"
entry=$(entries "$cache")
[ -n "$entry" ] || fail "no entry after the first compile"

check_recovery() {  # what was damaged
  local what=$1
  compile "damaged-$what" TILEJIT_CACHE_DIR="$cache"
  expect_ok "damaged-$what"
  ! is_hit "damaged-$what" || fail "$what: a damaged entry was used"
  [ "$(warnings "damaged-$what")" = 1 ] || fail "$what: expected one warning, got: $(cat "$WORK/damaged-$what.err")"
  grep -q "corrupt cache entry" "$WORK/damaged-$what.err" || fail "$what: the warning does not say corrupt: $(cat "$WORK/damaged-$what.err")"
  cmp -s "$WORK/out-first/"*.ptx "$WORK/out-damaged-$what/"*.ptx || fail "$what: the rebuilt PTX differs"
  compile "again-$what" TILEJIT_CACHE_DIR="$cache"
  expect_ok "again-$what"
  is_hit "again-$what" || fail "$what: the run after the rebuild missed the cache"
  [ "$(warnings "again-$what")" = 0 ] || fail "$what: warned again: $(cat "$WORK/again-$what.err")"
  [ -z "$(leftovers "$cache")" ] || fail "$what: left behind: $(leftovers "$cache")"
  echo "ok: $what detected, rebuilt, then a hit"
}

truncate -s $(( $(stat -c %s "$entry/kernel.cubin") / 2 )) "$entry/kernel.cubin"
check_recovery truncated-cubin

# Flip one byte in the middle of the PTX (XOR 0x01 keeps it printable text).
size=$(stat -c %s "$entry/kernel.ptx")
offset=$(( size / 2 ))
byte=$(od -An -tu1 -j "$offset" -N1 "$entry/kernel.ptx" | tr -d ' ')
printf "$(printf '\\%03o' $(( byte ^ 1 )))" | dd of="$entry/kernel.ptx" bs=1 seek="$offset" conv=notrunc status=none
check_recovery flipped-ptx-byte

rm "$entry/meta"
check_recovery missing-meta

: >"$entry/kernel.cubin"
check_recovery empty-cubin
echo "PASS: every damaged entry was detected, rebuilt and then hit"
