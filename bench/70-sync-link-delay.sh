#!/usr/bin/env bash
# Sync over a link with delay: the server in one network namespace, the client in another, joined by
# Benchmarks/LinkDelay (a fixed one-way delay and a rate-limited bottleneck with a bounded queue, through TUN devices;
# this kernel has no netem), on the namespaces' own addresses only. For each link (100 ms round trip × 20 Mbit/s,
# 20 ms × 100 Mbit/s), side by side in one run: `recipes sync` of COUNT recipes with distinct 32 KiB images into a
# fresh release `recipes-server`; the same contract requests by `curl --parallel --parallel-max 4`, twice: in one
# config (HEAD, image PUT, recipe PUT per recipe; curl keeps no order between them, so a recipe PUT that overtakes its
# image gets 422) and in two (every HEAD and image PUT, then every recipe PUT); a restore of the same recipes into an
# empty home; curl's downloads of the same (the changes pages in turn, then the images with `--parallel-max 4`); and
# the physical limit: the payload at the link's rate plus three round trips. First a check of the link itself: the
# round trip (TCP connects) and the rate (a 16 MiB image each way). RUNS rounds per link; medians. On the first link
# also a 20 MiB image whose upload the server cuts at 80%, against a server with and without resumable-images (what
# the retry sends again), and issue 28's targets with whether each is met. Needs root (network namespaces and TUN
# devices); elsewhere it prints why it is skipped. Prints one markdown section on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${COUNT:-200}"
RUNS="${RUNS:-3}"
KIB=32
# Links as ONE-WAY-DELAY-MS:RATE-MBIT.
LINKS="${LINKS:-50:20 10:100}"
TITLE="## Sync over a link with delay (network namespaces)"

BENCH=bench/70
. bench/lib/netns-link.sh
reason="$(netns_link_unavailable)"
if [ -n "$reason" ]; then
    printf '%s\n\n**skipped**: %s. This bench runs the server and the client in two network namespaces joined by TUN devices, which needs root.\n' "$TITLE" "$reason"
    exit 0
fi
. bench/lib/sync-common.sh
if ! out="$(swift build "${BUILD_FLAGS[@]}" --scratch-path "$BUILD" --product LinkDelay 2>&1)"; then
    printf '%s\n' "$out" >&2
    echo "$BENCH: building LinkDelay failed (output above)" >&2
    exit 1
fi
LINK_DELAY="$BUILD/$BENCH_CONFIG/LinkDelay"
trap 'stop_server; link_down; rm -rf "$WORK"' EXIT

PORT=8080
start_link_server() { # a fresh data folder, the server in $NS_SERVER on $SERVER_ADDR; sets SERVER_PID and BASE
    rm -rf "$WORK/data" "$WORK/server.out"
    # `ip netns exec` itself, not the in_server function: a function put in the background is a subshell, whose PID
    # would not be the server's. (ip execs the server, so $! is the server.)
    ip netns exec "$NS_SERVER" "$SERVER" --data "$WORK/data" --host "$SERVER_ADDR" --port "$PORT" >"$WORK/server.out" 2>"$WORK/server.err" &
    SERVER_PID=$!
    BASE="http://$SERVER_ADDR:$PORT"
    for _ in $(seq 200); do
        grep -q '^listening on ' "$WORK/server.out" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "$BENCH: recipes-server did not start: $(cat "$WORK/server.err")" >&2
    exit 1
}
count_recipes() { # live recipes on the server, asked from its own namespace (not across the link)
    in_server python3 - "$BASE" <<'PY'
import json, sys, urllib.request
base, after, count = sys.argv[1], None, 0
while True:
    page = json.load(urllib.request.urlopen(f"{base}/v1/recipes?limit=1000" + (f"&after={after}" if after else "")))
    count += len(page["recipes"])
    after = page.get("next")
    if not after:
        break
print(count)
PY
}

# COUNT distinct 32 KiB PNG files, the REPL lines that make one recipe per image, and the recipe JSON curl sends.
python3 - "$WORK" "$COUNT" "$KIB" <<'PY'
import hashlib, os, sys
work, count, kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(f"{work}/img")
magic = b"\x89PNG\r\n\x1a\n"
base = os.urandom(kib * 1024)
with open(f"{work}/names", "w") as names, open(f"{work}/commands", "w") as commands:
    for i in range(1, count + 1):
        data = magic + i.to_bytes(8, "big") + base[16:]
        sha = hashlib.sha256(data).hexdigest()
        path = f"{work}/img/{sha}.png"
        open(path, "wb").write(data)
        names.write(sha + "\n")
        commands.write(f"new Recipe {i}\ningredient add {i} \"{i} g flour\"\nstep add {i} \"Bake {i} minutes.\"\nimage set {i} {path}\n")
PY
RECIPES_HOME="$WORK/home-template" "$RECIPES" edit --bail <"$WORK/commands" >/dev/null

# curl's configs for the server at $BASE: every HEAD and image PUT (images.cfg), then every recipe PUT (recipes.cfg),
# each recipe a schema.org document shaped like the client's, sent as new with If-None-Match: *. Prints the payload
# bytes (images and documents).
write_curl_configs() {
    python3 - "$WORK" "$BASE" <<'PY'
import json, os, sys, uuid
work, base = sys.argv[1], sys.argv[2]
os.makedirs(f"{work}/json", exist_ok=True)
shas = open(f"{work}/names").read().split()
out = "output = \"/dev/null\"\nwrite-out = \"%{http_code} %{method}\\n\"\n"
images, recipes, interleaved, payload = [], [], [], 0
for i, sha in enumerate(shas, 1):
    identifier = str(uuid.uuid4())
    doc = {"@context": "https://schema.org", "@type": "Recipe", "identifier": identifier, "version": 1,
           "name": f"Recipe {i}", "description": "", "recipeYield": "", "keywords": "",
           "recipeIngredient": [f"{i} g flour"], "recipeInstructions": [{"@type": "HowToStep", "text": f"Bake {i} minutes."}],
           "image": f"{base}/v1/images/{sha}", "dateModified": "2026-01-01T00:00:00Z"}
    body = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    doc_path = f"{work}/json/{identifier}.json"
    open(doc_path, "wb").write(body)
    payload += len(body) + os.path.getsize(f"{work}/img/{sha}.png")
    head = f"url = \"{base}/v1/images/{sha}\"\nhead\n{out}"
    put_image = f"url = \"{base}/v1/images/{sha}\"\nupload-file = \"{work}/img/{sha}.png\"\nheader = \"Content-Type: image/png\"\n{out}"
    put_recipe = (f"url = \"{base}/v1/recipes/{identifier}\"\nupload-file = \"{doc_path}\"\n"
                  f"header = \"Content-Type: application/json\"\nheader = \"If-None-Match: *\"\n{out}")
    images += [head, put_image]
    recipes.append(put_recipe)
    interleaved += [head, put_image, put_recipe]
for name, blocks in (("images.cfg", images), ("recipes.cfg", recipes), ("interleaved.cfg", interleaved)):
    open(f"{work}/{name}", "w").write("next\n".join(blocks))
print(payload)
PY
}

RESULTS=() # one line per run: link sender seconds exit-status recipes-done
now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc -l; }

sync_client() { # $1 link label: the client's sync into a fresh server, then (the server now full) both restores
    local start rc=0 stored
    rm -rf "$WORK/home"
    cp -a "$WORK/home-template" "$WORK/home"
    start_link_server
    start=$(now)
    in_client env RECIPES_HOME="$WORK/home" RECIPES_SERVER_URL="$BASE" "$RECIPES" sync >"$WORK/sync.out" 2>"$WORK/sync.err" || rc=$?
    RESULTS+=("$1 sync $(elapsed "$start") $rc $(count_recipes)")
    [ "$rc" -eq 0 ] || { echo "$BENCH: \`recipes sync\` exited $rc; stderr:" >&2; tail -5 "$WORK/sync.err" >&2; }
    restore_client "$1"
    restore_curl "$1"
    stop_server
}
restore_client() {
    local start rc=0 synced
    rm -rf "$WORK/restored"
    start=$(now)
    in_client env RECIPES_HOME="$WORK/restored" RECIPES_SERVER_URL="$BASE" "$RECIPES" sync >"$WORK/restore.out" 2>"$WORK/restore.err" || rc=$?
    local seconds
    seconds=$(elapsed "$start")
    synced=$(RECIPES_HOME="$WORK/restored" "$RECIPES" status --json | python3 -c \
        'import json, sys; print(sum(1 for e in json.load(sys.stdin) if e["state"] == "synced"))')
    RESULTS+=("$1 restore $seconds $rc $synced")
    if [ "$rc" -ne 0 ]; then
        # What the run said of the recipes it did not restore, for the notes under the table.
        local skipped first
        skipped=$(cat "$WORK/restore.out" "$WORK/restore.err" | grep -c -i 'skipped' || true)
        first=$(cat "$WORK/restore.out" "$WORK/restore.err" | grep -i -E 'skipped|reachable|offline|failed|waiting' | head -1 || true)
        echo "$1 exit $rc, $skipped recipes skipped; the first: $first" >>"$WORK/notes"
    fi
    rm -rf "$WORK/restored"
}
restore_curl() {
    local start got
    rm -rf "$WORK/curl" && mkdir -p "$WORK/curl/images"
    start=$(now)
    in_client python3 - "$BASE" "$WORK/curl" <<'PY' || true
import json, subprocess, sys
base, out = sys.argv[1], sys.argv[2]
since, page, urls = 0, 0, []
while True:
    path = f"{out}/page-{page}.json"
    subprocess.run(["curl", "-sf", "-o", path, f"{base}/v1/changes?since={since}&limit=100"], check=True)
    body = json.load(open(path))
    urls += [c["recipe"]["image"] for c in body["changes"] if c.get("recipe", {}).get("image")]
    since, page = body["next"], page + 1
    if not body["more"]:
        break
with open(f"{out}/images.cfg", "w") as cfg:
    cfg.write("next\n".join(f'url = "{u}"\noutput = "{out}/images/{u.rsplit("/", 1)[1]}.png"\n' for u in urls))
subprocess.run(["curl", "-sf", "--no-progress-meter", "--parallel", "--parallel-max", "4", "-K", f"{out}/images.cfg"], check=True)
PY
    got=$(find "$WORK/curl/images" -name '*.png' | wc -l)
    RESULTS+=("$1 curl-restore $(elapsed "$start") 0 $got")
    rm -rf "$WORK/curl"
}
sync_curl() { # $1 link label, $2 one (HEAD, image PUT, recipe PUT per recipe, in one config) or two (images, then recipes)
    local start
    start_link_server
    PAYLOAD=$(write_curl_configs)
    : >"$WORK/codes"
    start=$(now)
    if [ "$2" = one ]; then
        in_client curl -s --no-progress-meter --parallel --parallel-max 4 -K "$WORK/interleaved.cfg" >>"$WORK/codes" || true
    else
        in_client curl -s --no-progress-meter --parallel --parallel-max 4 -K "$WORK/images.cfg" >>"$WORK/codes" || true
        in_client curl -s --no-progress-meter --parallel --parallel-max 4 -K "$WORK/recipes.cfg" >>"$WORK/codes" || true
    fi
    RESULTS+=("$1 curl-$2 $(elapsed "$start") $(grep -c '^422 PUT$' "$WORK/codes" || true) $(count_recipes)")
    stop_server
    rm -rf "$WORK/json"
}

# The link itself: the median TCP connect time of 9 connections (one round trip each) and a 16 MiB image sent each
# way (bytes / seconds of the transfer, as curl measures it).
check_link() { # $1 link label
    local big sha connects up down
    start_link_server
    big="$WORK/big.png"
    python3 -c 'import os, sys; open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + os.urandom(16 * 1024 * 1024 - 8))' "$big"
    sha=$(sha256sum "$big" | cut -d' ' -f1)
    connects=$(for _ in $(seq 9); do in_client curl -s -o /dev/null -w '%{time_connect}\n' "$BASE/v1/health"; done | sort -n | sed -n 5p)
    up=$(in_client curl -s -o /dev/null -w '%{speed_upload}' -T "$big" -H 'Content-Type: image/png' "$BASE/v1/images/$sha")
    down=$(in_client curl -s -o /dev/null -w '%{speed_download}' "$BASE/v1/images/$sha")
    LINK_CHECKS+=("$1 $connects $up $down")
    stop_server
    rm -f "$big"
}

# An image of 20 MiB whose first upload the server cuts at 80% (`reset after=16MiB`: it keeps what it read as the
# partial, as a real connection loss does); the run's retry sends the rest. Against a server with resumable-images
# the retry asks what the server kept and PATCHes the rest; against one without it, the retry PUTs the whole image
# again. From the server's request log: the bytes it received for the image after the cut request, against the
# image's size, are what the retry sent again.
CUT_MIB=20
cut_resume() { # $1 link label, $2 resumable (all features) or whole (a server without resumable-images)
    local start rc=0 features=all seconds received
    [ "$2" = whole ] && features=images-missing,recipes-batch
    rm -rf "$WORK/data" "$WORK/server.out" "$WORK/cut-home" "$WORK/requests.jsonl"
    ip netns exec "$NS_SERVER" "$SERVER" --data "$WORK/data" --host "$SERVER_ADDR" --port "$PORT" --features "$features" \
        --request-log "$WORK/requests.jsonl" --fault "PUT /v1/images/*: reset after=$((CUT_MIB * 4 / 5))MiB first=1" \
        >"$WORK/server.out" 2>"$WORK/server.err" &
    SERVER_PID=$!
    BASE="http://$SERVER_ADDR:$PORT"
    for _ in $(seq 200); do grep -q '^listening on ' "$WORK/server.out" 2>/dev/null && break; sleep 0.05; done
    python3 -c 'import os, sys; open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + os.urandom(int(sys.argv[2]) * 1024 * 1024 - 8))' \
        "$WORK/cut.png" "$CUT_MIB"
    printf 'new Cut\nimage set 1 %s\n' "$WORK/cut.png" | RECIPES_HOME="$WORK/cut-home" "$RECIPES" edit --bail >/dev/null
    start=$(now)
    in_client env RECIPES_HOME="$WORK/cut-home" RECIPES_SERVER_URL="$BASE" "$RECIPES" sync >"$WORK/cut.out" 2>"$WORK/cut.err" || rc=$?
    seconds=$(elapsed "$start")
    stop_server
    # "total retry": every byte received for the image; and those received after the first (cut) request.
    received=$(python3 -c '
import json, sys
sent = [r["bytesReceived"] for r in sorted(map(json.loads, open(sys.argv[1])), key=lambda r: r["start"])
        if r["method"] in ("PUT", "PATCH") and r["path"].startswith("/v1/images/")]
print(sum(sent), sum(sent[1:]))' "$WORK/requests.jsonl")
    CUTS+=("$1 $2 $seconds $rc $received $(stat -c %s "$WORK/cut.png")")
    rm -rf "$WORK/cut-home" "$WORK/cut.png" "$WORK/data"
}

LINK_CHECKS=()
PAYLOADS=()
CUTS=()
for link in $LINKS; do
    delay=${link%%:*}
    rate=${link##*:}
    label="$delay:$rate"
    link_up "$delay" "$rate"
    check_link "$label"
    for _ in $(seq "$RUNS"); do
        sync_client "$label"
        sync_curl "$label" one
        sync_curl "$label" two
    done
    if [ ${#CUTS[@]} -eq 0 ]; then # the first link only (the slowest, as the issue measures it)
        cut_resume "$label" resumable
        cut_resume "$label" whole
    fi
    PAYLOADS+=("$label $PAYLOAD")
    link_down
done

touch "$WORK/notes"
printf '%s\n' "${CUTS[@]}" >"$WORK/cuts"
python3 - "$COUNT" "$KIB" "$RUNS" "$WORK/notes" "$WORK/cuts" "${#LINK_CHECKS[@]}" "${LINK_CHECKS[@]}" "${PAYLOADS[@]}" "${RESULTS[@]}" <<'PY'
import statistics, sys
count, kib, runs, notes, cuts, nlinks = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5],
                                         int(sys.argv[6]))
rest = sys.argv[7:]
checks = [line.split() for line in rest[:nlinks]]
payloads = {line.split()[0]: int(line.split()[1]) for line in rest[nlinks:2 * nlinks]}
runs_by = {}
for line in rest[2 * nlinks:]:
    label, sender, secs, rc, done = line.split()
    runs_by.setdefault((label, sender), []).append((float(secs), int(rc), int(done)))
print("## Sync over a link with delay (network namespaces)")
print()
print("| link (round trip × rate) | measured round trip | measured rate up / down |")
print("| --- | ---: | ---: |")
for label, connect, up, down in checks:
    delay, rate = (float(x) for x in label.split(":"))
    print(f"| {2 * delay:.0f} ms × {rate:.0f} Mbit/s | {float(connect) * 1000:.1f} ms | "
          f"{float(up) * 8 / 1e6:.1f} / {float(down) * 8 / 1e6:.1f} Mbit/s |")
print()
print(f"| link | what | runs | median s | × physical limit | exit, or curl's 422s (each run) | recipes done (each run) |")
print("| --- | --- | ---: | ---: | ---: | --- | --- |")
names = (("sync", "`recipes sync` (upload)"),
         ("curl-one", "curl `--parallel-max 4`: HEAD, image PUT, recipe PUT per recipe, one config"),
         ("curl-two", "curl `--parallel-max 4`: every HEAD and image PUT, then every recipe PUT"),
         ("restore", "`recipes sync` into an empty home (restore)"), ("curl-restore", "curl: changes pages, then images `--parallel-max 4`"))
for label, *_ in checks:
    delay, rate = (float(x) for x in label.split(":"))
    rtt = 2 * delay / 1000
    limit = payloads[label] * 8 / (rate * 1e6) + 3 * rtt
    link = f"{2 * delay:.0f} ms × {rate:.0f} Mbit/s"
    for key, name in names:
        rows = runs_by.get((label, key), [])
        if not rows:
            continue
        secs = statistics.median(r[0] for r in rows)
        print(f"| {link} | {name} | {len(rows)} | {secs:.2f} | **{secs / limit:.1f}×** | "
              f"{', '.join(str(r[1]) for r in rows)} | {', '.join(str(r[2]) for r in rows)} |")
    print(f"| {link} | physical limit: {payloads[label]:,} bytes × 8 / {rate:.0f} Mbit/s + 3 × {2 * delay:.0f} ms | | "
          f"**{limit:.2f}** | 1.0× | | |")
print()
print(f"{count} recipes, each with a distinct {kib} KiB PNG image, one ingredient and one step; a release `recipes-server` "
      f"(fsync per image, its default) in one network namespace on its own address, the client (`recipes`, curl) in "
      f"another, joined by `Benchmarks/LinkDelay` (one-way delay = half the round trip each way, a bottleneck at the rate "
      f"with a drop-tail queue of one bandwidth-delay product, at least 64 KiB). A fresh server for each upload; each "
      f"restore reads the server the client's upload just filled. Physical limit = payload bytes (the images and the "
      f"recipe documents) × 8 / rate + 3 round trips (connection, request, answer): no protocol can do much better. "
      f"Measured round trip: median TCP connect time of 9 connections; rate: curl's average over a 16 MiB image each way "
      f"(slow start included). `recipes done` counts recipes on the server after an upload, `synced` recipes after a "
      f"restore, images after curl's downloads. The one-config curl keeps no order between a recipe's requests, so a "
      f"recipe PUT that overtakes its image is refused (422) and that recipe is not stored.")
# Issue 28's targets, on the first (slowest) link.
first = checks[0][0]
delay, rate = (float(x) for x in first.split(":"))
limit = payloads[first] * 8 / (rate * 1e6) + 3 * 2 * delay / 1000
def median(key):
    rows = runs_by.get((first, key), [])
    return statistics.median(r[0] for r in rows) if rows else None, rows
sync, sync_rows = median("sync")
curl, _ = median("curl-two")
restore, restore_rows = median("restore")
verdict = lambda ok: "yes" if ok else "**no**"
print()
print(f"Targets at {2 * delay:.0f} ms × {rate:.0f} Mbit/s:")
print()
print("| target | measured | met |")
print("| --- | ---: | :---: |")
if sync:
    print(f"| sync ≤ 1.5× the physical limit | {sync / limit:.2f}× | {verdict(sync / limit <= 1.5)} |")
if sync and curl:
    print(f"| sync ≥ 3× faster than curl's four connections (every image, then every recipe) | {curl / sync:.1f}× | "
          f"{verdict(curl / sync >= 3)} |")
if restore:
    whole = all(r[1] == 0 and r[2] == count for r in restore_rows)
    print(f"| restore ≤ 1.5× the physical limit, exit 0, every recipe restored | {restore / limit:.2f}×, "
          f"{'every run' if whole else 'not every run'} | {verdict(restore / limit <= 1.5 and whole)} |")
cut_rows = [line.split() for line in open(cuts) if line.strip()]
by_mode = {row[1]: row for row in cut_rows}
if "resumable" in by_mode:
    _, _, secs, rc, received, retry, size = by_mode["resumable"]
    again = int(retry) / int(size)
    print(f"| a {int(size) / 2**20:.0f} MiB image cut at 80%: the retry sends ≤ 25% of it again | {again:.0%} "
          f"({int(retry) / 2**20:.1f} MiB) | {verdict(again <= 0.25 and rc == '0')} |")
if cut_rows:
    print()
    print(f"The cut image: one recipe with a {int(cut_rows[0][6]) / 2**20:.0f} MiB image; the server resets the "
          f"first image upload after 80% of it, keeping what it read as the partial; the run's retry sends the rest.")
    print()
    print("| server | sync s | exit | bytes the server received for the image | of them, by the retry | the retry against the image |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for mode, name in (("resumable", "with resumable-images: HEAD, then PATCH of the rest"),
                       ("whole", "without it: the whole image PUT again")):
        if mode in by_mode:
            _, _, secs, rc, received, retry, size = by_mode[mode]
            print(f"| {name} | {float(secs):.2f} | {rc} | {int(received):,} | {int(retry):,} | "
                  f"{int(retry) / int(size):.0%} |")
lines = [line.rstrip() for line in open(notes) if line.strip()]
if lines:
    print()
    print("Restores that did not exit 0 (one line per run):")
    print()
    for line in lines:
        print(f"- `{line[:300]}`")
PY
