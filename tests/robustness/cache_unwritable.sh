#!/usr/bin/env bash
# A cache folder that cannot be created (a path under a regular file) degrades to no cache:
# one warning, exit 0, the output written; and the same for a read-only cache folder.
source "$(dirname "$0")/common.sh"
echo "not a folder" >"$WORK/regular_file"
compile under-file TILEJIT_CACHE_DIR="$WORK/regular_file/cache"
expect_ok under-file
[ "$(warnings under-file)" = 1 ] || fail "expected one warning, got: $(cat "$WORK/under-file.err")"
grep -q "compile cache disabled" "$WORK/under-file.err" || fail "the warning does not say the cache is disabled"
! is_hit under-file || fail "a hit without a cache"
[ ! -e "$WORK/regular_file/cache" ] && [ -f "$WORK/regular_file" ] || fail "the regular file was touched"

# Read-only (mode 0500). Root writes anyway, so the compile runs as an unprivileged user.
mkdir -m 0500 "$WORK/readonly"
mkdir "$WORK/out-readonly"
give_away "$WORK/readonly" "$WORK/out-readonly"
AS=unprivileged compile readonly TILEJIT_CACHE_DIR="$WORK/readonly"
chmod 0700 "$WORK/readonly"
expect_ok readonly
[ "$(warnings readonly)" = 1 ] || fail "read-only: expected one warning, got: $(cat "$WORK/readonly.err")"
grep -q "compile cache disabled" "$WORK/readonly.err" || fail "read-only: the warning does not say the cache is disabled"
[ -z "$(ls -A "$WORK/readonly")" ] || fail "read-only: something was written: $(ls -A "$WORK/readonly")"
echo "PASS: an unusable cache folder means no cache, one warning, exit 0"
