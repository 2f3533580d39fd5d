#!/usr/bin/env bash
# Cancel latency of a stalled transfer (the server accepted the request and went silent), over 20 tries.
# Prints one markdown section on stdout.
set -euo pipefail
BUILD=${BUILD:-.build}
TRIES=${TRIES:-20}

swift build -c release --scratch-path "$BUILD" --product TransportBenchmark >&2
BIN=$(swift build -c release --scratch-path "$BUILD" --show-bin-path)

out=$("$BIN/TransportBenchmark" cancel-latency "$TRIES")
median=$(echo "$out" | sed 's/.*medianMs=\([0-9.]*\).*/\1/')
worst=$(echo "$out" | sed 's/.*worstMs=\([0-9.]*\).*/\1/')

echo "## Transport: cancel latency of a stalled transfer"
echo
echo "| tries | median | worst | target |"
echo "| ---: | ---: | ---: | ---: |"
echo "| $TRIES | ${median} ms | ${worst} ms | < 100 ms |"
echo
echo "Measured: release \`TransportBenchmark cancel-latency\`: a GET to a loopback listener that accepts and never answers, cancelled 150 ms in (Swift task cancellation → curl_multi_wakeup → curl_multi_remove_handle); time from \`Task.cancel()\` until the awaiting caller has its \`.cancelled\` error."
