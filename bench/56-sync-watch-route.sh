#!/usr/bin/env bash
# `recipes sync --watch` and the network: route back → sync started. A release watcher runs inside a private network
# namespace joined to this one by a veth pair; the release `recipes-server --no-fsync` listens on this side. Each of
# 10 rounds takes the namespace's address (its only route to the server) away, waits for the watcher to say it is
# offline, edits the recipe, then gives the address back: the time from just before `ip addr add` to the watcher's
# `{"event":"watch","state":"sync","reason":"network"}` notice (one clock), and the edit is checked on the server.
# Median and worst; target worst ≤ 3 s. Needs root and network namespaces (`ip netns`, veth). Prints one markdown
# section.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-10}"

if [ "$(id -u)" != 0 ] || ! ip netns add "recipes-bench-probe-$$" 2>/dev/null; then
    echo "## Sync: \`recipes sync --watch\`, route back"
    echo
    echo "Not measured on this machine: it needs root and network namespaces (\`ip netns add\` was refused)."
    exit 0
fi
ip netns delete "recipes-bench-probe-$$"

BENCH=bench/56
. bench/lib/sync-common.sh
NS="recipes-bench-$$"
OUT="rbo$$"
IN="rbi$$"
SUBNET="10.$((100 + RANDOM % 100)).$((RANDOM % 250))"
remove_network() { ip link del "$OUT" 2>/dev/null || true; ip netns delete "$NS" 2>/dev/null || true; }
trap 'remove_network; cleanup' EXIT
ip netns add "$NS"
ip link add "$OUT" type veth peer name "$IN"
ip link set "$IN" netns "$NS"
ip addr add "$SUBNET.1/24" dev "$OUT"
ip link set "$OUT" up
ip -n "$NS" link set lo up
ip -n "$NS" link set "$IN" up
ip -n "$NS" addr add "$SUBNET.2/24" dev "$IN"

start_server --no-fsync --host "$SUBNET.1" --request-log "$WORK/requests.jsonl"

python3 - "$RECIPES" "$WORK" "$BASE" "$ROUNDS" "$NS" "$IN" "$SUBNET.2/24" <<'PY'
import json, queue, signal, statistics, subprocess, sys, threading, time
from datetime import datetime, timezone
recipes, work, base, rounds, ns, inside, address = sys.argv[1:8]
rounds = int(rounds)
env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": work, "LANG": "C.UTF-8", "RECIPES_HOME": f"{work}/home",
       "RECIPES_SERVER_URL": base}

def run(*args, stdin=None):
    done = subprocess.run([recipes, *args], env=env, input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench/56: recipes {' '.join(args)} exited {done.returncode}: {done.stderr[:500]}")
    return done.stdout

def ip(*args):
    subprocess.run(["ip", "-n", ns, *args], check=True)

run("edit", stdin='new "Soup"\n')
watcher = subprocess.Popen(["ip", "netns", "exec", ns, recipes, "sync", "--watch", "--json"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
events = queue.Queue()
threading.Thread(target=lambda: [events.put(json.loads(l)) for l in watcher.stdout], daemon=True).start()
def await_event(predicate, what, timeout=30):
    deadline = time.time() + timeout
    while True:
        try:
            event = events.get(timeout=max(0.01, deadline - time.time()))
        except queue.Empty:
            sys.exit(f"bench/56: {what} did not happen within {timeout} s")
        if predicate(event):
            return event
def stamp(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()
is_watch = lambda state: lambda e: e.get("event") == "watch" and e.get("state") == state
await_event(lambda e: e.get("event") == "summary", "the first pass")

latencies = []
for i in range(rounds):
    ip("addr", "del", address, "dev", inside)
    await_event(is_watch("offline"), "the watcher going offline")
    run("edit", stdin=f'title 1 "Soup {i}"\n')
    await_event(lambda e: e.get("event") == "summary", "the offline pass of the edit")
    back = time.time()
    ip("addr", "add", address, "dev", inside)
    started = await_event(lambda e: is_watch("sync")(e) and e.get("reason") == "network", "the pass after the route's return")
    latencies.append(stamp(started["time"]) - back)
    await_event(lambda e: e.get("event") == "summary" and e.get("done") == 1, "the upload after the route's return")
    time.sleep(0.3)

watcher.send_signal(signal.SIGTERM)
if watcher.wait(timeout=30) != 0:
    sys.exit(f"bench/56: the watcher did not exit 0 on SIGTERM: {watcher.stderr.read()[:500]}")
ms = lambda s: f"{s * 1000:.0f} ms"
print("## Sync: `recipes sync --watch`, route back")
print()
print("| measure | runs | median | worst | target | met |")
print("| --- | ---: | ---: | ---: | --- | :---: |")
print(f"| route back (`ip addr add`) → sync started | {len(latencies)} | {ms(statistics.median(latencies))} "
      f"| {ms(max(latencies))} | worst ≤ 3 s | {'yes' if max(latencies) <= 3 else '**no**'} |")
print()
print("Compared: a release `recipes sync --watch --json` inside a network namespace joined by a veth pair to a release "
      "`recipes-server --no-fsync`; each round removes the namespace's address (its only route to the server), waits "
      "for the watcher's `offline` notice, edits the recipe, then adds the address back; from just before `ip addr add` "
      "to the watcher's `sync` notice with reason `network` (the kernel's notices, a 0.5 s debounce, one reachability "
      "probe). The edit's upload is checked each round.")
PY
