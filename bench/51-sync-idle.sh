#!/usr/bin/env bash
# Idle background sync: `recipes sync --background` (what cron runs every few minutes) on a home with 10,000
# recipes that are all on the server: with the server running and nothing new in its changes feed (two-way sync
# asks it once), and with the server stopped (an idle run must not need it): 30 runs each, median and worst wall
# time, beside `recipes status 1` and `/bin/true`. Targets: ≤ 25 ms reachable, ≤ 15 ms stopped. Prints one markdown
# section.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${COUNT:-10000}"
RUNS="${RUNS:-30}"

BENCH=bench/51
. bench/lib/sync-common.sh

start_server --no-fsync
export RECIPES_HOME="$WORK/home" RECIPES_SERVER_URL="$BASE"

# COUNT recipes, each with one ingredient and a distinct 1 KiB PNG image, synced once for real.
python3 - "$WORK" "$COUNT" <<'PY'
import os, sys
work, count = sys.argv[1], int(sys.argv[2])
os.makedirs(f"{work}/img")
magic = b"\x89PNG\r\n\x1a\n"
base = os.urandom(1024)
with open(f"{work}/commands", "w") as commands:
    for i in range(1, count + 1):
        path = f"{work}/img/{i}.png"
        open(path, "wb").write(magic + i.to_bytes(8, "big") + base[16:])
        commands.write(f"new Recipe {i}\ningredient add {i} \"{i} g flour\"\nimage set {i} {path}\n")
PY
"$RECIPES" edit --bail <"$WORK/commands" >/dev/null
rc=0
"$RECIPES" sync >/dev/null 2>"$WORK/sync.err" || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "bench/51: the initial \`recipes sync\` of $COUNT recipes exited $rc; stderr:" >&2
    tail -20 "$WORK/sync.err" >&2
    exit 1
fi
stored=$(stored_recipes)
if [ "$stored" -ne "$COUNT" ]; then
    echo "bench/51: after \`recipes sync\` the server holds $stored of $COUNT recipes" >&2
    exit 1
fi

measure() { # $1 = "reachable" or "stopped"
python3 - "$RECIPES" "$COUNT" "$RUNS" "$1" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
recipes, count, runs, server = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

status = json.loads(subprocess.run([recipes, "status", "--json"], capture_output=True, check=True).stdout)
states = {}
for entry in status:
    states[entry["state"]] = states.get(entry["state"], 0) + 1
if len(status) != count or states.get("synced", 0) != count:
    sys.exit(f"bench/51: after the first sync `recipes status` shows {len(status)} recipes: {states}")

# An idle run exits 0 when the server says nothing is new, 75 (quietly) when it cannot be asked.
idle_status = 0 if server == "reachable" else 75

def once(cmd, check_idle=False):
    """Wall ms and CPU ms (user + system, from the children's rusage) of one run of cmd."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    expected = idle_status if check_idle else 0
    if done.returncode != expected or (check_idle and (done.stdout or done.stderr)):
        sys.exit(f"bench/51: {' '.join(cmd)} exited {done.returncode}; stdout {done.stdout[:500]!r}; stderr {done.stderr[:500]!r}")
    return elapsed, cpu

empty = os.path.join(os.environ["RECIPES_HOME"] + "-empty")
commands = {"sync": [recipes, "sync", "--background"], "status": [recipes, "status", "1"],
            "empty": [recipes, "status", "--home", empty], "true": ["/bin/true"]}
for name, cmd in commands.items():
    once(cmd, check_idle=(name == "sync")) # warm-up (and the empty home's creation), not counted
samples = {name: [] for name in commands}
for _ in range(runs): # interleaved so that noise falls on every command alike
    for name, cmd in commands.items():
        samples[name].append(once(cmd, check_idle=(name == "sync")))

target = 25.0 if server == "reachable" else 15.0
med = {name: statistics.median(w for w, _ in s) for name, s in samples.items()}
worst = {name: max(w for w, _ in s) for name, s in samples.items()}
cpu = {name: statistics.median(c for _, c in s) for name, s in samples.items()}
met = lambda v: "yes" if v <= target else "**no**"
if server == "reachable":
    print("## Sync: idle background run")
    print()
    print("| command | runs | median wall | worst wall | median CPU | target: median | worst |")
    print("| --- | ---: | ---: | ---: | ---: | :---: | :---: |")
where = ("server running, nothing new in its feed (one `GET /v1/changes`; exit 0" if server == "reachable"
         else "server stopped (exit 75")
print(f"| `recipes sync --background`, {count:,} recipes all synced, {where}, no output) | {runs} "
      f"| **{med['sync']:.1f} ms** | {worst['sync']:.1f} ms | {cpu['sync']:.1f} ms | ≤ {target:.0f} ms: {met(med['sync'])} | {met(worst['sync'])} |")
for name, label in (("status", f"`recipes status 1`, same home"), ("empty", "`recipes status`, empty home (start-up)"),
                    ("true", "`/bin/true`")):
    print(f"| {label} ({server}) | {runs} | {med[name]:.1f} ms | {worst[name]:.1f} ms | {cpu[name]:.1f} ms | | |")
if server == "stopped":
    print()
    print(f"Compared: an idle `recipes sync --background` (nothing due), first with the server running and nothing new "
          f"in its changes feed, then with `RECIPES_SERVER_URL` pointing at the stopped server, each interleaved with "
          f"`recipes status 1` on the same home, `recipes status` on an empty home and `/bin/true`, from a "
          f"Python harness (`time.perf_counter` around `subprocess.run`; CPU = user + system from the children's rusage); "
          f"the home's {count:,} recipes with 1 KiB images were first synced for real to a release "
          f"`recipes-server --no-fsync`; targets ≤ 25 ms wall with the server running, ≤ 15 ms stopped.")
PY
}
measure reachable
stop_server # from here on nothing listens at RECIPES_SERVER_URL
measure stopped
