#!/usr/bin/env bash
# Runs a build command with all of its output in a log file, showing one line: what is built, where the log is, how
# far the build has come (swift build's "[done/total]" steps of the product being built) and the time since it
# started; on a terminal that line is rewritten every second, elsewhere a line is printed every minute. Then how long
# it took, or on failure the end of the log and the exit status. Used by `make demo`, whose own output should stand
# alone.
#   scripts/quiet-build.sh LOG DESCRIPTION COMMAND [ARGUMENT...]
set -uo pipefail
log=$1 description=$2
shift 2
mkdir -p "$(dirname "$log")"
: > "$log"
start=$SECONDS
elapsed() { local s=$((SECONDS - start)); printf '%d min %02d s' $((s / 60)) $((s % 60)); }
# The build's progress as the log tells it: the product being built and its last "[done/total]" step.
progress() {
    local step product
    step=$(grep -oE '^\[[0-9]+/[0-9]+\]' "$log" | tail -n 1 | tr -d '[]')
    product=$(grep -oE -- '--product [A-Za-z-]+' "$log" | tail -n 1 | cut -d' ' -f2)
    if [ -n "$step" ]; then
        printf 'step %s of %s%s' "${step%/*}" "${step#*/}" "${product:+ ($product)}"
    else
        printf 'planning'
    fi
}
"$@" > "$log" 2>&1 &
build=$!
trap 'kill "$build" 2>/dev/null; exit 130' INT TERM
printf '%s (log: %s)\n' "$description" "$log"
if [ -t 1 ]; then
    while kill -0 "$build" 2>/dev/null; do
        # Cut to the terminal's width: a wrapped line could not be rewritten in place.
        line="  $(progress), $(elapsed)"
        printf '\r\033[K%s' "${line:0:$(( $(tput cols 2>/dev/null || echo 80) - 1 ))}"
        sleep 1
    done
    printf '\r\033[K'
else
    last=$SECONDS
    while kill -0 "$build" 2>/dev/null; do
        if ((SECONDS - last >= 60)); then
            printf '  %s, %s\n' "$(progress)" "$(elapsed)"
            last=$SECONDS
        fi
        sleep 1
    done
fi
wait "$build"
status=$?
if [ "$status" = 0 ]; then
    printf '  done in %s\n' "$(elapsed)"
else
    printf '  failed (exit status %d) after %s; the end of %s:\n' "$status" "$(elapsed)" "$log"
    tail -n 30 "$log"
    exit "$status"
fi
