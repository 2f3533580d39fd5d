#!/usr/bin/env bash
# Peak memory of the recipes transport while streaming one 500 MiB file (target <= 30 MB).
# The receiving end is a discard-everything Python sink (not recipes-server), so only the client is measured.
# Prints one markdown section on stdout.
set -euo pipefail
BUILD=${BUILD:-.build}
SIZE_MIB=${SIZE_MIB:-500}

swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product TransportBenchmark >&2
BIN=$(swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --show-bin-path)

work=$(mktemp -d)
sink_pid=""
trap '[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; rm -rf "$work"' EXIT

# Real bytes, not a sparse file, so the page cache and reads behave as for a photo.
head -c "$((SIZE_MIB * 1024 * 1024))" /dev/urandom >"$work/big.bin"
head -c 1048576 /dev/urandom >"$work/small.bin"

cat >"$work/sink.py" <<'PY'
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_PUT(self):
        remaining = int(self.headers.get("Content-Length", "0"))
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                return
            remaining -= len(chunk)
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Sink)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$work/sink.py" >"$work/port" &
sink_pid=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(head -n1 "$work/port")

/usr/bin/time -v "$BIN/TransportBenchmark" upload-one "http://127.0.0.1:$port/v1/images/big" "$work/big.bin" \
    >"$work/out.txt" 2>"$work/time.txt"
out=$(cat "$work/out.txt")
case "$out" in *"status=201"*) ;; *) echo "upload failed: $out" >&2; cat "$work/time.txt" >&2; exit 1;; esac
max_rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
hwm_kb=$(echo "$out" | sed 's/.*peakRSSkB=//')
# Baseline: the same process uploading 1 MiB (libraries loaded, one connection), to show what the 500 MiB adds.
base=$("$BIN/TransportBenchmark" upload-one "http://127.0.0.1:$port/v1/images/small" "$work/small.bin")
base_kb=$(echo "$base" | sed 's/.*peakRSSkB=//')

echo "## Transport: peak memory streaming one ${SIZE_MIB} MiB upload"
echo
echo "| measure | value |"
echo "| --- | ---: |"
echo "| peak RSS of the uploading process (/usr/bin/time -v) | $(awk "BEGIN{printf \"%.1f\", $max_rss_kb/1024}") MiB |"
echo "| VmHWM read by the process after the upload | $(awk "BEGIN{printf \"%.1f\", $hwm_kb/1024}") MiB |"
echo "| VmHWM of the same program uploading 1 MiB (baseline) | $(awk "BEGIN{printf \"%.1f\", $base_kb/1024}") MiB |"
echo "| file size | ${SIZE_MIB} MiB |"
echo "| wall time | $wall |"
echo
echo "Measured: release \`TransportBenchmark upload-one\` (one HTTPClient, PUT streamed from disk through libcurl's read callback) to a Python sink on 127.0.0.1 that discards the body; target ≤ 30 MB."
