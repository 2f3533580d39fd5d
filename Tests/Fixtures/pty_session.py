#!/usr/bin/env python3
"""Drives `recipes edit` on a pseudo-terminal, as a person at a keyboard would.

Usage: pty_session.py RECIPES HOME
Types: "new Soup", a tab-completed "ingr<TAB>" command, a half line cancelled with Ctrl-C, "list", then Ctrl-D.
Prints everything the terminal showed, then "EXIT <status>".
"""
import os, pty, select, sys, time

recipes, home = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(recipes, [recipes, "edit", "--home", home])

output = b""
def pump(seconds):
    global output
    deadline = time.time() + seconds
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            output += chunk

def wait_for(text, seconds=10):
    deadline = time.time() + seconds
    while text.encode() not in output and time.time() < deadline:
        pump(0.05)

wait_for("recipes> ")
os.write(fd, b"new Soup\r"); wait_for("created 1")
os.write(fd, b"ingr\t"); pump(0.3)
os.write(fd, b" add 1 water\r"); pump(0.5)
os.write(fd, b"title 1 half typed"); pump(0.3)
os.write(fd, b"\x03"); pump(0.5)
os.write(fd, b"list\r"); wait_for("TITLE")
pump(0.3)
os.write(fd, b"\x04"); pump(1.0)
_, status = os.waitpid(pid, 0)
sys.stdout.write(output.decode("utf-8", "replace"))
print(f"\nEXIT {os.waitstatus_to_exitcode(status)}")
