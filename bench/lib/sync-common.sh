# shellcheck shell=bash
# Shared by bench/5x-sync-*.sh (sourced, not run: scripts/bench.sh runs bench/*.sh only). Before sourcing, set
# BENCH to the script's short name (e.g. "bench/50"). Builds the release `recipes` and `recipes-server`, makes a
# work folder removed on exit, and provides start_server / stop_server (the server is always stopped on exit) and
# build_previous_client (our client at an earlier commit, for the benches that compare against it).
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
# shellcheck disable=SC2034 # used by the scripts that source this file
RECIPES="$BUILD/$BENCH_CONFIG/recipes"
SERVER="$BUILD/$BENCH_CONFIG/recipes-server"

# The previous client: `recipes` built from the git ref PREVIOUS_REF, for the benches that compare our client against
# it side by side in the same run (bench/50, bench/54: ours ≥ 0.9 of it). The default, 7aca4bb, is main just before
# any of issue 28's work (fewer round trips, resumable photos), so those benches guard against our own regressions.
# Only a script that calls build_previous_client builds it.
PREVIOUS_REF="${PREVIOUS_REF:-7aca4bb}"
PREVIOUS_RECIPES=""
build_previous_client() { # sets PREVIOUS_RECIPES; builds once per full sha and config, then reuses the build
    local sha dir out start
    if ! sha="$(git rev-parse --verify --quiet "$PREVIOUS_REF^{commit}")"; then
        echo "$BENCH: PREVIOUS_REF \"$PREVIOUS_REF\" is not a commit of this repository; set it to a commit or tag" >&2
        exit 2
    fi
    # Under the build folder, which git ignores: the ref's files exported with `git archive` (no worktree to prune),
    # its own scratch path, and a marker written only once the build succeeded.
    dir="$BUILD/previous/$sha"
    PREVIOUS_RECIPES="$dir/scratch/$BENCH_CONFIG/recipes"
    [ -f "$dir/built-$BENCH_CONFIG" ] && [ -x "$PREVIOUS_RECIPES" ] && return 0
    echo "$BENCH: building the previous client ($PREVIOUS_REF, ${sha:0:12}) once into $dir" >&2
    start=$(date +%s)
    rm -rf "$dir/src" && mkdir -p "$dir/src" "$dir/scratch"
    if ! out="$(git archive --format=tar "$sha" | tar -x -C "$dir/src" 2>&1)"; then
        printf '%s\n' "$out" >&2
        echo "$BENCH: exporting $PREVIOUS_REF with git archive into $dir/src failed (output above)" >&2
        exit 1
    fi
    # The dependencies' checkouts and clones of our own build, so that it resolves from the local mirror as ours did.
    for folder in checkouts repositories; do
        if [ -d "$BUILD/$folder" ] && [ ! -d "$dir/scratch/$folder" ]; then
            cp -a "$BUILD/$folder" "$dir/scratch/$folder"
        fi
    done
    if ! out="$(swift build "${BUILD_FLAGS[@]}" --package-path "$dir/src" --scratch-path "$dir/scratch" \
        --product recipes 2>&1)" || [ ! -x "$PREVIOUS_RECIPES" ]; then
        printf '%s\n' "$out" >&2
        echo "$BENCH: building the previous client ($PREVIOUS_REF) in $dir failed (output above); remove $dir to start over" >&2
        exit 1
    fi
    echo "$(($(date +%s) - start)) s" >"$dir/built-$BENCH_CONFIG"
    echo "$BENCH: built the previous client in $(cat "$dir/built-$BENCH_CONFIG"): $PREVIOUS_RECIPES" >&2
}

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
