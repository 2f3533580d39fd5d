#!/usr/bin/env bash
# Sync memory: peak RSS of `recipes sync` uploading 1,000 and 10,000 dirty recipes (1 KiB images, so that the run
# stays short) to a release `recipes-server --no-fsync`, a fresh server each. Targets: ≤ 64 MB, 10,000/1,000 ≤ 1.3.
# Prints one markdown section on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
SMALL="${SMALL:-1000}"
LARGE="${LARGE:-10000}"

BENCH=bench/52
. bench/lib/sync-common.sh


# Distinct 1 KiB PNG images and, per size, the REPL lines for that many recipes (new, one ingredient, image set).
python3 - "$WORK" "$SMALL" "$LARGE" <<'PY'
import os, sys
work, sizes = sys.argv[1], [int(n) for n in sys.argv[2:]]
os.makedirs(f"{work}/img")
magic = b"\x89PNG\r\n\x1a\n"
base = os.urandom(1024)
for i in range(1, max(sizes) + 1):
    open(f"{work}/img/{i}.png", "wb").write(magic + i.to_bytes(8, "big") + base[16:])
for n in sizes:
    with open(f"{work}/commands-{n}", "w") as commands:
        for i in range(1, n + 1):
            commands.write(f"new Recipe {i}\ningredient add {i} \"{i} g flour\"\nimage set {i} {work}/img/{i}.png\n")
PY

RESULTS=()
measure() { # $1 = number of dirty recipes
    local n=$1 rc=0 start end stored
    RECIPES_HOME="$WORK/home-$n" "$RECIPES" edit --bail <"$WORK/commands-$n" >/dev/null
    start_server --no-fsync
    start=$(date +%s.%N)
    RECIPES_HOME="$WORK/home-$n" RECIPES_SERVER_URL="$BASE" \
        /usr/bin/time -f %M -o "$WORK/rss" "$RECIPES" sync >/dev/null 2>"$WORK/sync.err" || rc=$?
    end=$(date +%s.%N)
    stored=$(stored_recipes)
    stop_server
    if [ "$rc" -ne 0 ] || [ "$stored" -ne "$n" ]; then
        echo "bench/52: \`recipes sync\` of $n recipes exited $rc and the server holds $stored of them; stderr:" >&2
        tail -20 "$WORK/sync.err" >&2
        exit 1
    fi
    RESULTS+=("$n $(tail -1 "$WORK/rss") $(echo "$end - $start" | bc -l)")
    rm -rf "$WORK/home-$n"
}
measure "$SMALL"
measure "$LARGE"

python3 - "${RESULTS[@]}" <<'PY'
import sys
rows = [line.split() for line in sys.argv[1:]]
(small, small_kib, small_s), (large, large_kib, large_s) = [(int(n), int(k), float(s)) for n, k, s in rows]
limit, ratio_limit = 64.0, 1.3
small_mb, large_mb = small_kib / 1024, large_kib / 1024
ratio = large_mb / small_mb
met = lambda ok: "yes" if ok else "**no**"
print("## Sync: peak memory of `recipes sync`")
print()
print(f"| dirty recipes | exit | peak RSS | seconds | recipes/s | target ≤ {limit:.0f} MB |")
print("| ---: | ---: | ---: | ---: | ---: | :---: |")
for n, mb, s in ((small, small_mb, small_s), (large, large_mb, large_s)):
    print(f"| {n:,} | 0 | **{mb:.1f} MB** | {s:.1f} | {n / s:,.0f} | {met(mb <= limit)} |")
print(f"| ratio {large:,} / {small:,} | | **{ratio:.2f}** | | | ratio ≤ {ratio_limit}: {met(ratio <= ratio_limit)} |")
print()
print(f"Compared: peak RSS (`/usr/bin/time -f %M`) of `recipes sync` (default --jobs 4) uploading {small:,} and then "
      f"{large:,} dirty recipes, each with a distinct 1 KiB PNG image, to a fresh release `recipes-server --no-fsync` on "
      f"127.0.0.1; both exited 0 with every recipe on the server; targets ≤ {limit:.0f} MB and ratio ≤ {ratio_limit}.")
PY
