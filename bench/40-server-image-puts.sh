#!/usr/bin/env bash
# recipes-server throughput: 1,000 distinct 256 KiB image PUTs from curl --parallel-max 4 on loopback,
# once with fsync per image (the default) and once with --no-fsync. Prints one markdown section.
set -euo pipefail
BUILD="${BUILD:-.build}"
COUNT="${COUNT:-1000}"
if ! BUILD_OUTPUT="$(swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product recipes-server 2>&1)"; then
    printf '%s\n' "$BUILD_OUTPUT" >&2
    echo "bench/40: building recipes-server failed (output above)" >&2
    exit 1
fi
SERVER="$BUILD/release/recipes-server"
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() { if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi; rm -rf "$WORK"; }
trap cleanup EXIT

# COUNT distinct images and a curl config with one upload per image.
python3 - "$WORK" "$COUNT" <<'PY'
import hashlib, os, sys
work, count = sys.argv[1], int(sys.argv[2])
os.makedirs(f"{work}/img")
base = os.urandom(256 * 1024)
with open(f"{work}/names", "w") as names:
    for i in range(count):
        data = i.to_bytes(8, "big") + base[8:]
        sha = hashlib.sha256(data).hexdigest()
        open(f"{work}/img/{sha}", "wb").write(data)
        names.write(sha + "\n")
PY

run() { # $1 = label, rest = extra server options; prints "seconds ok"
    local label="$1"; shift
    rm -rf "$WORK/data" "$WORK/stdout"
    "$SERVER" --data "$WORK/data" --port 0 "$@" >"$WORK/stdout" 2>/dev/null &
    SERVER_PID=$!
    local base=""
    for _ in $(seq 200); do
        base="$(sed -n 's/^listening on //p' "$WORK/stdout" 2>/dev/null || true)"
        [ -n "$base" ] && break
        sleep 0.05
    done
    [ -n "$base" ] || { echo "recipes-server did not start" >&2; exit 1; }
    printf 'header = "Content-Type: image/png"\nwrite-out = "%%{http_code}\\n"\n' >"$WORK/curl.cfg"
    while read -r sha; do
        printf 'url = "%s/v1/images/%s"\nupload-file = "%s/img/%s"\noutput = "/dev/null"\n' \
            "$base" "$sha" "$WORK" "$sha" >>"$WORK/curl.cfg"
    done <"$WORK/names"
    local start end
    start=$(date +%s.%N)
    curl -s --no-progress-meter --parallel --parallel-max 4 -K "$WORK/curl.cfg" >"$WORK/codes"
    end=$(date +%s.%N)
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
    echo "$label $(echo "$end - $start" | bc -l) $(grep -c '^201$' "$WORK/codes")"
}

A=$(run "fsync")
B=$(run "no-fsync" --no-fsync)

echo "## recipes-server: image PUT throughput"
echo
echo "| mode | images | 201s | seconds | PUTs/s | MiB/s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for line in "$A" "$B"; do
    read -r label secs ok <<<"$line"
    printf '| %s | %d | %d | %.2f | %.0f | %.1f |\n' "$label" "$COUNT" "$ok" "$secs" \
        "$(echo "$COUNT / $secs" | bc -l)" "$(echo "$COUNT * 0.25 / $secs" | bc -l)"
done
echo
echo "Measured with \`curl --parallel --parallel-max 4\` uploading $COUNT distinct 256 KiB files to a release \`recipes-server\` on 127.0.0.1 (each body SHA-256-verified as it arrives, written to a temporary file in one piece (bodies up to 1 MiB), renamed; SQLite row per image)."
