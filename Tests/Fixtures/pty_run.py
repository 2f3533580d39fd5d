#!/usr/bin/env python3
"""Runs one command on a pseudo-terminal, as a person would at a shell prompt, and shows what the terminal showed.

Usage: pty_run.py COLUMNS PROGRAM [ARGUMENT...]   (the environment is passed on as it is)
Prints everything the terminal showed (bytes as they came, escape sequences included), then "EXIT <status>".
"""
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pty_driver import Terminal

term = Terminal(sys.argv[2:], columns=int(sys.argv[1]))
term.pump(120)  # until the program closes the terminal (it ends), at most two minutes
term.finish()
