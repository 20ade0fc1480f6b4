#!/usr/bin/env bash
# Builds and copies the binaries the GPU machine needs into .stage/ (git-ignored),
# with the sample specs, for the device tool's `carry`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
rm -rf .stage
cmake --install "${BUILD_DIR:-build}" --prefix .stage >/dev/null
mkdir -p .stage/specs .stage/sanitizer && cp samples/specs/*.json .stage/specs/ && cp tests/sanitizer/*.json .stage/sanitizer/
cp bench/multicast_traffic.sh .stage/bin/
strip .stage/bin/tilejit* 2>/dev/null || true
du -sh .stage
