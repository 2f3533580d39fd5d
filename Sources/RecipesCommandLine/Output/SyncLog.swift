import Foundation
import RecipeStore
import Locking
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// `<home>/logs/sync.log`: lines appended by background runs, rotated past a size (about 1 MiB) into
/// `sync.log.1` … `sync.log.3`, the oldest dropped.
///
/// Several `recipes` processes may write at once (cron and a manual run), so the file is opened with `O_APPEND`
/// and each line goes out in one `write(2)`: lines of different processes never mix. Rotation happens under an
/// exclusive `flock` on `<logs>/.lock`, and the size is checked again once the lock is held, so two processes
/// that both see a full log rotate it once. A process still holding the old file notices (its file is full, or
/// unlinked) and reopens `sync.log`. A log that cannot be written is reported once on stderr and the run goes on.
final class SyncLog: Sendable {
    /// The size past which the log is rotated.
    static let defaultRotationBytes: Int64 = 1 << 20
    /// Rotated generations kept (`sync.log.1` … `sync.log.3`).
    static let defaultGenerations = 3

    /// The logs folder.
    let directory: URL
    /// `sync.log` in it.
    let path: String
    let rotationBytes: Int64
    let generations: Int

    private struct State {
        /// The open log, or -1.
        var descriptor: Int32 = -1
        /// Whether a failure was already reported.
        var reported = false
    }

    private let console: any Console
    /// The descriptor; held while writing, so that the process's own lines stay in order.
    private let state = Locked(State())

    /// A log in `directory` (created with mode 0700 at the first line, when missing); problems go to `console`.
    init(
        directory: URL, rotationBytes: Int64 = defaultRotationBytes, generations: Int = defaultGenerations,
        console: any Console
    ) {
        self.directory = directory
        self.path = directory.appendingPathComponent("sync.log").path
        self.rotationBytes = max(1, rotationBytes)
        self.generations = max(1, generations)
        self.console = console
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
        }
    }

    /// Appends `line` (without its newline) as one line.
    func append(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        state.withLock { state in
            do {
                try prepare(&state)
            } catch {
                report(error, &state)
                guard state.descriptor >= 0 else { return }  // a log that cannot be rotated still takes the line
            }
            do {
                try writeLine(bytes, &state)
            } catch {
                report(error, &state)
            }
        }
    }

    /// Reports the first failure on stderr; later ones would only repeat it.
    private func report(_ error: any Error, _ state: inout State) {
        guard !state.reported else { return }
        state.reported = true
        let reason = (error as? LogFailure)?.reason ?? "\(error)"
        console.err("recipes: cannot write \(path): \(reason)\n")
    }

    /// Opens the log when it is not open, or reopens it when the open file is full (after rotating it, unless
    /// another process did) or was removed.
    private func prepare(_ state: inout State) throws(LogFailure) {
        if state.descriptor < 0 { try openLog(&state) }
        var info = stat()
        guard fstat(state.descriptor, &info) == 0 else { throw LogFailure(errno) }
        if info.st_nlink == 0 {
            try reopen(&state)
        } else if Int64(info.st_size) >= rotationBytes {
            try rotate()
            try reopen(&state)
        }
    }

    /// Shifts the generations under the lock, if `sync.log` is still full once the lock is held.
    private func rotate() throws(LogFailure) {
        let lockPath = directory.appendingPathComponent(".lock").path
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw LogFailure(ErrnoError(errno, .open, path: lockPath)) }
        defer { close(lock) }  // closing releases the lock
        while flock(lock, LOCK_EX) != 0 {
            let code = errno
            guard code == EINTR else { throw LogFailure(ErrnoError(code, .lock, path: lockPath)) }
        }
        var info = stat()
        guard stat(path, &info) == 0, Int64(info.st_size) >= rotationBytes else { return }  // rotated meanwhile
        unlink("\(path).\(generations)")
        for generation in stride(from: generations - 1, through: 1, by: -1) {
            rename("\(path).\(generation)", "\(path).\(generation + 1)")
        }
        guard rename(path, "\(path).1") == 0 else { throw LogFailure(errno) }
    }

    private func reopen(_ state: inout State) throws(LogFailure) {
        close(state.descriptor)
        state.descriptor = -1
        try openLog(&state)
    }

    /// Opens `sync.log` for appending (mode 0600), creating the folder (mode 0700) when missing.
    private func openLog(_ state: inout State) throws(LogFailure) {
        var descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == ENOENT {
            try makeDirectory()
            descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else { throw LogFailure(errno) }
        // A log that is the home's database (a link put there) is never written, nor its descriptor closed.
        if DatabaseFiles(home: RecipesHome(url: directory.deletingLastPathComponent(), isExplicit: true))
            .contains(descriptor: descriptor) {
            throw LogFailure(reason: "\(path) is the home's database (a link to it), which only SQLite may write")
        }
        state.descriptor = descriptor
    }

    private func makeDirectory() throws(LogFailure) {
        let parent = directory.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw LogFailure(reason: "cannot create \(parent)")
        }
        if mkdir(directory.path, 0o700) == 0 {
            chmod(directory.path, 0o700)
        } else if errno != EEXIST {
            throw LogFailure(ErrnoError(errno, .makeFolder, path: directory.path))
        }
    }

    /// One `write(2)` of the whole line (again only when interrupted before writing anything).
    private func writeLine(_ bytes: [UInt8], _ state: inout State) throws(LogFailure) {
        var written: Int
        repeat {
            written = bytes.withUnsafeBytes { write(state.descriptor, $0.baseAddress, $0.count) }
        } while written < 0 && errno == EINTR
        if written < 0 { throw LogFailure(errno) }
        if written < bytes.count { throw LogFailure(reason: "only \(written) of \(bytes.count) bytes written (disk full?)") }
    }

    /// Why the log could not be written, in words.
    private struct LogFailure: Error {
        var reason: String

        init(reason: String) { self.reason = reason }
        /// A call on the log itself failed with `code` (the report names the log).
        init(_ code: Int32) { reason = ErrnoError.describe(code) }
        /// A call on another file failed: that file is named.
        init(_ error: ErrnoError) { reason = "\(error.path): \(error.reason)" }
    }
}
