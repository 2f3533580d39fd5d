#!/usr/bin/env bash
# The release binaries as `make build` leaves them (issue 24): stripped copies in $BUILD/stripped, their symbols in
# *.debug beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-.build}
echo "## Binaries: size in \`$BUILD/stripped/\` (issue 24)"
echo
echo "| binary | stripped (what runs and installs) | symbols kept beside it (\`.debug\`) |"
echo "| --- | --- | --- |"
for name in recipes recipes-server; do
    binary="$BUILD/stripped/$name"
    [ -f "$binary" ] || { echo "| \`$name\` | not built | |"; continue; }
    stripped=$(stat -c %s "$binary")
    debug=$( [ -f "$binary.debug" ] && stat -c %s "$binary.debug" || echo 0)
    printf '| `%s` | %.1f MB | %.1f MB |\n' "$name" "$(echo "$stripped / 1000000" | bc -l)" "$(echo "$debug / 1000000" | bc -l)"
done
