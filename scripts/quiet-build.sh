#!/usr/bin/env bash
# Runs a build command with all of its output in a log file, showing one line: what is built, where the log is,
# then how long it took. On failure, the end of the log and the exit status. Used by `make demo`, whose own output
# should stand alone.
#   scripts/quiet-build.sh LOG DESCRIPTION COMMAND [ARGUMENT...]
set -uo pipefail
log=$1 description=$2
shift 2
mkdir -p "$(dirname "$log")"
start=$(date +%s)
printf '%s (log: %s) ... ' "$description" "$log"
if "$@" > "$log" 2>&1; then
    seconds=$(( $(date +%s) - start ))
    printf 'done in %d min %02d s\n' $((seconds / 60)) $((seconds % 60))
else
    status=$?
    printf 'failed (exit status %d); the end of %s:\n' "$status" "$log"
    tail -n 30 "$log"
    exit "$status"
fi
