#!/usr/bin/env bash
# `make demo`: recipes end to end on its own, as a cook meets it — a recipe imported from a web page (served on
# loopback), three typed in, a search, the recipe scaled for a smaller table, at the stove and as Markdown, then the
# sync to a local reference server (images first, then each recipe's JSON, a refused batch retried), a second device
# that restores everything with one sync, an edit on each device that merges, one that conflicts, resolved, and a
# delete undone on both. The plumbing is shown only where it explains something. Everything is removed afterwards and the servers are stopped, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-.build}
recipes="$PWD/$BUILD/release/recipes"
server="$PWD/$BUILD/release/recipes-server"
work=$(mktemp -d /tmp/recipes-demo.XXXXXX)
home="$work/home"
server_pid=""
site_pid=""
cleanup() {
    for pid in $server_pid $site_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
# Bold headings on a terminal, plain text otherwise or when NO_COLOR is set.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
# Shows a command as a person would type it (`recipes …`, the home left out), then runs it in the demo's home ($at).
at="$home"
run() { printf '%s$ recipes %s%s\n' "$bold" "$*" "$plain"; "$recipes" "$@" --home "$at"; }
# The first address a process printed to the file $1, waited for up to 10 s.
address_in() {
    local url=""
    for _ in $(seq 100); do
        url=$(grep -o 'http://127.0.0.1:[0-9]*' "$1" | head -1 || true)
        [ -n "$url" ] && break
        sleep 0.1
    done
    echo "$url"
}

step "Two local servers on loopback: a recipe blog (demo/site) and recipes-server (data in $work/server)"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory demo/site > "$work/site.out" 2>&1 &
site_pid=$!
# Every image upload is slowed to take half a second (progress to watch), and the first recipe upload is refused
# once with 503 and Retry-After: 1 (the first batch of recipe writes), which the client waits out and retries.
"$server" --data "$work/server" --port 0 --token demo-token-of-the-kitchen --request-log "$work/requests.log" \
    --fault 'PUT /v1/images/*: latency=500ms' \
    --fault 'POST /v1/recipes/batch: status=503 retry-after=1 first=1' > "$work/server.out" 2>"$work/server.err" &
server_pid=$!
site=$(address_in "$work/site.out")
url=$(address_in "$work/server.out")
[ -n "$site" ] || { echo "the demo's web server did not start:"; cat "$work/site.out"; exit 1; }
[ -n "$url" ] || { echo "recipes-server did not start:"; cat "$work/server.err"; exit 1; }
echo "the blog:      $site/lasagne.html"
echo "recipes-server $url"

step "A recipe from a web page: its schema.org data, photo included"
run import "$site/lasagne.html"

step "Three more, typed: demo/recipes.txt piped into \`recipes edit\` (the REPL reads one command per line)"
"$recipes" edit --home "$home" < demo/recipes.txt
run list

step "Recipes are named by their title (or its start, in any case and accent), by id or by uuid"
run ingredient add tomato 1 tsp smoked paprika
run cooktime country 35m

step "Search: every word must match, in any field; a word may be a field's (title:, ingredients:, …)"
run search garlic
run search title:bread

step "The lasagne for two: quantities scaled and written as a cook writes them"
run show lasagne --servings 2

step "At the stove: \`recipes cook\` shows one step at a time on a terminal, with what it uses and a timer for the time it names (keys: n, p, t, q); on a pipe it prints them all"
run cook lasagne --servings 2 | cat

step "The same, for a US kitchen and as a Markdown page"
run export lasagne --format markdown --servings 2 --units us

step "Syncing with the server: each recipe's image first, then its JSON, up to 4 at a time; the server refuses the first batch of recipes once (503, Retry-After: 1)"
"$recipes" config set server.url "$url" --home "$home"
printf 'demo-token-of-the-kitchen\n' | "$recipes" config set server.token - --home "$home"
status=0
run sync || status=$?
echo "exit status $status"
run status

step "What the server saw, counted: which images it lacks (one question), each image once, the recipes in batches (the refused batch sent again)"
python3 -c '
import collections, json, re, sys
seen = collections.Counter()
for line in open(sys.argv[1]):
    r = json.loads(line)
    path = re.sub(r"/[0-9a-f-]{16,}", "/…", r["path"].split("?")[0])
    seen["%s %s %s" % (r["method"], path, r["status"])] += 1
for request, count in sorted(seen.items()):
    print("%3d  %s" % (count, request))' "$work/requests.log"

# Two-way sync: a second device.
laptop="$work/laptop"
"$recipes" config set server.url "$url" --home "$laptop" >/dev/null
printf 'demo-token-of-the-kitchen\n' | "$recipes" config set server.token - --home "$laptop" >/dev/null

step "A second device (the kitchen laptop, a fresh home): one sync restores every recipe, photos included"
at="$laptop"
run sync || true
run list

step "Both devices edit the soup: the home its title, the laptop its yield — the edits merge"
at="$home"
run title tomato "Roast tomato soup"
run sync || true
at="$laptop"
run yield tomato "6 servings"
run sync || true
at="$home"
run sync || true
run show roast

step "Both devices change the bread's cook time: a conflict (exit 1) — nothing is overwritten"
run cooktime country 40m
run sync || true
at="$laptop"
run cooktime country 30m
status=0
run sync || status=$?
echo "exit status $status"
run conflicts

step "Resolved on the laptop: keep its own time (--mine), and sync — both devices agree"
run resolve country --mine
run sync || true
at="$home"
run sync || true
for device in home laptop; do
    dir=$home; [ "$device" = laptop ] && dir=$laptop
    printf '%-7s %s\n' "$device:" "$("$recipes" show country --home "$dir" | grep '^cook time')"
done

step "A slip, undone: the laptop deletes the salad and syncs; \`recipes undo\` brings it back, on both devices"
at="$laptop"
run delete green
run sync || true
at="$home"
run sync || true
at="$laptop"
run undo green
run history green
run sync || true
at="$home"
run sync || true
run list
