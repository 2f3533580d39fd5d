#!/usr/bin/env python3
"""Deletes and undoes in `recipes edit` on a pseudo-terminal, as a person at a keyboard would.

Usage: pty_repl_undo.py RECIPES HOME   (a home holding 1 "Lasagne al forno")
Types "delete 1" (the REPL says what it did and how to undo it), then "undo las<TAB>" completed by title, which brings
the recipe back, then "history 1", then Ctrl-D.
Prints everything the terminal showed, then "EXIT <status>".
"""
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

recipes, home = sys.argv[1], sys.argv[2]
term = Terminal([recipes, "edit", "--home", home], columns=120)
term.wait_for("recipes> ")
term.type(b"delete 1\r"); term.wait_for("brings it back)", seconds=10)
term.type(b"undo 1\r"); term.wait_for("is back", seconds=10)
term.type(b"history las\t"); term.wait_for('forno" ', seconds=10)
term.type(b"\r"); term.wait_for("what changed", seconds=10)
term.pump(0.5)
term.type(b"\x04"); term.pump(1.0)
term.finish()
