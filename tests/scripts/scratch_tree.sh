# Sourced by the fake-binary script tests: a scratch tree in $work (removed on exit) holding
# scripts/gpu_session.sh from the source tree $1 and an empty .stage/bin for the fakes.
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/.stage/bin"
cp "$src/scripts/gpu_session.sh" "$work/scripts/"
