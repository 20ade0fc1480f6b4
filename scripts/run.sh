#!/usr/bin/env bash
# The main job: set up, build, then `tilejit run` a spec (default: the DSMEM ring).
# With a GPU: compiles, launches, checks against the host reference and times.
# Without one: compiles, writes the PTX to tilejit-out/, and says launching needs a GPU (exit 3).
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:-samples/specs/dsmem_ring.json}
[ $# -gt 0 ] && shift
scripts/setup.sh --target tilejit
exec "${BUILD_DIR:-build}/cli/tilejit" run "$spec" "$@"
