import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The person's text editor, run on a file as git runs it: `$VISUAL`, else `$EDITOR`, else `vi`, through `/bin/sh`
/// (so `code --wait` or `emacs -nw` work), on this terminal, with default signal handling in the editor.
///
/// While it runs this process ignores SIGINT and SIGQUIT (a Ctrl-C meant for the editor must not end the REPL); the
/// editor starts with no signal blocked (Swift's threads block them all, and a child inherits its parent thread's
/// mask) and SIGINT, SIGQUIT and SIGPIPE at their defaults.
struct EditorProcess {
    /// The editor command, as the shell reads it.
    var command: String

    /// The editor `environment` names: `VISUAL`, else `EDITOR`, else `vi` (empty values do not count).
    init(environment: [String: String]) {
        let chosen = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }
            .first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        command = chosen ?? "vi"
    }

    /// Runs the editor on `path` and answers its exit status (128 + n when signal n ended it).
    func edit(_ path: String) async throws -> Int32 {
        let argv = ["/bin/sh", "-c", command + " \"$@\"", command, path]
        var previousInterrupt = sigaction()
        var previousQuit = sigaction()
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&ignore.sa_mask)
        sigaction(SIGINT, &ignore, &previousInterrupt)
        sigaction(SIGQUIT, &ignore, &previousQuit)
        defer {
            sigaction(SIGINT, &previousInterrupt, nil)
            sigaction(SIGQUIT, &previousQuit, nil)
        }
        let pid = try Self.spawn(argv)
        return await withCheckedContinuation { continuation in
            // A thread of its own for the blocking wait: the editor may stay open for an hour.
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let exited = status & 0x7F == 0
                continuation.resume(returning: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
            }
        }
    }

    /// Starts `argv` with this process's environment and descriptors.
    private static func spawn(_ argv: [String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGQUIT, SIGPIPE, SIGTERM] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, argv[0], nil, &attributes, &cArguments, environ)
        guard result == 0 else {
            throw CommandLineError("cannot start the editor (\(ErrnoError.describe(result))); set VISUAL or EDITOR")
        }
        return pid
    }
}
