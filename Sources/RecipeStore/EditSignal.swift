import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The signal every committed edit sends to `recipes sync --watch`: one byte written to `<home>/watch.fifo`, the FIFO
/// the watcher makes and keeps open while it runs. Sent by `RecipeStore.edit` after its transaction commits, so every
/// command that changes a recipe (REPL, one-shot commands, the edit card, import, resolve, delete) sends it from one
/// place. Why a FIFO, and what it costs an edit, is in docs/watch.md.
///
/// Cheap when no watcher runs: a home where none ever ran has no FIFO (one `lstat` that fails); a FIFO left by a
/// stopped watcher takes an `open`, a one-byte `write` and a `close`, the byte going away with the pipe. The FIFO is
/// opened for reading and writing, so that the write never raises SIGPIPE (this process is a reader itself) and the
/// open never waits; it is non-blocking, so a watcher that does not read (stopped with SIGSTOP) never holds an edit
/// up. Anything at that path that is not a FIFO is left alone, never opened.
public enum EditSignal {
    /// Sends the signal to the watcher of `home`, if one runs; never fails, never blocks.
    public static func send(to home: RecipesHome) {
        let path = home.editSignalURL.path
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO else { return }
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        var byte: UInt8 = 0x65  // "e"
        _ = write(descriptor, &byte, 1)  // EAGAIN: the pipe is full, the watcher is woken already
        close(descriptor)
    }
}
