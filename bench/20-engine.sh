#!/usr/bin/env bash
# Operation engine vs Foundation's OperationQueue: 100,000 operations, each exclusive on one of 1,000 keys,
# concurrency 4. Prints one markdown section. Run from the repo root; BUILD is the scratch path (default .build).
set -euo pipefail
BUILD="${BUILD:-.build}"
OPS="${ENGINE_BENCH_OPS:-100000}"
KEYS="${ENGINE_BENCH_KEYS:-1000}"

swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product EngineBenchmark >/dev/null 2>&1 \
  || swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product EngineBenchmark >&2
BIN="$(swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --show-bin-path)/EngineBenchmark"

# Each mode in its own process, so that VmHWM is that mode's own peak; best of three runs by throughput.
run() {
  local best=""
  for _ in 1 2 3; do
    local line
    line="$("$BIN" "$1" "$OPS" "$KEYS")"
    if [[ -z "$best" ]] || (( $(echo "$line" | awk '{print $4}') > $(echo "$best" | awk '{print $4}') )); then
      best="$line"
    fi
  done
  echo "$best"
}

engine="$(run engine)"
windowed="$(run engine-windowed)"
foundation="$(run foundation)"

row() { # mode line -> markdown row
  echo "$2" | awk -v name="$1" '{ printf "| %s | %s | %.3f | %\047d | %.3f | %.1f | %s |\n", name, $2, $3, $4, $7, $5/1024, $6 }'
}
ratio="$(awk -v a="$(echo "$engine" | awk '{print $4}')" -v b="$(echo "$foundation" | awk '{print $4}')" 'BEGIN { printf "%.1f", a / b }')"
ratio_windowed="$(awk -v a="$(echo "$windowed" | awk '{print $4}')" -v b="$(echo "$foundation" | awk '{print $4}')" 'BEGIN { printf "%.1f", a / b }')"

echo "## Operation engine vs Foundation OperationQueue"
echo
echo "| run | operations | seconds | ops/s | CPU s | peak RSS (MiB) | overlaps per key |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
row "ProcedureQueue, all added at once" "$engine"
row "ProcedureQueue, fed in windows of 4,096" "$windowed"
row "Foundation OperationQueue (same-key chained by dependencies)" "$foundation"
echo
cpu_ratio="$(awk -v a="$(echo "$foundation" | awk '{print $7}')" -v b="$(echo "$windowed" | awk '{print $7}')" 'BEGIN { printf "%.1f", a / b }')"
echo "Throughput ratio engine / Foundation: **${ratio}×** (windowed: ${ratio_windowed}×; target ≥ 3×). CPU per operation, Foundation / windowed engine: ${cpu_ratio}×."
echo
echo "Measured by \`bench/20-engine.sh\`: release build, $OPS operations each exclusive on one of $KEYS keys (\`MutualExclusion\` vs dependency chains), concurrency 4, trivial work that checks per-key overlap; each mode in its own process, best of 3 by throughput; CPU s is user+system time from getrusage (steadier than wall time on a shared machine); peak RSS is VmHWM from /proc/self/status on $(nproc) cores."
