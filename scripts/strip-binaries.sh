#!/bin/sh
# Writes stripped copies of the release binaries given as arguments into DIR: what running them needs, without debug
# information and the symbol table, which are kept in DIR/<name>.debug, found by gdb and lldb through the copy's
# .gnu_debuglink. The binaries swift build made are left as they are, so that the next swift build finds its outputs
# unchanged and links nothing again. Idempotent: a copy newer than its binary is left alone.
#   scripts/strip-binaries.sh DIR BINARY...
set -eu
dir=$1
shift
mkdir -p "$dir"
for binary in "$@"; do
    [ -f "$binary" ] || { echo "strip-binaries: no $binary" >&2; exit 1; }
    name=$(basename "$binary")
    if [ -f "$dir/$name" ] && [ "$dir/$name" -nt "$binary" ]; then continue; fi
    objcopy --only-keep-debug "$binary" "$dir/$name.debug"
    objcopy --strip-debug --strip-unneeded --add-gnu-debuglink="$dir/$name.debug" "$binary" "$dir/$name.tmp"
    mv "$dir/$name.tmp" "$dir/$name"
done
