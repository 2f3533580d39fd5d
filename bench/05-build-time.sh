#!/usr/bin/env bash
# Where a first debug build's time goes (the build `make test` starts with): a fresh scratch folder, then one
# `swift build --target T` per part, in dependency order, so that each row is what that part adds. Wall time depends on
# what else the machine runs; CPU seconds (user + system of the build and its compilers) do much less, so both are
# given. BoringSSL's C sources (swift-crypto's CCryptoBoringSSL) are a row of their own.
#   BUILD_TIME_SCRATCH=DIR keeps the scratch folder (default: a temporary one, removed afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
scratch=${BUILD_TIME_SCRATCH:-}
remove=""
if [ -z "$scratch" ]; then scratch=$(mktemp -d "${TMPDIR:-/tmp}/recipes-build-time.XXXXXX"); remove=$scratch; fi
trap '[ -z "$remove" ] || rm -rf "$remove"' EXIT
./scripts/embed-migrations.sh >/dev/null

rows=()
total_wall=0 total_cpu=0
# part LABEL ARGUMENT...: one build step, timed; its figures added to the table and the totals.
part() {
    local label=$1
    shift
    measure "$label" "$SWIFT" build --scratch-path "$scratch" "$@"
}
# products LABEL PRODUCT...: one row for several products, built (and linked) one after the other.
products() {
    local label=$1 product command=""
    shift
    for product in "$@"; do command+="\"$SWIFT\" build --scratch-path \"$scratch\" --product $product && "; done
    measure "$label" bash -c "${command}true"
}
# measure LABEL COMMAND...: runs the command under GNU time; its figures added to the table and the totals.
measure() {
    local label=$1
    shift
    local times
    times=$(mktemp)
    if ! /usr/bin/time -f '%e %U %S' -o "$times" "$@" > "$times.log" 2>&1; then
        echo "build-time: \`$*\` failed:" >&2
        tail -n 20 "$times.log" >&2
        rm -f "$times" "$times.log"
        exit 1
    fi
    read -r wall user system < <(tail -n 1 "$times")
    rm -f "$times" "$times.log"
    local cpu
    cpu=$(echo "$user + $system" | bc -l)
    total_wall=$(echo "$total_wall + $wall" | bc -l)
    total_cpu=$(echo "$total_cpu + $cpu" | bc -l)
    rows+=("$(printf '| %s | %.0f | %.0f |' "$label" "$wall" "$cpu")")
}

# Resolving first, so that no row carries it (on a fresh clone it reads the local package mirror).
part "resolve the dependencies" --target Locking
part "swift-collections (Deque, OrderedCollections)" --target DequeModule
part "BoringSSL's C sources (swift-crypto's CCryptoBoringSSL)" --target CCryptoBoringSSL
part "swift-crypto's Swift (Crypto)" --target Crypto
part "GRDB.swift" --target GRDB
part "TOMLKit (toml++, C++)" --target TOMLKit
part "swift-argument-parser" --target ArgumentParser
part "swift-nio (NIOCore, NIOPosix, NIOHTTP1)" --target NIOHTTP1
part "swift-log, swift-service-lifecycle" --target ServiceLifecycle
part "hummingbird (with swift-nio-extras, swift-http-types)" --target Hummingbird
part "swift-property-based (tests only)" --target PropertyBased
for target in RecipeModels SystemFiles RecipeStore OperationEngine Transport MealieAPI RecipeSync SyncWatch \
              RecipesCommandLine ReferenceServer; do
    part "ours: $target" --target "$target"
done
part "ours: recipes (RecipesExecutable), linked" --product recipes
part "ours: recipes-server (RecipesServerExecutable), linked" --product recipes-server
products "ours: the benchmark executables (\`make bench\` only)" EngineBenchmark LinkDelay EditSignalBenchmark SearchBenchmark \
    TransportBenchmark
part "ours: test targets and their support targets (\`--build-tests\`)" --build-tests

echo "## Build: where a first debug build's time goes (issue 39)"
echo
echo "| part | wall s | CPU s |"
echo "| --- | ---: | ---: |"
printf '%s\n' "${rows[@]}"
printf '| **all** (what `make test` builds) | **%.0f** | **%.0f** |\n' "$total_wall" "$total_cpu"
echo
echo "Measured by \`bench/05-build-time.sh\`: a fresh scratch folder, one \`swift build --target T\` per row in dependency"
echo "order (each row is what that part adds), debug, $(nproc) cores. CPU s is user + system time of the build and its"
echo "compilers, steadier than wall time on a shared machine; the packages come from the local mirror."
