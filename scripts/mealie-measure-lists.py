#!/usr/bin/env python3
"""The cost of listing a Mealie's recipes at 100, 1,000 and 5,000 recipes (docs/mealie.md, "Deletions"): it fills a
fresh Mealie by zip imports (2 tags, a category, 8 ingredients, 6 steps each) and times, at each size, the count
(perPage=1), every summary in one page (perPage=-1), keyset pages by id of 1,000 and 200, and a changes query with
nothing new; one JSON line per size. About 10 minutes for 5,000.

    set -a; eval "$(../shared/peers/mealie/mealie-up.sh)"; set +a
    /tmp/mealie-venv/bin/python scripts/mealie-measure-lists.py
    ../shared/peers/mealie/mealie-up.sh stop "$MEALIE_PIDFILE"
"""
import io, json, os, statistics, sys, time, uuid, zipfile, urllib.request, urllib.parse
BASE, TOKEN = os.environ["MEALIE_URL"], os.environ["MEALIE_TOKEN"]
def call(method, path, raw=None, ctype=None):
    h = {"Authorization": "Bearer " + TOKEN}
    if ctype: h["Content-Type"] = ctype
    r = urllib.request.Request(BASE + path, data=raw, headers=h, method=method)
    with urllib.request.urlopen(r, timeout=300) as a:
        return a.status, a.read()
def zipform(doc):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z: z.writestr("recipe.json", json.dumps(doc))
    b = "m" + uuid.uuid4().hex
    body = (f'--{b}\r\nContent-Disposition: form-data; name="archive"; filename="r.zip"\r\nContent-Type: application/zip\r\n\r\n').encode() + buf.getvalue() + f"\r\n--{b}--\r\n".encode()
    return body, "multipart/form-data; boundary=" + b
q = urllib.parse.quote
def timed(path, n=3):
    times, size = [], 0
    for _ in range(n):
        t = time.perf_counter(); st, body = call("GET", path); times.append(time.perf_counter() - t); size = len(body)
    return statistics.median(times), size, json.loads(body)
def keyset(page):
    t = time.perf_counter(); last = None; total_bytes = 0; requests = 0; ids = 0
    while True:
        path = f"/api/recipes?orderBy={q('id:asc')}&page=1&perPage={page}"
        if last: path += "&queryFilter=" + q(f'id > "{last}"')
        st, body = call("GET", path); requests += 1; total_bytes += len(body)
        j = json.loads(body); ids += len(j["items"])
        if not j["items"] or j["total"] <= len(j["items"]): break
        last = j["items"][-1]["id"]
    return time.perf_counter() - t, total_bytes, requests, ids
created = 0
create_times = []
for target in [100, 1000, 5000]:
    while created < target:
        doc = {"id": str(uuid.uuid4()), "name": f"Bulk recipe {created} {uuid.uuid4().hex[:6]}", "description": "A recipe of ordinary size " * 3,
               "recipeYield": "4 servings", "totalTime": "45 minutes",
               "tags": [{"name": f"Tag {created % 40}", "slug": f"tag-{created % 40}"}, {"name": "Dinner", "slug": "dinner"}],
               "recipe_category": [{"name": f"Cat {created % 8}", "slug": f"cat-{created % 8}"}],
               "recipeIngredient": [{"note": f"{i} units of something"} for i in range(8)],
               "recipeInstructions": [{"text": f"Step {i}: do the thing carefully."} for i in range(6)]}
        body, ct = zipform(doc)
        t = time.perf_counter(); call("POST", "/api/recipes/create/zip", body, ct); create_times.append(time.perf_counter() - t)
        created += 1
    all_t, all_b, j = timed("/api/recipes?perPage=-1&page=1&orderBy=" + q("id:asc"))
    count_t, count_b, cj = timed("/api/recipes?perPage=1&page=1&orderBy=" + q("id:asc"))
    last_updated = max(i["updatedAt"] for i in j["items"])
    changes_t, changes_b, _ = timed("/api/recipes?perPage=100&page=1&orderBy=" + q("updated_at:asc,id:asc") + "&queryFilter=" + q(f'updatedAt > "{last_updated}"'))
    k1000 = keyset(1000); k200 = keyset(200)
    print(json.dumps({"recipes": cj["total"], "all_in_one_s": round(all_t, 3), "all_in_one_bytes": all_b, "bytes_per_recipe": round(all_b / cj["total"]),
        "count_s": round(count_t, 3), "count_bytes": count_b, "no_changes_s": round(changes_t, 3), "no_changes_bytes": changes_b,
        "keyset_1000": {"s": round(k1000[0], 3), "bytes": k1000[1], "requests": k1000[2], "ids": k1000[3]},
        "keyset_200": {"s": round(k200[0], 3), "bytes": k200[1], "requests": k200[2], "ids": k200[3]},
        "import_median_s": round(statistics.median(create_times), 3)}), flush=True)
