#!/usr/bin/env bash
# 8 `tilejit compile` processes on the same spec at once, with a fresh cache: all exit 0,
# and the cache holds exactly one entry, with no temp dirs or files left behind. Then the
# same race on a damaged entry: all exit 0, and the cache heals.
source "$(dirname "$0")/common.sh"
cache=$WORK/cache

race() {  # prefix: 8 compiles at once, p<prefix>1..8
  local pids=()
  for i in 1 2 3 4 5 6 7 8; do
    compile "$1$i" TILEJIT_CACHE_DIR="$cache" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  for i in 1 2 3 4 5 6 7 8; do expect_ok "$1$i"; done
}

race p
for i in 1 2 3 4 5 6 7 8; do
  [ "$(warnings "p$i")" = 0 ] || fail "p$i warned: $(cat "$WORK/p$i.err")"
done
n=$(entries "$cache" | wc -l)
[ "$n" = 1 ] || fail "$n cache entries, expected 1: $(find "$cache")"
[ -z "$(leftovers "$cache")" ] || fail "left behind: $(leftovers "$cache")"
entry=$(entries "$cache")
for f in kernel.ptx kernel.cubin kernel.log meta; do [ -f "$entry/$f" ] || fail "entry lacks $f"; done
[ "$(find "$cache" -mindepth 1 -maxdepth 1 | wc -l)" = 1 ] || fail "stray files in the cache: $(ls -a "$cache")"
# The PTX is the same, whoever won.
for i in 2 3 4 5 6 7 8; do
  cmp -s "$WORK/out-p1/"*.ptx "$WORK/out-p$i/"*.ptx || fail "p$i wrote a different PTX than p1"
done
compile after TILEJIT_CACHE_DIR="$cache"
expect_ok after
is_hit after || fail "the run after the race missed the cache"
echo "ok: 8 concurrent compiles, one entry ($entry), no leftovers, then a hit"

# A damaged entry met by 8 processes at once: each may see the damage (one warning at most),
# all succeed, and afterwards there is one good entry that the next run hits without a warning.
truncate -s 100 "$entry/kernel.cubin"
race c
for i in 1 2 3 4 5 6 7 8; do
  [ "$(warnings "c$i")" -le 1 ] || fail "c$i warned more than once: $(cat "$WORK/c$i.err")"
  cmp -s "$WORK/out-p1/"*.ptx "$WORK/out-c$i/"*.ptx || fail "c$i wrote a different PTX"
done
compile healed TILEJIT_CACHE_DIR="$cache"
expect_ok healed
[ "$(warnings healed)" = 0 ] || fail "the entry is still damaged after the race: $(cat "$WORK/healed.err")"
is_hit healed || fail "the run after the damaged race missed the cache"
[ "$(entries "$cache" | wc -l)" = 1 ] || fail "entries after the damaged race: $(entries "$cache")"
[ -z "$(leftovers "$cache")" ] || fail "left behind after the damaged race: $(leftovers "$cache")"
echo "PASS: 8 concurrent compiles on a fresh cache and on a damaged entry"
