#!/usr/bin/env python3
"""Drives `recipes cook 1` on a pseudo-terminal 60 columns wide, as a cook at the stove would.

Usage: pty_cook.py keys RECIPES HOME      (recipe 1 has three steps; step 2 names "10-12 minutes")
  Runs `recipes cook 1` from a shell, then `stty -a` on the same terminal. Waits for the ingredients, types → (step 1),
  n (step 2), ← (step 1), space (step 2), t (its timer), waits for the countdown to show a second gone, i (all
  ingredients), i (back), q (asked again: a timer runs), q.
Usage: pty_cook.py sigterm RECIPES HOME
  Runs `recipes cook 1`, types → and, on step 1, sends the process SIGTERM.
Usage: pty_cook.py ctrl-c RECIPES HOME
  Runs `recipes cook 1`, types →, t on step 1 (which names a time), then Ctrl-C.
Usage: pty_cook.py repl RECIPES HOME
  Runs `recipes edit`, types "cook 1", waits for the ingredients, →, q; then "list" (the REPL reads lines again) and
  Ctrl-D.
Each way it prints everything the terminal showed; then "ECHO on" or "ECHO off" and "ICANON on" or "off" as the
terminal's settings are once the program has ended; then "EXIT <status>". A screen that never came is written as
"MISSING <text>".
"""
import os, signal, sys, termios
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

mode, recipes, home = sys.argv[1], sys.argv[2], sys.argv[3]
if mode == "repl":
    term = Terminal([recipes, "edit", "--home", home], columns=60)
    term.wait_for("recipes> ")
    term.type(b"cook 1\r")
elif mode == "keys":
    term = Terminal(["/bin/sh", "-c", '"$0" cook 1 --home "$1"; echo "COOK EXIT $?"; stty -a', recipes, home], columns=60)
else:
    term = Terminal([recipes, "cook", "1", "--home", home], columns=60)


def step(keys, text):
    """Types `keys`, then waits for `text` in what comes after them."""
    start = len(term.output)
    term.type(keys)
    if not term.wait_for(text, seconds=30, after=start):
        print(f"MISSING {text}")


if not term.wait_for("Get them ready", seconds=60):
    print("MISSING Get them ready")
if mode == "keys":
    step(b"\x1b[C", "Step 1 of 3")
    step(b"n", "Step 2 of 3")
    step(b"\x1b[D", "Step 1 of 3")
    step(b" ", "Step 2 of 3")
    step(b"t", "timer started for step 2: 12:00")
    if not term.wait_for("11:59 left", seconds=30):
        print("MISSING 11:59 left")
    step(b"i", "All ingredients")
    step(b"i", "Step 2 of 3")
    step(b"q", "q again quits")
    step(b"q", "COOK EXIT")
    term.wait_for("eol", seconds=10)  # stty -a has written its settings
    term.pump(0.5)
elif mode == "repl":
    step(b"\x1b[C", "Step 1 of 3")
    step(b"q", "recipes> ")
    step(b"list\r", "Lasagne")
    term.pump(0.3)
    term.type(b"\x04")
    term.pump(2)
elif mode == "sigterm":
    step(b"\x1b[C", "Step 1 of 3")
    os.kill(term.pid, signal.SIGTERM)
    term.pump(5)
else:
    step(b"\x1b[C", "Step 1 of 3")
    step(b"t", "timer started for step 1")
    term.type(b"\x03")
    term.pump(5)
_, status = os.waitpid(term.pid, 0)
settings = termios.tcgetattr(term.fd)
print(term.output.decode("utf-8", "replace"))
print("ECHO " + ("on" if settings[3] & termios.ECHO else "off"))
print("ICANON " + ("on" if settings[3] & termios.ICANON else "off"))
print(f"EXIT {os.waitstatus_to_exitcode(status)}")
