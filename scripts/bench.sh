#!/usr/bin/env bash
# Runs every bench/*.sh (each prints one markdown section) and prints BENCHMARKS.md with the machine and date.
set -euo pipefail
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-.build}
echo "# Benchmarks"
echo
echo "Written by \`make bench\` on $(date -u '+%Y-%m-%d %H:%M UTC'). Release builds (\`--static-swift-stdlib\`)."
echo
echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB memory, $(uname -sr), $(swift --version 2>/dev/null | head -1)."
echo
for script in bench/*.sh; do
    echo "running $script" >&2
    if ! bash "$script"; then
        echo "## $(basename "$script" .sh)"
        echo
        echo "**failed** — see the output of \`bash $script\`."
    fi
    echo
done
