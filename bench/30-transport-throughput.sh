#!/usr/bin/env bash
# 1,000 image PUTs of 256 KiB to recipes-server on loopback, 4 at a time: the recipes transport (HTTPClient,
# Benchmarks/TransportBenchmark) side by side with `curl --parallel --parallel-max 4` sending the same requests.
# Prints one markdown section on stdout; progress and build output go to stderr.
set -euo pipefail
BUILD=${BUILD:-.build}
COUNT=${COUNT:-1000}
ROUNDS=${ROUNDS:-9}

# A failed build says so and shows the compiler's output (on stderr, which is where the build log goes anyway).
build() {
    if ! swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product "$1" >&2; then
        echo "bench/30: building $1 failed (see the errors above)" >&2
        exit 1
    fi
}
build recipes-server
build TransportBenchmark
BIN=$(swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --show-bin-path)

# The server is started and stopped by the main shell only (never inside a $(...) subshell, whose EXIT trap
# would not be this one), so the trap below stops it on every exit path: success, failure or Ctrl-C.
work=$(mktemp -d)
server_pid=""
stop_server() { if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""; fi; }
trap 'stop_server; rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# 1,000 random 256 KiB bodies, each named by its SHA-256 (the contract's PUT /v1/images/{sha256}).
python3 - "$work/images" "$COUNT" <<'PY'
import hashlib, os, sys
directory, count = sys.argv[1], int(sys.argv[2])
os.makedirs(directory)
for _ in range(count):
    body = os.urandom(256 * 1024)
    with open(os.path.join(directory, hashlib.sha256(body).hexdigest()), "wb") as f:
        f.write(body)
PY

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# A fresh server (empty data dir) for every run, so every run stores 1,000 new images.
start_server() {
    port=$(free_port)
    data="$work/data-$RANDOM$RANDOM"
    "$BIN/recipes-server" --data "$data" --port "$port" --max-image-bytes 1048576 --no-fsync >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 100); do
        curl -fs "http://127.0.0.1:$port/v1/health" >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "recipes-server did not start:" >&2; cat "$work/server.log" >&2; exit 1
}

now() { date +%s.%N; }

# Both runners are called in the main shell and leave their time in `result` (seconds).
run_transport() {
    start_server
    out=$("$BIN/TransportBenchmark" put-images "http://127.0.0.1:$port" "$work/images") \
        || { echo "transport run failed: ${out:-no output}" >&2; exit 1; }
    stop_server
    case "$out" in *"failures=0 "*) ;; *) echo "transport run failed: $out" >&2; exit 1;; esac
    result=$(echo "$out" | sed 's/.*seconds=//')
}

run_curl() {
    start_server
    config="$work/curl.cfg"
    : >"$config"
    for file in "$work"/images/*; do
        name=$(basename "$file")
        printf 'url = "http://127.0.0.1:%s/v1/images/%s"\nupload-file = "%s"\noutput = "/dev/null"\n' "$port" "$name" "$file" >>"$config"
    done
    start=$(now)
    curl --parallel --parallel-max 4 -s --no-progress-meter -K "$config" -H "Content-Type: image/jpeg" -H "Expect:" \
        -w '%{http_code}\n' >"$work/curl-codes.txt"
    end=$(now)
    stop_server
    ok=$(grep -c '^20[01]$' "$work/curl-codes.txt" || true)
    [ "$ok" -eq "$COUNT" ] || { echo "curl run: only $ok of $COUNT stored" >&2; exit 1; }
    result=$(python3 -c "print(f'{$end - $start:.3f}')")
}

# Paired rounds: a round's two runs are seconds apart, so a slower spell of the machine weighs on both; the ratio is
# the median of each round's own ratio (a best-of-N would pair one side's luckiest moment with the other's).
times=()
for round in $(seq 1 "$ROUNDS"); do
    run_transport; t=$result
    run_curl; c=$result
    echo "round $round: transport ${t}s curl ${c}s" >&2
    times+=("$t $c")
done

python3 - "$COUNT" "$ROUNDS" "${times[@]}" <<'PY'
import statistics, sys
count, rounds = int(sys.argv[1]), int(sys.argv[2])
pairs = [tuple(map(float, pair.split())) for pair in sys.argv[3:]]
ours, curl = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
ratios = [c / t for t, c in pairs]
mib = count * 256 / 1024
print("## Transport: 1,000 image PUTs of 256 KiB, 4 at a time\n")
print("| client | median time (s) | requests/s | MiB/s |")
print("| --- | ---: | ---: | ---: |")
print(f"| recipes HTTPClient (libcurl multi) | {ours:.3f} | {count/ours:.0f} | {mib/ours:.1f} |")
print(f"| curl --parallel --parallel-max 4 | {curl:.3f} | {count/curl:.0f} | {mib/curl:.1f} |")
print(f"\nThroughput ratio recipes / curl: **{statistics.median(ratios):.2f}** (per round {min(ratios):.2f}–{max(ratios):.2f}; target ≥ 0.9).\n")
print(f"Measured: {count} random 256 KiB files PUT to `/v1/images/<sha256>` of a release `recipes-server --no-fsync` on "
      f"127.0.0.1 (fresh `--data` dir per run), both clients in the same script, {rounds} rounds of transport then curl, "
      f"wall clock; medians, and the ratio as the median of each round's curl time / transport time.")
PY
