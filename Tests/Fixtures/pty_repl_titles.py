#!/usr/bin/env python3
"""Completes recipe titles with Tab in `recipes edit` on a pseudo-terminal, as a person at a keyboard would.

Usage: pty_repl_titles.py RECIPES HOME   (a home holding 1 "Crème brûlée", 2 "Lasagne al forno", 3 "Lasagne verde",
4 "Crêpes", 5 "Cake", 6 "Ćevapi", 7 "Croûtons à l'ail", 8 "Crumble")
Types "description crem<TAB>silky" (one title: completed whole, quoted), "yield las<TAB><TAB>" (two: their common
start, then the list of both), "v<TAB>4 portions" (now one), then "show \"Lasagne a<TAB>" (a quote left open:
completed and closed) and Return, then "show c<TAB><TAB>" (the six recipes starting so listed in columns) and
Ctrl-C, then Ctrl-D.
Prints everything the terminal showed, then "EXIT <status>".
"""
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

recipes, home = sys.argv[1], sys.argv[2]
term = Terminal([recipes, "edit", "--home", home], columns=100)
term.wait_for("recipes> ")
term.type("description crem".encode()); term.pump(0.3)
term.type(b"\t"); term.wait_for('"Crème brûlée" ', seconds=10)
term.type(b"silky\r"); term.wait_for("recipes> ", after=len(term.output) - 1)
term.pump(0.5)
term.type(b"yield las\t"); term.wait_for('"Lasagne ', seconds=10)
term.pump(0.3)
term.type(b"\t"); term.wait_for("Lasagne verde", seconds=10)
term.pump(0.3)
term.type(b"v\t"); term.wait_for('erde" ', seconds=10)  # libedit redraws from the cursor on
term.type(b"4 portions\r"); term.pump(1.0)
term.type(b'show "Lasagne a\t'); term.wait_for('l forno" ', seconds=10)
term.type(b"\r"); term.wait_for("Lasagne al forno\r\n", seconds=10)
term.pump(0.5)
term.type(b"show c\t"); term.pump(0.5)
term.type(b"\t"); term.wait_for("Crumble", seconds=10)
term.pump(0.5)
term.type(b"\x03"); term.pump(0.5)
term.type(b"\x04"); term.pump(1.0)
term.finish()
