#!/usr/bin/env bash
# Cancel latency of stalled transfers over 20 tries each: a GET whose server accepted the request and went
# silent, and a file PUT whose server stopped reading (the client is blocked sending). Target: < 100 ms.
# Prints one markdown section on stdout.
set -euo pipefail
BUILD=${BUILD:-.build}
TRIES=${TRIES:-20}
TARGET_MS=100

swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product TransportBenchmark >&2
BIN=$(swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --show-bin-path)

# One row: case name, then the benchmark mode; the target counts as met when the worst try is under it.
row() {
    local name=$1 mode=$2 out median worst met
    out=$("$BIN/TransportBenchmark" "$mode" "$TRIES")
    case "$out" in *medianMs=*worstMs=*) ;; *) echo "TransportBenchmark $mode failed: $out" >&2; exit 1;; esac
    median=$(echo "$out" | sed 's/.*medianMs=\([0-9.]*\).*/\1/')
    worst=$(echo "$out" | sed 's/.*worstMs=\([0-9.]*\).*/\1/')
    met=$(awk -v w="$worst" -v t="$TARGET_MS" 'BEGIN { print (w < t) ? "yes" : "**no**" }')
    echo "| $name | $TRIES | ${median} ms | ${worst} ms | < ${TARGET_MS} ms | $met |"
}

get_row=$(row "stalled GET (server silent after the request)" cancel-latency)
put_row=$(row "stalled upload (server stopped reading, client blocked sending)" cancel-upload-latency)

echo "## Transport: cancel latency of stalled transfers"
echo
echo "| case | tries | median | worst | target | target met (worst) |"
echo "| --- | ---: | ---: | ---: | ---: | :---: |"
echo "$get_row"
echo "$put_row"
echo
echo "Measured: release \`TransportBenchmark cancel-latency\` (a GET to a loopback listener that accepts and never answers, cancelled 150 ms in) and \`cancel-upload-latency\` (a 64 MiB file PUT to a listener that never reads, cancelled 300 ms in, once the socket buffers are full); Swift task cancellation → curl_multi_wakeup → curl_multi_remove_handle; time from \`Task.cancel()\` until the awaiting caller has its \`.cancelled\` error."
