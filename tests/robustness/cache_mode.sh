#!/usr/bin/env bash
# The cache folder, and every folder tilejit creates in it, has mode 0700 (the cache holds
# code that gets run), whatever the umask.
source "$(dirname "$0")/common.sh"
cache=$WORK/a/b/cache
(umask 000; compile first TILEJIT_CACHE_DIR="$cache")
expect_ok first
for d in "$WORK/a" "$WORK/a/b" "$cache" $(find "$cache" -mindepth 1 -type d); do
  mode=$(stat -c %a "$d")
  [ "$mode" = 700 ] || fail "$d has mode $mode, expected 700"
done
echo "PASS: the cache folders are 0700 under umask 000"
