#!/usr/bin/env python3
"""Drives `recipes edit` on a pseudo-terminal through a sync that Ctrl-C interrupts, as a person would.

Usage: pty_repl_sync.py RECIPES HOME   (RECIPES_SERVER_URL in the environment points at a server that stalls images)
Types: "sync" (recipe 1's image upload stalls), Ctrl-C once it is uploading, then "status 1", then Ctrl-D.
Prints everything the terminal showed, a line "PROMPT-AFTER-CTRL-C <seconds>" (how long until the prompt was back),
then "EXIT <status>".
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
        ready, _, _ = select.select([fd], [], [], 0.02)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            output += chunk

def wait_for(text, seconds=10, after=0):
    deadline = time.time() + seconds
    while output.find(text.encode(), after) < 0 and time.time() < deadline:
        pump(0.02)
    return output.find(text.encode(), after) >= 0

wait_for("recipes> ")
os.write(fd, b"sync\r")
wait_for("image")           # the progress row of recipe 1's image step
pump(0.5)                   # the PUT is on the wire, and the server never answers
mark = len(output)
os.write(fd, b"\x03")
started = time.time()
back = wait_for("recipes> ", seconds=10, after=mark)
elapsed = time.time() - started if back else -1
pump(0.2)
os.write(fd, b"status 1\r"); wait_for("WHY NOT SYNCED", after=mark)
pump(0.3)
os.write(fd, b"\x04"); pump(1.0)
_, status = os.waitpid(pid, 0)
sys.stdout.write(output.decode("utf-8", "replace"))
print(f"\nPROMPT-AFTER-CTRL-C {elapsed:.3f}")
print(f"EXIT {os.waitstatus_to_exitcode(status)}")
