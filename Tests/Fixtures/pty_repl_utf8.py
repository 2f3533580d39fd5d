#!/usr/bin/env python3
"""Types text beyond ASCII into `recipes edit` on a pseudo-terminal, as a person at a keyboard would, with the
environment it is given (its LANG, LC_ALL, LC_CTYPE).

Usage: pty_repl_utf8.py RECIPES HOME
Session one: creates "Crème brûlée" with an ingredient "½ tsp salt" and a step "Bake at 180 °C for 45 minutes.", a
recipe titled "東京ラーメン 🍜" (wide characters and an emoji); moves the cursor left over "brûlée" and inserts
"très " before it; moves it left over "ラーメン" and inserts "の"; recalls "new 東京ラーメン 🍜" with the up arrow and
runs it again; recalls it once more, erases the emoji and types "🍣" instead; types a byte that is not UTF-8 (a
Latin-1 "é", 0xE9) in a title, which must be refused; leaves with Ctrl-D.
Session two: recalls the last line of session one from the history file with the up arrow and runs it.
Prints everything the terminal showed, then "EXIT <status>" for each session.
"""
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

LEFT, UP, BACKSPACE = b"\x1b[D", b"\x1b[A", b"\x7f"
recipes, home = sys.argv[1], sys.argv[2]


def enter(term, keys=b""):
    """Types `keys`, then Return, and waits for the next prompt."""
    term.type(keys)
    term.pump(0.3)
    mark = len(term.output)
    term.type(b"\r")
    term.wait_for("recipes> ", after=mark)


term = Terminal([recipes, "edit", "--home", home])
term.wait_for("recipes> ")
enter(term, "new Crème brûlée".encode())
enter(term, "ingredient add 1 ½ tsp salt".encode())
enter(term, 'step add 1 "Bake at 180 °C for 45 minutes."'.encode())
enter(term, "new 東京ラーメン 🍜".encode())
enter(term, UP)  # runs "new 東京ラーメン 🍜" again: recipe 3
enter(term, UP + BACKSPACE + "🍣".encode())  # recipe 4
enter(term, "title 1 Crème brûlée".encode() + LEFT * 6 + "très ".encode())
enter(term, "title 2 東京ラーメン".encode() + LEFT * 4 + "の".encode())
enter(term, b"title 4 Caf\xe9")  # not UTF-8: refused
enter(term, "new Gâteau ½ ° 🍰 北京".encode())  # recipe 5, the last line of the history
term.type(b"\x04")
term.pump(1.0)
term.finish()

term = Terminal([recipes, "edit", "--home", home])
term.wait_for("recipes> ")
enter(term, UP)  # recipe 6
term.type(b"\x04")
term.pump(1.0)
term.finish()
