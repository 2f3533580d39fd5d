#!/usr/bin/env bash
# Restore: `recipes sync` into an empty home pulling 1,000 recipes with distinct 256 KiB images from a release
# `recipes-server`, side by side with our previous client (`recipes` built from PREVIOUS_REF, see
# bench/lib/sync-common.sh) making the same restore, a regression guard against ourselves; and, as context, curl
# fetching the same changes pages (one after another, as each names the next) and then the same images with
# `curl --parallel --parallel-max 4`, written to files. The order within a round rotates (RUNS a multiple of 3 gives
# each fetcher each place equally often); medians, the throughput ratios as the median of each round's own ratio, and
# CPU (user + system) per recipe for each fetcher. Then peak RSS of our restore of 1,000 and 10,000 recipes (64 KiB
# images, so that the larger run stays short). Targets: ours/previous throughput ≥ 0.9 (ours/curl, ≥ 0.9 before
# issue 28, is context, not a target); peak RSS ≤ 64 MB and 10,000/1,000 ≤ 1.3. Prints one markdown section on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${COUNT:-1000}"
RUNS="${RUNS:-6}"
SMALL="${SMALL:-1000}"
LARGE="${LARGE:-10000}"
TARGET=0.9       # ours/previous throughput
CURL_CONTEXT=0.9 # ours/curl throughput: the retired guard, reported as context

BENCH=bench/54
. bench/lib/sync-common.sh
build_previous_client

# $1 recipes with distinct images of $2 KiB in home $3, uploaded by `recipes sync` to the running server.
populate() {
    local n=$1 kib=$2 home=$3 rc=0
    python3 - "$WORK" "$n" "$kib" <<'PY'
import os, sys
work, count, kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(f"{work}/img", exist_ok=True)
magic = b"\x89PNG\r\n\x1a\n"
base = os.urandom(kib * 1024)
with open(f"{work}/commands", "w") as commands:
    for i in range(1, count + 1):
        path = f"{work}/img/{i}.png"
        open(path, "wb").write(magic + i.to_bytes(8, "big") + base[16:])
        commands.write(f"new Recipe {i}\ningredient add {i} \"{i} g flour\"\nstep add {i} \"Bake {i} minutes.\"\n"
                       f"image set {i} {path}\n")
PY
    RECIPES_HOME="$home" "$RECIPES" edit --bail <"$WORK/commands" >/dev/null
    RECIPES_HOME="$home" RECIPES_SERVER_URL="$BASE" "$RECIPES" sync >/dev/null 2>"$WORK/sync.err" || rc=$?
    rm -rf "$WORK/img" "$WORK/commands" "$home"
    if [ "$rc" -ne 0 ]; then
        echo "$BENCH: uploading $n recipes exited $rc; stderr:" >&2
        tail -20 "$WORK/sync.err" >&2
        exit 1
    fi
}

TIME_FORMAT="%M %U %S" # peak RSS KiB, user s, system s
RESULTS=()             # one line per run: sender seconds peak-RSS-KiB CPU-seconds
restore_client() { # $1 = expected recipes; appends to RESULTS with label $2; $3 = the client (default ours)
    local n=$1 label=$2 binary=${3:-$RECIPES} start end rc=0 rows images
    rm -rf "$WORK/restored"
    start=$(date +%s.%N)
    RECIPES_HOME="$WORK/restored" RECIPES_SERVER_URL="$BASE" \
        /usr/bin/time -f "$TIME_FORMAT" -o "$WORK/rss" "$binary" sync >/dev/null 2>"$WORK/sync.err" || rc=$?
    end=$(date +%s.%N)
    rows=$(RECIPES_HOME="$WORK/restored" "$binary" status --json | python3 -c \
        'import json, sys; print(sum(1 for e in json.load(sys.stdin) if e["state"] == "synced"))')
    images=$(find "$WORK/restored/images" -name '*.png' | wc -l)
    if [ "$rc" -ne 0 ] || [ "$rows" -ne "$n" ] || [ "$images" -ne "$n" ]; then
        echo "$BENCH: the restore ($label) exited $rc with $rows synced recipes and $images images of $n; stderr:" >&2
        tail -20 "$WORK/sync.err" >&2
        exit 1
    fi
    RESULTS+=("$label $(echo "$end - $start" | bc -l) $(awk '{ printf "%d %.2f", $1, $2 + $3 }' "$WORK/rss")")
    rm -rf "$WORK/restored"
}
restore_curl() { # the changes pages one after another, then every image in parallel, all to files
    local start end got
    rm -rf "$WORK/curl" && mkdir -p "$WORK/curl/images"
    start=$(date +%s.%N)
    /usr/bin/time -f "$TIME_FORMAT" -o "$WORK/rss" python3 - "$BASE" "$WORK/curl" <<'PY'
import json, subprocess, sys
base, out = sys.argv[1], sys.argv[2]
since, page, urls = 0, 0, []
while True:
    path = f"{out}/page-{page}.json"
    subprocess.run(["curl", "-sf", "-o", path, f"{base}/v1/changes?since={since}&limit=100"], check=True)
    body = json.load(open(path))
    for change in body["changes"]:
        if change.get("recipe", {}).get("image"):
            urls.append(change["recipe"]["image"])
    since, page = body["next"], page + 1
    if not body["more"]:
        break
with open(f"{out}/images.cfg", "w") as cfg:
    cfg.write("next\n".join(f'url = "{u}"\noutput = "{out}/images/{u.rsplit("/", 1)[1]}.png"\n' for u in urls))
subprocess.run(["curl", "-sf", "--no-progress-meter", "--parallel", "--parallel-max", "4", "-K", f"{out}/images.cfg"], check=True)
PY
    end=$(date +%s.%N)
    got=$(find "$WORK/curl/images" -name '*.png' | wc -l)
    if [ "$got" -ne "$COUNT" ]; then
        echo "$BENCH: curl fetched $got of $COUNT images" >&2
        exit 1
    fi
    RESULTS+=("curl $(echo "$end - $start" | bc -l) $(awk '{ printf "%d %.2f", $1, $2 + $3 }' "$WORK/rss")")
    rm -rf "$WORK/curl"
}

start_server --no-fsync
populate "$COUNT" 256 "$WORK/origin"
# The order within a round rotates (round r starts at fetcher r of the three), so over any 3 rounds each fetcher
# takes each place once and the machine's drift from run to run is not handed to the same fetcher every round.
FETCHERS=(client previous curl)
restore_with() {
    case $1 in
        client) restore_client "$COUNT" client ;;
        previous) restore_client "$COUNT" previous "$PREVIOUS_RECIPES" ;;
        curl) restore_curl ;;
    esac
}
for round in $(seq "$RUNS"); do
    for place in "${!FETCHERS[@]}"; do
        restore_with "${FETCHERS[$(((round - 1 + place) % ${#FETCHERS[@]}))]}"
    done
done
stop_server

for n in "$SMALL" "$LARGE"; do
    start_server --no-fsync
    populate "$n" 64 "$WORK/origin-$n"
    restore_client "$n" "memory-$n"
    stop_server
done

python3 - "$COUNT" "$TARGET" "$CURL_CONTEXT" "$PREVIOUS_REF" "$SMALL" "$LARGE" "${RESULTS[@]}" <<'PY'
import statistics, sys
count, target, context, previous_ref = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
small, large = int(sys.argv[5]), int(sys.argv[6])
runs = {}
for line in sys.argv[7:]:
    label, secs, rss, cpu = line.split()
    runs.setdefault(label, []).append((float(secs), int(rss), float(cpu)))
met = lambda ok: "yes" if ok else "**no**"
def ratios(key): # each round's own throughput ratio ours/key: key's time / our time
    return [other[0] / ours[0] for other, ours in zip(runs[key], runs["client"])]
print("## Two-way sync: restore into an empty home")
print()
print("| fetcher | runs | median s | recipes/s | image MiB/s | CPU s (median) | CPU ms per recipe | peak RSS (median) "
      "| ours/this (throughput) | target |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |")
for key, name in (("client", "`recipes sync` into an empty home (default --jobs 4)"),
                  ("previous", f"previous client (`{previous_ref}`), `recipes sync` into an empty home"),
                  ("curl", "curl: the changes pages in turn, then the images with `--parallel --parallel-max 4`")):
    rows = runs[key]
    secs = statistics.median(r[0] for r in rows)
    rss = statistics.median(r[1] for r in rows) / 1024
    cpu = statistics.median(r[2] for r in rows)
    if key == "client":
        ratio, goal = "", ""
    else:
        rounds = ratios(key)
        r = statistics.median(rounds)
        ratio = f"**{r:.2f}** ({min(rounds):.2f}–{max(rounds):.2f})"
        if key == "previous":
            goal = f"≥ {target}: {met(r >= target)}"
        else:
            goal = f"context: ≥ {context} {'reached' if r >= context else 'not reached'}"
    print(f"| {name} | {len(rows)} | {secs:.2f} | {count / secs:,.0f} | {count * 0.25 / secs:.1f} | {cpu:.2f} "
          f"| {cpu / count * 1000:.2f} | {rss:.1f} MB | {ratio} | {goal} |")
print()
previous = statistics.median(ratios("previous"))
print(f"Target: ours/previous throughput ≥ {target}: **{previous:.2f}**, {'met' if previous >= target else '**not met**'}. "
      f"Ours/curl (the retired ≥ {context} guard) is context, not a target.")
print()
print("Per round, seconds (ours / previous / curl): "
      + ", ".join(f"{c[0]:.2f} / {p[0]:.2f} / {k[0]:.2f}" for c, p, k in zip(runs["client"], runs["previous"], runs["curl"])) + ".")
print()
(small_s, small_kib, _), = runs[f"memory-{small}"]
(large_s, large_kib, _), = runs[f"memory-{large}"]
ratio = large_kib / small_kib
print(f"| recipes restored (64 KiB images) | seconds | recipes/s | peak RSS | target ≤ 64 MB |")
print("| ---: | ---: | ---: | ---: | :---: |")
for n, s, kib in ((small, small_s, small_kib), (large, large_s, large_kib)):
    print(f"| {n:,} | {s:.1f} | {n / s:,.0f} | **{kib / 1024:.1f} MB** | {met(kib / 1024 <= 64)} |")
print(f"| ratio {large:,} / {small:,} | | | **{ratio:.2f}** | ratio ≤ 1.3: {met(ratio <= 1.3)} |")
print()
print(f"Compared: a release `recipes-server --no-fsync` on 127.0.0.1 holding {count:,} recipes with distinct 256 KiB PNG "
      f"images (uploaded by `recipes sync` from another home); `recipes sync` into an empty home (exit 0, every recipe "
      f"`synced`, every image in `images/`), the same restore by our previous client (`recipes` built with the same flags "
      f"from `{previous_ref}`, checked the same way), and curl reading the same `GET /v1/changes` pages one after another "
      f"and then the same images with `curl --parallel --parallel-max 4 -K config`, written to files; the order within a "
      f"round rotates; ours/this = the median (and range) of each round's time of this fetcher / time of ours; CPU = user + "
      f"system of the fetching process(es), per recipe = that / {count:,}; target: ours/previous throughput ≥ {target}; "
      f"ours/curl ≥ {context} is context, not a target. Peak RSS from `/usr/bin/time`; the memory rows restore {small:,} "
      f"and {large:,} recipes with 64 KiB images (our client) from a fresh server each.")
PY
