#!/usr/bin/env python3
"""Drives `recipes edit` on a pseudo-terminal through a background sync, as a person would.

Usage: pty_repl_jobs.py RECIPES HOME   (RECIPES_SERVER_URL points at a server whose image uploads stall; the home has
recipes 1 and 2 with images)
Types: "show <TAB><TAB>" (the ids with their titles), "sync &", a half-typed "lis" while the job's lines arrive, "t" to
finish it, "jobs", "cancel 1" (one recipe of the running sync), "cancel %1" (the rest), "wait", then "sync &" again and
Ctrl-D (asked: answers n, the prompt stays), "quit" (asked again: answers y).
Prints marker lines (e.g. "LIST-WHILE-SYNCING yes"), everything the terminal showed, then "EXIT <status>".
"""
import sys, time
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

recipes, home = sys.argv[1], sys.argv[2]
term = Terminal([recipes, "edit", "--home", home])
def mark(name, ok): print(f"{name} {'yes' if ok else 'no'}")

term.wait_for("recipes> ")
term.type(b"show \t\t"); mark("COMPLETION-LISTS-TITLES", term.wait_for("Recipe 2", seconds=60))
term.type(b"\x15")  # Ctrl-U: drop the half line
term.pump(0.2)
at = len(term.output)
term.type(b"sync &\r"); mark("STARTED", term.wait_for("[1] sync runs in the background", after=at))
mark("JOB-LINE", term.wait_for("[1] #1", after=at))
at = len(term.output)
term.type(b"lis"); term.pump(1.5)  # progress lines of the stalled uploads may arrive while the line is half typed
term.type(b"t\r"); mark("LIST-WHILE-SYNCING", term.wait_for("TITLE", after=at))
at = len(term.output)
term.type(b"jobs\r"); mark("JOBS", term.wait_for("[1] running", after=at))
at = len(term.output)
started = time.time()
term.type(b"cancel 1\r"); mark("CANCELLED-ONE", term.wait_for("cancelled recipe 1", after=at))
print(f"CANCEL-SECONDS {time.time() - started:.3f}")
at = len(term.output)
term.type(b"cancel %1\r"); mark("STOPPING", term.wait_for("stopping sync %1", after=at))
term.type(b"wait\r"); mark("FINISHED", term.wait_for("[1] finished", after=at))
term.pump(0.3)
at = len(term.output)
term.type(b"sync &\r"); term.wait_for("[2] sync runs in the background", after=at)
term.pump(0.5)
at = len(term.output)
term.type(b"\x04"); mark("ASKED-ON-CTRL-D", term.wait_for("Stop it and leave? [y/N]", after=at))
term.type(b"n\r"); term.pump(0.3)
at = len(term.output)
term.type(b"quit\r"); mark("ASKED-ON-QUIT", term.wait_for("Stop it and leave? [y/N]", after=at))
term.type(b"y\r"); term.pump(2.0)
term.finish()
