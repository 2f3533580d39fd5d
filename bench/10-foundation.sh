#!/usr/bin/env bash
# Foundation benchmarks (issue 2): status --json over 10,000 recipes, 10,000 piped REPL commands, process start.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-.build}
swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product recipes >/dev/null 2>&1
static_bin="$PWD/$BUILD/release/recipes"
# The same binary linked against the shared Swift runtime, to weigh --static-swift-stdlib.
swift build -c release --scratch-path "$BUILD-dynamic" --product recipes >/dev/null 2>&1
dynamic_bin="$PWD/$BUILD-dynamic/release/recipes"
work=$(mktemp -d /tmp/recipes-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 - "$static_bin" "$dynamic_bin" "$work" <<'PY'
import os, statistics, subprocess, sys, time
static_bin, dynamic_bin, work = sys.argv[1:4]
env = dict(os.environ, LANG="C.UTF-8")

def timed(cmd, runs, stdin=None):
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), min(samples)

# 10,000 REPL commands piped into one `recipes edit`: 2,500 recipes created, each edited three times.
home = os.path.join(work, "home")
lines = []
for i in range(1, 2501):
    lines += [f"new Recipe {i}", f"yield {i} \"{i % 8 + 1} servings\"", f"ingredient add {i} {i} g flour",
              f"step add {i} \"Mix and bake.\""]
script = os.path.join(work, "commands.txt")
open(script, "w").write("\n".join(lines) + "\n")
start = time.perf_counter()
with open(script) as f:
    subprocess.run([static_bin, "edit", "--home", home], stdin=f, stdout=subprocess.DEVNULL, check=True, env=env)
repl_seconds = time.perf_counter() - start
repl_rate = len(lines) / repl_seconds

# Grow the home to 10,000 recipes for status.
more = "\n".join(f"new Recipe {i}" for i in range(2501, 10001)) + "\n"
subprocess.run([static_bin, "edit", "--home", home], input=more.encode(), stdout=subprocess.DEVNULL, check=True, env=env)
db = os.path.join(home, "recipes.sqlite3")
status_med, status_min = timed([static_bin, "status", "--json", "--home", home], 15)
sqlite_med, sqlite_min = timed(["sqlite3", db, "SELECT count(*) FROM recipes"], 15)
sqlite_all_med, _ = timed(["sqlite3", "-json", db, "SELECT * FROM recipes"], 15)

empty = os.path.join(work, "empty")
subprocess.run([static_bin, "status", "--home", empty], stdout=subprocess.DEVNULL, check=True, env=env)
start_static, _ = timed([static_bin, "status", "--home", empty], 40)
start_dynamic, _ = timed([dynamic_bin, "status", "--home", empty], 40)
version_static, _ = timed([static_bin, "--version"], 40)
true_med, _ = timed(["/bin/true"], 40)
sqlite_mem, _ = timed(["sqlite3", ":memory:", "select 1"], 40)

print("## Foundation: store, REPL and start-up (issue 2)")
print()
print("| measurement | figure |")
print("| --- | --- |")
print(f"| 10,000 REPL commands piped into one `recipes edit` (2,500 × new/yield/ingredient/step, synchronous=FULL) | {repl_seconds:.2f} s, **{repl_rate:,.0f} commands/s** |")
print(f"| `recipes status --json`, 10,000 recipes (median of 15) | **{status_med:.1f} ms** (min {status_min:.1f}) |")
print(f"| `sqlite3 recipes.sqlite3 'SELECT count(*) FROM recipes'` (same rows) | {sqlite_med:.1f} ms |")
print(f"| `sqlite3 -json recipes.sqlite3 'SELECT * FROM recipes'` (same rows, all columns as JSON) | {sqlite_all_med:.1f} ms |")
print(f"| start-up: `recipes status`, empty home, `--static-swift-stdlib` (median of 40) | **{start_static:.1f} ms** |")
print(f"| start-up: same, shared Swift runtime | {start_dynamic:.1f} ms |")
print(f"| start-up: `recipes --version` (no database) | {version_static:.1f} ms |")
print(f"| `/bin/true` | {true_med:.1f} ms |")
print(f"| `sqlite3 :memory: 'select 1'` | {sqlite_mem:.1f} ms |")
print()
print("Wall-clock medians from a Python harness (`subprocess.run`, which adds its own fork/exec cost to every row alike); release builds.")
PY
