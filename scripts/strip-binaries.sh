#!/bin/sh
# Strips the release binaries given as arguments of what running them does not need (debug information and the
# symbol table), keeping it in <binary>.debug beside each, which gdb and lldb find through the binary's
# .gnu_debuglink. Idempotent: a binary already stripped (its .debug newer than it) is left alone.
set -eu
for binary in "$@"; do
    [ -f "$binary" ] || { echo "strip-binaries: no $binary" >&2; exit 1; }
    if [ -f "$binary.debug" ] && [ "$binary.debug" -nt "$binary" ]; then continue; fi
    objcopy --only-keep-debug "$binary" "$binary.debug"
    objcopy --strip-debug --strip-unneeded --add-gnu-debuglink="$binary.debug" "$binary" "$binary.stripped"
    mv "$binary.stripped" "$binary"
    touch "$binary.debug"  # newer than the stripped binary: the next run knows it is done
done
