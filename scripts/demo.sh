#!/usr/bin/env bash
# `make demo`: the editing half of recipes end to end, in a temporary home that is removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-.build}
recipes="$PWD/$BUILD/release/recipes"
home=$(mktemp -d /tmp/recipes-demo.XXXXXX)
trap 'rm -rf "$home"' EXIT
# Bold headings on a terminal, plain text otherwise or when NO_COLOR is set.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }

step "A fresh home: $home"
step "Creating sample recipes with images (demo/recipes.txt piped into \`recipes edit\`)"
"$recipes" edit --home "$home" < demo/recipes.txt
step "recipes list"
"$recipes" list --home "$home"
step "recipes show 1"
"$recipes" show 1 --home "$home"
step "recipes status"
"$recipes" status --home "$home"
step "What the home holds"
(cd "$home" && find . -type f | sort)
