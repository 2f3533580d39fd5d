#!/usr/bin/env python3
"""The requests of a first upload with an image and of a one-field edit against a Mealie, timed (docs/mealie.md,
"Requests per recipe"): import, read back, image upload, image download, read; then GET and PATCH. One JSON line.

    /tmp/mealie-venv/bin/python scripts/mealie-measure-chain.py 30 photo.jpg     # with MEALIE_URL and MEALIE_TOKEN set
"""
import hashlib, http.client, io, json, os, statistics, sys, time, uuid, zipfile
from urllib.parse import urlparse
BASE, TOKEN = os.environ["MEALIE_URL"], os.environ["MEALIE_TOKEN"]
u = urlparse(BASE); conn = http.client.HTTPConnection(u.hostname, u.port)
count = 0
def call(method, path, body=None, ctype=None):
    global count
    h = {"Authorization": "Bearer " + TOKEN}
    if ctype: h["Content-Type"] = ctype
    conn.request(method, path, body=body, headers=h); r = conn.getresponse(); data = r.read(); count += 1
    return r.status, data
def form(fields, files):
    b = "m" + uuid.uuid4().hex; out = io.BytesIO()
    for k, v in fields.items(): out.write(f'--{b}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
    for k, (fn, ct, data) in files.items():
        out.write(f'--{b}\r\nContent-Disposition: form-data; name="{k}"; filename="{fn}"\r\nContent-Type: {ct}\r\n\r\n'.encode()); out.write(data); out.write(b"\r\n")
    out.write(f"--{b}--\r\n".encode()); return out.getvalue(), "multipart/form-data; boundary=" + b
image = open(sys.argv[2], "rb").read()
n = int(sys.argv[1]); first, edits = [], []
for i in range(n):
    rid = str(uuid.uuid4()); start = count; t = time.perf_counter()
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w") as zf: zf.writestr("recipe.json", json.dumps({"id": rid, "name": f"Chain {rid[:8]}", "recipeIngredient": [{"note": "x", "referenceId": str(uuid.uuid4())}], "recipeInstructions": [{"text": "y"}]}))
    body, ct = form({}, {"archive": ("r.zip", "application/zip", z.getvalue())})
    st, _ = call("POST", "/api/recipes/create/zip", body, ct); assert st == 201, st
    st, data = call("GET", f"/api/recipes/{rid}"); slug = json.loads(data)["slug"]
    body, ct = form({"extension": "jpg"}, {"image": ("original.jpg", "image/jpeg", image)})
    st, _ = call("PUT", f"/api/recipes/{slug}/image", body, ct); assert st == 200
    st, data = call("GET", f"/api/media/recipes/{rid}/images/original.webp"); served = hashlib.sha256(data).hexdigest()
    st, data = call("GET", f"/api/recipes/{rid}"); base = json.loads(data)["updatedAt"]
    first.append((time.perf_counter() - t, count - start))
    start = count; t = time.perf_counter()
    st, data = call("GET", f"/api/recipes/{rid}"); assert json.loads(data)["updatedAt"] == base
    st, data = call("PATCH", f"/api/recipes/{rid}", json.dumps({"description": "edited"}).encode(), "application/json"); assert st == 200
    edits.append((time.perf_counter() - t, count - start))
print(json.dumps({"recipes": n, "image_bytes": len(image),
    "first_upload": {"requests": first[0][1], "median_s": round(statistics.median(x[0] for x in first), 3), "total_s": round(sum(x[0] for x in first), 2)},
    "one_field_edit": {"requests": edits[0][1], "median_s": round(statistics.median(x[0] for x in edits), 3)}}))
