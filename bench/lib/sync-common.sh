# Shared by bench/5x-sync-*.sh (sourced, not run: scripts/bench.sh runs bench/*.sh only). Before sourcing, set
# BENCH to the script's short name (e.g. "bench/50"). Builds the release `recipes` and `recipes-server`, makes a
# work folder removed on exit, and provides start_server / stop_server (the server is always stopped on exit).
BUILD="${BUILD:-.build}"
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac

# BENCH_CONFIG=debug runs the debug builds instead (for a quick look on a busy machine; the figures say which build).
BENCH_CONFIG="${BENCH_CONFIG:-release}"
case "$BENCH_CONFIG" in
    release) BUILD_FLAGS=(-c release --static-swift-stdlib) ;;
    debug) BUILD_FLAGS=(-c debug) ;;
    *) echo "$BENCH: BENCH_CONFIG must be release or debug, not \"$BENCH_CONFIG\"" >&2; exit 2 ;;
esac
for product in recipes recipes-server; do
    if ! out="$(swift build "${BUILD_FLAGS[@]}" --scratch-path "$BUILD" --product "$product" 2>&1)"; then
        printf '%s\n' "$out" >&2
        echo "$BENCH: building $product failed (output above)" >&2
        exit 1
    fi
done
RECIPES="$BUILD/$BENCH_CONFIG/recipes"
SERVER="$BUILD/$BENCH_CONFIG/recipes-server"

WORK="$(mktemp -d)"
SERVER_PID=""
BASE=""
stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}
cleanup() { stop_server; rm -rf "$WORK"; }
trap cleanup EXIT

start_server() { # [server options...]: a fresh data folder; sets SERVER_PID and BASE
    rm -rf "$WORK/data" "$WORK/server.out"
    "$SERVER" --data "$WORK/data" --port 0 "$@" >"$WORK/server.out" 2>"$WORK/server.err" &
    SERVER_PID=$!
    BASE=""
    for _ in $(seq 200); do
        BASE="$(sed -n 's/^listening on //p' "$WORK/server.out" 2>/dev/null || true)"
        [ -n "$BASE" ] && return 0
        sleep 0.05
    done
    echo "$BENCH: recipes-server did not start: $(cat "$WORK/server.err")" >&2
    exit 1
}

stored_recipes() { # how many live recipes the server at $BASE holds (GET /v1/recipes, a page at a time)
    python3 - "$BASE" <<'PY'
import json, sys, urllib.request
base, after, count = sys.argv[1], None, 0
while True:
    url = f"{base}/v1/recipes?limit=1000" + (f"&after={after}" if after else "")
    page = json.load(urllib.request.urlopen(url))
    count += len(page["recipes"])
    after = page.get("next")
    if not after:
        break
print(count)
PY
}
