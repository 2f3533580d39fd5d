#!/usr/bin/env bash
# `make demo`: recipes end to end on its own — a local reference server on loopback with a temporary data folder,
# sample recipes with images in a temporary home, a sync you can watch, the status, one recipe read back from the
# server; then two-way sync: a second home (another device) restores everything with one sync, an edit on each side
# of one recipe merges, and an edit of the same field on both is a conflict, shown and resolved. Everything is
# removed afterwards and the server is stopped, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-.build}
recipes="$PWD/$BUILD/release/recipes"
server="$PWD/$BUILD/debug/recipes-server"
work=$(mktemp -d /tmp/recipes-demo.XXXXXX)
home="$work/home"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
# Bold headings on a terminal, plain text otherwise or when NO_COLOR is set.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }

step "Starting recipes-server on a free loopback port (data in $work/server)"
# Two faults make the run worth watching: every image upload is slowed to take a second, and the first recipe upload
# is refused once with 503 and Retry-After: 1, which the client waits out and retries.
"$server" --data "$work/server" --port 0 --token demo-token --request-log "$work/requests.log" \
    --fault 'PUT /v1/images/*: latency=1s' \
    --fault 'PUT /v1/recipes/*: status=503 retry-after=1 first=1' > "$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 100); do
    url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/server.out" | head -1 || true)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "recipes-server did not start:"; cat "$work/server.err"; exit 1; }
echo "listening on $url"

step "A fresh home: $home"
"$recipes" config set server.url "$url" --home "$home"
printf 'demo-token\n' | "$recipes" config set server.token - --home "$home"
"$recipes" config show --home "$home"

step "Creating sample recipes with images (demo/recipes.txt piped into \`recipes edit\`)"
"$recipes" edit --home "$home" < demo/recipes.txt
"$recipes" list --home "$home"

step "recipes status (before the sync)"
"$recipes" status --home "$home"

step "recipes sync — images first, then each recipe's JSON; the 503 is retried after its Retry-After"
status=0
"$recipes" sync --home "$home" || status=$?
echo "exit status $status"

step "recipes status (after the sync)"
"$recipes" status --home "$home"

step "Recipe 1 read back from the server"
uuid=$("$recipes" status 1 --json --home "$home" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["uuid"])')
curl -s -H 'Authorization: Bearer demo-token' "$url/v1/recipes/$uuid" | python3 -m json.tool

step "An edit: a new title for recipe 2, then sync again (its image is on the server: only the JSON goes)"
printf 'title 2 "Country sourdough"\n' | "$recipes" edit --home "$home"
"$recipes" sync --home "$home" || true

step "What the server saw (its request log: method, path, status)"
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print("%-6s %-80s %s" % (r["method"], r["path"], r["status"]))' "$work/requests.log"

step "The home after the sync: no temporary files left in media/ and outbox/ (images/ keeps what the server confirmed)"
(cd "$home" && find . -type f ! -name '.lock' | sort)

# Two-way sync: a second device.
laptop="$work/laptop"
"$recipes" config set server.url "$url" --home "$laptop" >/dev/null
printf 'demo-token\n' | "$recipes" config set server.token - --home "$laptop" >/dev/null
# The laptop's local id of the recipe with the home's id $1 (ids are per home; the uuid is the recipe's identity).
laptop_id() {
    local uuid
    uuid=$("$recipes" status "$1" --json --home "$home" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["uuid"])')
    "$recipes" status --json --home "$laptop" | python3 -c '
import json, sys
print(next(e["id"] for e in json.load(sys.stdin) if e["uuid"] == sys.argv[1]))' "$uuid"
}

step "A second device (a fresh home, $laptop): one \`recipes sync\` restores every recipe, images included"
"$recipes" sync --home "$laptop" || true
"$recipes" list --home "$laptop"
(cd "$laptop" && find images -type f ! -name '.lock' | sort)

step "Both devices edit recipe 1: the home its title, the laptop a new ingredient — the edits merge"
soup=$(laptop_id 1)
printf 'title 1 "Roast tomato soup"\n' | "$recipes" edit --home "$home"
"$recipes" sync --home "$home" || true
printf 'ingredient add %s 1 tsp smoked paprika\n' "$soup" | "$recipes" edit --home "$laptop"
"$recipes" sync --home "$laptop" || true
"$recipes" sync --home "$home" || true
"$recipes" show 1 --home "$home"

step "Both devices change the yield of recipe 2: a conflict (exit 1) — nothing is overwritten"
bread=$(laptop_id 2)
printf 'yield 2 "2 loaves"\n' | "$recipes" edit --home "$home"
"$recipes" sync --home "$home" || true
printf 'yield %s "12 rolls"\n' "$bread" | "$recipes" edit --home "$laptop"
status=0
"$recipes" sync --home "$laptop" || status=$?
echo "exit status $status"
"$recipes" status "$bread" --home "$laptop"
"$recipes" conflicts --home "$laptop"

step "Resolved on the laptop: keep its own yield (--mine), and sync — both devices agree"
"$recipes" resolve "$bread" --mine --home "$laptop"
"$recipes" sync --home "$laptop" || true
"$recipes" sync --home "$home" || true
printf 'home:   %s\nlaptop: %s\n' \
    "$("$recipes" show 2 --json --home "$home" | python3 -c 'import json, sys; print(json.load(sys.stdin)["recipeYield"])')" \
    "$("$recipes" show "$bread" --json --home "$laptop" | python3 -c 'import json, sys; print(json.load(sys.stdin)["recipeYield"])')"
