#!/usr/bin/env bash
# Import: 1,000 saved recipe pages in the shape the big sites publish (an @graph with WebPage, Recipe, Person and
# ImageObject nodes; HowToSections; recipeYield as a list; nutrition; durations; a canonical link; HTML entities;
# properties recipes keeps as they came), imported by one `recipes import DIR/*.html` into a fresh home, RUNS times.
# With COMPARE_BUILD (another scratch folder holding a release `recipes`, e.g. an older commit's), the two binaries
# run alternately on the same pages. Target: within today's figure (the comparison). Prints one markdown section.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${COUNT:-1000}"
RUNS="${RUNS:-5}"
BUILD="${BUILD:-.build}"
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac

if ! out="$(swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product recipes 2>&1)"; then
    printf '%s\n' "$out" >&2
    echo "bench/61: building recipes failed (output above)" >&2
    exit 1
fi
BINARIES=("$BUILD/release/recipes")
LABELS=("this build")
if [ -n "${COMPARE_BUILD:-}" ]; then
    [ -x "$COMPARE_BUILD/release/recipes" ] || { echo "bench/61: no release recipes in $COMPARE_BUILD" >&2; exit 1; }
    BINARIES+=("$COMPARE_BUILD/release/recipes")
    LABELS+=("${COMPARE_LABEL:-compared build}")
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

python3 - "$WORK/pages" "$COUNT" <<'PY'
import json, os, random, sys
folder, count = sys.argv[1], int(sys.argv[2])
os.makedirs(folder)
random.seed(61)
foods = ("tomato onion garlic carrot potato leek celery pepper chilli lentil bean chickpea rice barley flour butter "
         "cream milk yoghurt cheese egg lemon lime apple pear almond walnut honey sugar cinnamon cumin coriander "
         "paprika ginger basil parsley thyme rosemary spinach kale mushroom chicken beef lamb salmon tofu pasta").split()
verbs = "chop slice dice stir simmer boil roast bake fry whisk fold knead rest season serve blend grate toss".split()
words = "the a with and then until for over into gently slowly well minutes hot warm golden soft crisp".split()
def sentence(n):
    return " ".join(random.choice(words + foods + verbs) for _ in range(n)).capitalize() + "."
for i in range(count):
    site = f"https://site{i % 7}.example.com"
    slug = f"recipe-{i}"
    page = f"{site}/{slug}/"
    person = f"{site}/#/schema/person/{i % 13}"
    main = random.sample(foods, 2)
    title = f"{main[0].capitalize()} &amp; {main[1]} dish {i}"
    steps = lambda section: [{"@type": "HowToStep", "text": f"{random.choice(verbs).capitalize()} " + sentence(12),
                               "url": f"{page}#step-{section}-{k}"} for k in range(3)]
    graph = {"@context": "https://schema.org", "@graph": [
        {"@type": "WebPage", "@id": page, "url": page, "name": title, "isPartOf": {"@id": f"{site}/#website"},
         "primaryImageOfPage": {"@id": f"{page}#primaryimage"}, "inLanguage": "en-GB"},
        {"@type": "ImageObject", "@id": f"{page}#primaryimage", "url": f"{site}/images/{i}.jpg", "width": 1200, "height": 800},
        {"@type": "Person", "@id": person, "name": f"Cook {i % 13}", "url": f"{site}/about/"},
        {"@type": "Recipe", "@id": f"{page}#recipe", "name": title, "author": {"@id": person},
         "description": sentence(20).replace(" and ", " &amp; ", 1), "image": {"@id": f"{page}#primaryimage"},
         "recipeYield": [str(random.randint(2, 8)), f"{random.randint(2, 8)} servings"],
         "prepTime": f"PT{random.randint(5, 40)}M", "cookTime": f"PT{random.randint(10, 120)}M", "totalTime": "PT2H",
         "recipeIngredient": [f"{random.randint(1, 500)} g {f}" for f in random.sample(foods, 8)],
         "recipeInstructions": [
             {"@type": "HowToSection", "name": "Prepare", "itemListElement": steps(0)},
             {"@type": "HowToSection", "name": "Cook", "itemListElement": steps(1)}],
         "recipeCategory": ["Main Course"], "recipeCuisine": [random.choice(["Italian", "Indian", "British", "French"])],
         "keywords": ", ".join(random.sample(foods, 3)),
         "nutrition": {"@type": "NutritionInformation", "calories": f"{random.randint(100, 900)} kcal",
                       "fatContent": f"{random.randint(1, 40)} g", "proteinContent": f"{random.randint(1, 50)} g"},
         "aggregateRating": {"@type": "AggregateRating", "ratingValue": "4.5", "ratingCount": str(random.randint(1, 999))},
         "datePublished": "2024-02-10T09:00:00+00:00", "mainEntityOfPage": page},
    ]}
    html = (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title>\n'
            f'<link rel="canonical" href="{page}">\n'
            f'<script type="application/ld+json">{json.dumps(graph)}</script>\n'
            f'</head><body><h1>{title}</h1>' + ("<p>" + sentence(60) + "</p>") * 20 + '</body></html>\n')
    open(f"{folder}/{i:05d}.html", "w").write(html)
PY

RESULTS=()
for run in $(seq "$RUNS"); do
    for index in "${!BINARIES[@]}"; do
        home="$WORK/home-$index-$run"
        RECIPES_HOME="$home" /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "${BINARIES[$index]}" import "$WORK"/pages/*.html \
            >"$WORK/out" 2>"$WORK/err" || { echo "bench/61: import failed:" >&2; tail -5 "$WORK/err" >&2; exit 1; }
        imported=$(grep -c '^imported ' "$WORK/out" || true)
        [ "$imported" -eq "$COUNT" ] || { echo "bench/61: ${LABELS[$index]} imported $imported of $COUNT" >&2; exit 1; }
        RESULTS+=("$index $(cat "$WORK/time")")
        rm -rf "$home"
    done
done

python3 - "$COUNT" "$RUNS" "${LABELS[@]}" -- "${RESULTS[@]}" <<'PY'
import statistics, sys
args = sys.argv[1:]
count, runs = int(args[0]), int(args[1])
split = args.index("--")
labels, rows = args[2:split], [line.split() for line in args[split + 1:]]
print("## Import: 1,000 saved recipe pages")
print()
print(f"| build | median wall | min | max | median CPU (user + sys) | peak RSS | pages/s |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
medians = []
for index, label in enumerate(labels):
    mine = [row for row in rows if int(row[0]) == index]
    walls = [float(row[1]) for row in mine]
    cpus = [float(row[2]) + float(row[3]) for row in mine]
    rss = max(int(row[4]) for row in mine) / 1024
    wall = statistics.median(walls)
    medians.append(wall)
    print(f"| {label} | **{wall:.2f} s** | {min(walls):.2f} s | {max(walls):.2f} s | {statistics.median(cpus):.2f} s "
          f"| {rss:.1f} MB | {count / wall:,.0f} |")
print()
if len(medians) == 2:
    ratio = medians[0] / medians[1]
    print(f"Ratio of median walls, this build / {labels[1]}: **{ratio:.2f}** (target: within today's figure, ≤ 1.0 "
          f"give or take the noise of a shared machine).")
    print()
print(f"One `recipes import DIR/*.html` of {count:,} generated pages (a Yoast-style @graph: WebPage, ImageObject, Person "
      f"and Recipe nodes; two HowToSections of three steps; 8 ingredients; nutrition; times; a canonical link; HTML "
      f"entities; an aggregateRating and other properties) into a fresh home, {runs} runs per build, alternating. "
      f"Images are web addresses, kept as the recipes' remote images (no network).")
PY
