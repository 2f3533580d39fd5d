#!/usr/bin/env python3
"""Captures the answers of a real Mealie 2.0 that MealieAPITests read, as fixtures (one JSON file per answer).

    set -a; eval "$(../shared/peers/mealie/mealie-up.sh)"; set +a
    python3 Tests/MealieAPITests/Fixtures/capture.py      # writes Tests/MealieAPITests/Fixtures/*.json
    ../shared/peers/mealie/mealie-up.sh stop "$MEALIE_PIDFILE"

Each file: {"request": "<method> <path>", "status": N, "headers": {<lower-case name>: value}, "body": "<text>"}.
Use a fresh Mealie: the script creates its own recipes and tags. Never captures /api/users/self (its answer lists
the user's API tokens), and keeps only the headers the tests read.
"""
import io
import json
import os
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile

BASE = os.environ["MEALIE_URL"]
TOKEN = os.environ["MEALIE_TOKEN"]
OUT = os.path.dirname(os.path.abspath(__file__))
KEPT_HEADERS = {"content-type", "last-modified", "www-authenticate", "content-length"}


def call(method, path, body=None, raw=None, ctype=None, token=TOKEN):
    headers = {}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    if raw is not None:
        data, headers["Content-Type"] = raw, ctype
    request = urllib.request.Request(BASE + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def save(name, method, path, answer):
    status, headers, body = answer
    kept = {k.lower(): v for k, v in headers.items() if k.lower() in KEPT_HEADERS}
    text = body.decode("utf-8")
    assert TOKEN not in text, f"{name}: the answer holds the token"
    record = {"request": f"{method} {path}", "status": status, "headers": kept, "body": text}
    with open(os.path.join(OUT, name + ".json"), "w") as out:
        json.dump(record, out, indent=1, ensure_ascii=False)
        out.write("\n")
    print(f"{name}: {status}", file=sys.stderr)
    return json.loads(text) if "json" in kept.get("content-type", "") else text


def capture(name, method, path, **kwargs):
    return save(name, method, path, call(method, path, **kwargs))


def multipart(fields, files):
    boundary = "capture-" + uuid.uuid4().hex
    out = io.BytesIO()
    for key, value in fields.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode())
    for key, (filename, ctype, data) in files.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"; filename="{filename}"\r\n'
                  f"Content-Type: {ctype}\r\n\r\n".encode())
        out.write(data)
        out.write(b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), "multipart/form-data; boundary=" + boundary


def zip_form(recipe):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("recipe.json", json.dumps(recipe))
    return multipart({}, {"archive": ("recipe.zip", "application/zip", archive.getvalue())})


def q(text):
    return urllib.parse.quote(text, safe="")


def png(width=8, height=8):
    """A small RGB PNG, enough for Mealie to convert."""
    import struct
    import zlib
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"".join(bytes((x * 30 % 256, y * 30 % 256, 128)) for x in range(width))
                    for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


PNG = png()

capture("about", "GET", "/api/app/about", token=None)
capture("group", "GET", "/api/groups/self")
capture("group-401", "GET", "/api/groups/self", token="not-a-token")
capture("route-404", "GET", "/api/no-such-route")

recipe_id = str(uuid.uuid4())
document = {
    "id": recipe_id, "name": "Captured soup", "description": "Red and warm.", "orgURL": "https://example.org/soup",
    "recipeYield": "4 servings", "totalTime": "45 minutes", "prepTime": "15 minutes", "performTime": "30 minutes",
    "recipeIngredient": [{"note": "1 kg tomatoes"}, {"note": "1 onion", "title": "Base"}],
    "recipeInstructions": [{"text": "Chop.", "title": "Prep"}, {"text": "Cook 20 min."}],
    "tags": [{"name": "Soup", "slug": "soup"}], "recipe_category": [{"name": "Dinner", "slug": "dinner"}],
    "nutrition": {"calories": "250"}, "notes": [{"title": "Tip", "text": "Use ripe ones."}],
}
body, ctype = zip_form(document)
capture("create-zip-201", "POST", "/api/recipes/create/zip", raw=body, ctype=ctype)
capture("create-zip-500", "POST", "/api/recipes/create/zip", raw=body, ctype=ctype)
recipe = capture("recipe", "GET", f"/api/recipes/{recipe_id}")
capture("recipe-404", "GET", f"/api/recipes/{uuid.uuid4()}")

form, ctype = multipart({"extension": "png"}, {"image": ("original.png", "image/png", PNG)})
capture("image-200", "PUT", f"/api/recipes/{recipe['slug']}/image", raw=form, ctype=ctype)
capture("image-by-id-404", "PUT", f"/api/recipes/{recipe_id}/image", raw=form, ctype=ctype)

recipe = json.loads(call("GET", f"/api/recipes/{recipe_id}")[2])
recipe["description"] = "Red, warm and blended."
capture("update-200", "PUT", f"/api/recipes/{recipe_id}", body=recipe)
capture("update-partial-400", "PUT", f"/api/recipes/{recipe_id}", body={"name": "Captured soup"})
capture("validation-422", "PUT", f"/api/recipes/{recipe_id}",
        body=dict(recipe, tools=[{"name": "Pot", "slug": "pot"}]))

for index in range(3):
    second = str(uuid.uuid4())
    body, ctype = zip_form({"id": second, "name": f"Captured stew {index}",
                            "recipeIngredient": [{"note": "x"}], "recipeInstructions": [{"text": "y"}]})
    call("POST", "/api/recipes/create/zip", raw=body, ctype=ctype)

changes = "/api/recipes?" + "&".join([
    "orderBy=" + q("updated_at:asc,id:asc"), "page=1", "perPage=2",
    "queryFilter=" + q('updatedAt > "2000-01-01T00:00:00.000000Z"')])
capture("changes-page", "GET", changes)
capture("changes-empty", "GET", "/api/recipes?" + "&".join([
    "orderBy=" + q("updated_at:asc,id:asc"), "page=1", "perPage=100",
    "queryFilter=" + q('updatedAt > "2100-01-01T00:00:00.000000Z"')]))
capture("ids-page", "GET", "/api/recipes?orderBy=" + q("id:asc") + "&page=1&perPage=3")
capture("count-page", "GET", "/api/recipes?orderBy=" + q("id:asc") + "&page=1&perPage=1")
capture("bad-query-filter-400", "GET", "/api/recipes?queryFilter=" + q('updatedAt > "yesterday"'))

capture("tags", "GET", "/api/organizers/tags?orderBy=name%3Aasc&page=1&perPage=-1")
capture("tag-created-201", "POST", "/api/organizers/tags", body={"name": "Captured tag"})
capture("tag-duplicate-500", "POST", "/api/organizers/tags", body={"name": "Captured tag"})
capture("tool-created-201", "POST", "/api/organizers/tools", body={"name": "Captured pot"})
capture("tool-duplicate-400", "POST", "/api/organizers/tools", body={"name": "Captured pot"})

capture("delete-200", "DELETE", f"/api/recipes/{recipe_id}")
capture("delete-404", "DELETE", f"/api/recipes/{recipe_id}")
