#!/usr/bin/env bash
# Installs what tilejit needs (Debian 12 packages), then configures and builds.
# Safe to run again: installs only what is missing, rebuilds only what changed.
#   BUILD_DIR (default: build)  CMAKE_BUILD_TYPE (default: RelWithDebInfo)
#   TILEJIT_CMAKE_ARGS: extra arguments for cmake's configure step
#     (with -DTILEJIT_FUZZ=ON it also installs clang 19 and its libFuzzer/sanitizer runtimes)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(cmake ninja-build g++ llvm-19-dev llvm-19-tools libzstd-dev libcli11-dev catch2 python3)
# clang 19, not Debian's default 14: the DSL needs std::source_location, which clang 14
# cannot compile with GCC 12's libstdc++.
case " ${TILEJIT_CMAKE_ARGS:-} " in
  *" -DTILEJIT_FUZZ=ON "*) PACKAGES+=(clang-19 libclang-rt-19-dev) ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tilejit setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "tilejit setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 2; }
    SUDO=sudo
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
if [ ! -e "$CUDA_ROOT/include/nvrtc.h" ]; then
  echo "tilejit setup: the CUDA toolkit (>= 12.8, with NVRTC) was not found at $CUDA_ROOT; set CUDA_ROOT" >&2
  exit 2
fi

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" \
  -DCUDAToolkit_ROOT="$CUDA_ROOT" ${TILEJIT_CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" "$@"
