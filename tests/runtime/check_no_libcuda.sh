#!/usr/bin/env bash
# Each binary named must have been read (its dynamic section lists libc and libnvrtc)
# and must not need libcuda: the driver is opened with dlopen, so the binaries start on
# a machine without a GPU. A missing readelf, a missing binary or an unreadable
# dynamic section fails the test instead of passing it.
set -uo pipefail
command -v readelf >/dev/null || { echo "FAIL: readelf is not installed"; exit 1; }
[ $# -gt 0 ] || { echo "FAIL: no binary named"; exit 1; }
for bin in "$@"; do
  [ -f "$bin" ] || { echo "FAIL: $bin does not exist"; exit 1; }
  needed=$(readelf -d "$bin" 2>&1) || { echo "FAIL: readelf -d $bin: $needed"; exit 1; }
  needed=$(grep '(NEEDED)' <<<"$needed" | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')
  case " $needed " in *" libc.so."*" "*) ;; *) echo "FAIL: $bin: no libc among NEEDED [$needed]: dynamic section not read"; exit 1 ;; esac
  case " $needed " in *" libnvrtc.so."*) ;; *) echo "FAIL: $bin: no libnvrtc among NEEDED [$needed]"; exit 1 ;; esac
  case " $needed " in *libcuda*) echo "FAIL: $bin needs libcuda: $needed"; exit 1 ;; esac
  echo "$(basename "$bin"): NEEDED $needed(no libcuda)"
done
