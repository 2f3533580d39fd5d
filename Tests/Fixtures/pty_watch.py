#!/usr/bin/env python3
"""Starts `recipes sync --watch` on a pseudo-terminal, as a person would, and stops it with Ctrl-C.

Usage: pty_watch.py RECIPES HOME   (RECIPES_SERVER_URL in the environment points at a running server)
Waits for the watcher's line on the terminal, types Ctrl-C, then prints everything the terminal showed and
"EXIT <status>".
"""
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

recipes, home = sys.argv[1], sys.argv[2]
term = Terminal([recipes, "sync", "--watch", "--home", home])
term.wait_for("Ctrl-C stops", seconds=60)
term.pump(0.5)  # its first pass
term.type(b"\x03")
term.pump(5)
term.finish()
