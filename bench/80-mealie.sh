#!/usr/bin/env bash
# Sync with Mealie (issue 26): the requests per recipe for a first upload with an image and for a one-field edit,
# counted in the Mealie's own access log, and the seconds for 100 recipes with images by `recipes sync` against the
# same requests sent by curl, 4 at a time (the ratio: Mealie's own speed dominates the absolute figure).
#
# Starts its own Mealie with ../shared/peers/mealie/mealie-up.sh (or $RECIPES_MEALIE_PEER) and stops it at the end.
# BIN names the `recipes` binary (default: the release build, built here; BIN=.build/debug/recipes for the debug one).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-.build}
if [[ -z "${BIN:-}" ]]; then
  swift build -c release --scratch-path "$BUILD" --product recipes >/dev/null 2>&1
  BIN="$PWD/$BUILD/release/recipes"
fi
PEER=${RECIPES_MEALIE_PEER:-}
for candidate in "$PEER" ../shared/peers/mealie /work/shared/peers/mealie; do
  if [[ -n "$candidate" && -x "$candidate/mealie-up.sh" ]]; then PEER="$candidate"; break; fi
done
work=$(mktemp -d /tmp/recipes-bench-mealie.XXXXXX)
eval "$("$PEER/mealie-up.sh" 2>"$work/mealie-up.log")"
trap '"$PEER/mealie-up.sh" stop "$MEALIE_PIDFILE" >/dev/null 2>&1 || true; [[ "$MEALIE_DATA" == /tmp/mealie-data.* ]] && rm -rf "$MEALIE_DATA"; rm -rf "$work"' EXIT

python3 - "$BIN" "$work" "$MEALIE_URL" "$MEALIE_TOKEN" "$MEALIE_LOG" "$PWD/Tests/MealieAPITests/Fixtures/tiny.png" <<'PY'
import concurrent.futures, io, json, os, re, subprocess, sys, time, uuid, zipfile
binary, work, url, token, log, png = sys.argv[1:7]
env = {"PATH": "/usr/bin:/bin", "HOME": work, "LANG": "C.UTF-8"}

def recipes(home, *args, stdin=None):
    return subprocess.run([binary, "--home", home, *args], input=stdin, capture_output=True, text=True, env=env, check=True).stdout

def requests_logged():
    with open(log, errors="replace") as f:
        return [m.group(1) for m in re.finditer(r'"([A-Z]+ \S+) HTTP/1\.1"', f.read())]

def counted(action):
    before = len(requests_logged())
    action()
    time.sleep(0.5)  # the log is written as the answers go
    return requests_logged()[before:]

def home_for(name):
    home = os.path.join(work, name)
    recipes(home, "config", "set", "server.kind", "mealie")
    recipes(home, "config", "set", "server.url", url)
    recipes(home, "config", "set", "server.token", "-", stdin=token + "\n")
    return home

def show(lines):
    return "; ".join(sorted(set(re.sub(r"[0-9a-f-]{36}|[a-z0-9-]+-stew|\?.*", "…", l) + f" ×{lines.count(l)}" for l in lines)))

# Requests per recipe: one recipe with an ingredient, a step, a tag and a picture; then a one-field edit.
home = home_for("per-recipe")
recipes(home, "sync")
recipes(home, "new", "Lentil stew")
recipes(home, "ingredient", "add", "1", "250 g red lentils")
recipes(home, "step", "add", "1", "Simmer 25 minutes.")
recipes(home, "keywords", "1", "Soup")
recipes(home, "image", "set", "1", png)
first = counted(lambda: recipes(home, "sync", "1"))
recipes(home, "description", "1", "Red and warm.")
edit = counted(lambda: recipes(home, "sync", "1"))
idle = counted(lambda: recipes(home, "sync"))
run_overhead = ["GET /api/app/about", "GET /api/groups/self"]
print("## Sync with Mealie (bench/80-mealie.sh)\n")
print("Requests counted in the Mealie's access log; every run adds 2 (`GET /api/app/about`, `GET /api/groups/self`: the")
print("identity, once per run). docs/mealie.md says why each is there.\n")
print("| what | requests | of which for the recipe | the requests |")
print("| --- | --- | --- | --- |")
print(f"| first upload with an image and a tag (`recipes sync 1`) | {len(first)} | {len(first) - 2} | {show(first)} |")
print(f"| one-field edit (`recipes sync 1`) | {len(edit)} | {len(edit) - 2} | {show(edit)} |")
print(f"| `recipes sync` with nothing new (a changes page, the count) | {len(idle)} | - | {show(idle)} |")

# 100 recipes with images: `recipes sync` (4 jobs; its imports one at a time, as Mealie needs) against curl.
home = home_for("hundred")
recipes(home, "sync")
script = []
for i in range(1, 101):
    script += [f"new Bench soup {i}", f"ingredient add {i} {i} g lentils", f"step add {i} \"Simmer.\"", f"image set {i} {png}"]
recipes(home, "edit", stdin="\n".join(script) + "\n")
start = time.perf_counter()
recipes(home, "sync", "--push-only", "--jobs", "4")
ours = time.perf_counter() - start

# The same requests by curl: per recipe the zip import, its read-back, the image upload, the served picture, the
# read after it; imports one at a time (Mealie writes every import to one temporary file), the rest 4 at a time.
def archive(i, rid):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as z:
        z.writestr("recipe.json", json.dumps({"id": rid, "name": f"Curl soup {i}", "recipeIngredient": [{"note": f"{i} g lentils", "referenceId": str(uuid.uuid4())}],
                                              "recipeInstructions": [{"id": str(uuid.uuid4()), "text": "Simmer.", "ingredientReferences": []}]}))
    path = os.path.join(work, f"curl-{i}.zip")
    open(path, "wb").write(data.getvalue())
    return path

def curl(*args):
    return subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", f"Authorization: Bearer {token}", *args],
                          capture_output=True, text=True, check=True).stdout

ids = [str(uuid.uuid4()) for _ in range(100)]
archives = [archive(i, rid) for i, rid in enumerate(ids, 1)]
start = time.perf_counter()
for path, rid in zip(archives, ids):
    curl("-F", f"archive=@{path};type=application/zip", f"{url}/api/recipes/create/zip")
def rest(i, rid):
    curl(f"{url}/api/recipes/{rid}")
    curl("-X", "PUT", "-F", f"image=@{png};type=image/png", "-F", "extension=png", f"{url}/api/recipes/curl-soup-{i}/image")
    curl(f"{url}/api/media/recipes/{rid}/images/original.webp")
    curl(f"{url}/api/recipes/{rid}")
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    list(pool.map(rest, range(1, 101), ids))
theirs = time.perf_counter() - start
print(f"\n100 recipes with images, first upload: `recipes sync --push-only --jobs 4` {ours:.1f} s; the same requests by curl "
      f"(imports one at a time, the rest 4 at a time) {theirs:.1f} s; ratio {ours / theirs:.2f} (binary: {binary}).\n")
PY
