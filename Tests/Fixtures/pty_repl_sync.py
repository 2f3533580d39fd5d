#!/usr/bin/env python3
"""Drives `recipes edit` on a pseudo-terminal through a sync that Ctrl-C interrupts, as a person would.

Usage: pty_repl_sync.py RECIPES HOME   (RECIPES_SERVER_URL in the environment points at a server that stalls images)
Types: "sync" (recipe 1's image upload stalls), Ctrl-C once it is uploading, then "status 1", then Ctrl-D.
Prints "PROMPT-AFTER-CTRL-C <seconds>" (how long until the prompt was back, -1 if it never was), everything the
terminal showed, then "EXIT <status>".
"""
import sys, time
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

recipes, home = sys.argv[1], sys.argv[2]
term = Terminal([recipes, "edit", "--home", home])
term.wait_for("recipes> ")
term.type(b"sync\r")
term.wait_for("image")      # the progress row of recipe 1's image step
term.pump(0.5)              # the PUT is on the wire, and the server never answers
mark = len(term.output)
term.type(b"\x03")
started = time.time()
back = term.wait_for("recipes> ", seconds=60, after=mark)
print(f"PROMPT-AFTER-CTRL-C {time.time() - started if back else -1:.3f}")
term.pump(0.2)
term.type(b"status 1\r"); term.wait_for("WHY NOT SYNCED", after=mark)
term.pump(0.3)
term.type(b"\x04"); term.pump(1.0)
term.finish()
