"""A program on a pseudo-terminal, driven as a person at a keyboard would: shared by the pty_*.py scripts."""
import fcntl, os, pty, select, struct, termios, time


class Terminal:
    """Starts `argv` on a new pty (`columns` × `rows` when given); `output` holds everything the terminal showed so far."""

    def __init__(self, argv, columns=None, rows=24):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            if columns:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            os.execv(argv[0], argv)
        self.output = b""

    def pump(self, seconds):
        """Reads what the program writes for `seconds` (less if it closes the terminal)."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.02)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    return
                if not chunk:
                    return
                self.output += chunk

    def wait_for(self, text, seconds=60, after=0):
        """Reads until `text` appears after offset `after`, at most `seconds`; whether it did."""
        deadline = time.time() + seconds
        while self.output.find(text.encode(), after) < 0 and time.time() < deadline:
            self.pump(0.02)
        return self.output.find(text.encode(), after) >= 0

    def type(self, keys):
        """Types `keys` (bytes, e.g. b"list\\r" or b"\\x03" for Ctrl-C)."""
        os.write(self.fd, keys)

    def finish(self):
        """Waits for the program to end; prints what the terminal showed, then "EXIT <status>"."""
        _, status = os.waitpid(self.pid, 0)
        print(self.output.decode("utf-8", "replace"))
        print(f"EXIT {os.waitstatus_to_exitcode(status)}")
