#!/usr/bin/env python3
"""Drives `recipes edit` on a pseudo-terminal through background syncs that end while the prompt waits.

Usage: pty_repl_job_ends.py RECIPES HOME ROUNDS   (RECIPES_SERVER_URL points at a recipes-server)
Each round types eight `new …` lines, then `sync &`, and waits for the job's `finished` line: its last event and
its end arrive together, which wakes the line editor twice. Then Ctrl-D.
Prints everything the terminal showed, then "EXIT <status>".
"""
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

recipes, home, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
term = Terminal([recipes, "edit", "--home", home], columns=100)
term.wait_for("recipes> ")
for round in range(rounds):
    for i in range(8):
        at = len(term.output)
        term.type(f"new R{round}-{i}\r".encode())
        term.wait_for("created", after=at)
    at = len(term.output)
    term.type(b"sync &\r")
    term.wait_for("finished", after=at, seconds=60)
    term.pump(0.3)  # the prompt is redrawn after the job's lines
term.type(b"\x04"); term.pump(1.0)
term.finish()
