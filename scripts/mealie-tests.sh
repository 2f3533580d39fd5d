#!/usr/bin/env bash
# The tests against a real Mealie 2.0 (`make mealie-tests`; `.ci/run` calls it): the Mealie suites (MealieAPITests,
# FaultProxyTests, and MealieSyncTests: `recipes sync` with kind mealie, the debug binary) with
# RECIPES_MEALIE_TESTS=1. The tests start the Mealie themselves (Tests/MealieTestSupport/MealiePeer.swift, through
# mealie-up.sh of $RECIPES_MEALIE_PEER, ../shared/peers/mealie or /work/shared/peers/mealie) and stop it when their
# process exits; this script stops it too, however that process ended (a crash, Ctrl-C, kill -9), from the pid file
# the tests write, and stops any Mealie an earlier killed run left before it starts.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${BUILD:-.build}"
export PATH="$PATH:/opt/swift/usr/bin"
export RECIPES_MEALIE_TESTS=1
export RECIPES_MEALIE_PIDFILE="${RECIPES_MEALIE_PIDFILE:-$PWD/$BUILD/mealie-test-peer.pid}"

# Stops the Mealie the pid file names when it is still that uvicorn, serving that data folder (a recycled pid, or
# another engineer's Mealie, is left alone), removes its data folder (only mealie-up.sh's /tmp/mealie-data.*) and
# the pid file.
stop_peer() {
  [[ -f "$RECIPES_MEALIE_PIDFILE" ]] || return 0
  local pid data
  pid="$(sed -n 's/^pid=//p' "$RECIPES_MEALIE_PIDFILE")"
  data="$(sed -n 's/^data=//p' "$RECIPES_MEALIE_PIDFILE")"
  # A start cut short before the pid file had the pid: mealie-up.sh wrote it into the data folder at launch.
  if [[ -z "$pid" && -f "$data/mealie.pid" ]]; then pid="$(cat "$data/mealie.pid")"; fi
  if [[ -n "$pid" ]] && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q 'uvicorn.*mealie.app' \
     && tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qxF "DATA_DIR=$data"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    echo "mealie-tests: stopped the Mealie (pid $pid) the tests left running" >&2
  fi
  if [[ "$data" == /tmp/mealie-data.* ]]; then
    if [[ -f "$data/server.log" ]]; then mv -f "$data/server.log" "$RECIPES_MEALIE_PIDFILE.server.log"; fi
    rm -rf "$data"
  fi
  rm -f "$RECIPES_MEALIE_PIDFILE"
}

stop_peer
trap stop_peer EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
start=$(date +%s)
swift test --skip-build --scratch-path "$BUILD" --filter 'MealieAPITests|FaultProxyTests'
# `recipes sync` against a Mealie of its own (a second test process, after the first stopped its Mealie): a sync pulls
# every recipe of the Mealie, so the API suites' recipes stay out of its homes.
swift test --skip-build --scratch-path "$BUILD" --filter 'MealieSyncTests'
echo "mealie-tests: $(( $(date +%s) - start )) s, the Mealie's start included" >&2
