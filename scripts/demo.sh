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
server="$PWD/$BUILD/release/recipes-server"
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
"$server" --data "$work/server" --port 0 --token demo-token-of-the-kitchen --request-log "$work/requests.log" \
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
printf 'demo-token-of-the-kitchen\n' | "$recipes" config set server.token - --home "$home"
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
curl -s -H 'Authorization: Bearer demo-token-of-the-kitchen' "$url/v1/recipes/$uuid" | python3 -m json.tool

step "An edit from the shell (\`recipes title 2 …\`), then sync again (its image is on the server: only the JSON goes)"
"$recipes" title 2 "Country sourdough" --home "$home"
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
printf 'demo-token-of-the-kitchen\n' | "$recipes" config set server.token - --home "$laptop" >/dev/null
# The first 8 digits of the uuid of the home's recipe $1, as `status` shows them: ids are per device, the uuid names
# a recipe the same way on both.
short_uuid() {
    "$recipes" status "$1" --json --home "$home" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["uuid"][:8])'
}

step "A second device (a fresh home, $laptop): one \`recipes sync\` restores every recipe, images included"
"$recipes" sync --home "$laptop" || true
"$recipes" list --home "$laptop"
(cd "$laptop" && find images -type f ! -name '.lock' | sort)

soup=$(short_uuid 1)
bread=$(short_uuid 2)
step "Both devices edit the soup ($soup, the start of its uuid, names it on both): the home its title, the laptop a new ingredient — the edits merge"
"$recipes" title "$soup" "Roast tomato soup" --home "$home"
"$recipes" sync --home "$home" || true
"$recipes" ingredient add "$soup" 1 tsp smoked paprika --home "$laptop"
"$recipes" sync --home "$laptop" || true
"$recipes" sync --home "$home" || true
"$recipes" show "$soup" --home "$home"

step "Both devices change the yield of the bread ($bread): a conflict (exit 1) — nothing is overwritten"
"$recipes" yield "$bread" "2 loaves" --home "$home"
"$recipes" sync --home "$home" || true
"$recipes" yield "$bread" "12 rolls" --home "$laptop"
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
    "$("$recipes" show "$bread" --json --home "$home" | python3 -c 'import json, sys; print(json.load(sys.stdin)["recipeYield"])')" \
    "$("$recipes" show "$bread" --json --home "$laptop" | python3 -c 'import json, sys; print(json.load(sys.stdin)["recipeYield"])')"
