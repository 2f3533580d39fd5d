#!/usr/bin/env python3
"""Drives `recipes edit` on a pseudo-terminal, as a person at a keyboard would.

Usage: pty_session.py RECIPES HOME
Types: "new Soup", a tab-completed "ingr<TAB>" command, a half line cancelled with Ctrl-C, "list", then Ctrl-D.
Prints everything the terminal showed, then "EXIT <status>".
"""
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

recipes, home = sys.argv[1], sys.argv[2]
term = Terminal([recipes, "edit", "--home", home])
term.wait_for("recipes> ")
term.type(b"new Soup\r"); term.wait_for("created 1")
term.type(b"ingr\t"); term.pump(0.3)
term.type(b" add 1 water\r"); term.pump(0.5)
term.type(b"title 1 half typed"); term.pump(0.3)
term.type(b"\x03"); term.pump(0.5)
term.type(b"list\r"); term.wait_for("TITLE")
term.pump(0.3)
term.type(b"\x04"); term.pump(1.0)
term.finish()
