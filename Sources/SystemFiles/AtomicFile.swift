import CLinux
import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// A file written under a temporary name and renamed to its final name only once it is whole, so that the final name
/// never shows a partial file: the one way every writer of the package puts a file in place.
///
/// The caller names the temporary file (in the folder of the final name, or another folder of the same file system,
/// so that the rename is atomic; the names of the callers carry their writer, so that garbage collection can tell a
/// live writer's file from a dead one's). Bytes are written whole (`writeAll`), then `commit(to:flushing:)` closes the
/// file and renames it, with `fsync` of the file before and of the folder after when asked. The temporary file is
/// removed when a step fails, when it is discarded, and when this value is released before it was committed or kept:
/// a failure leaves nothing behind.
///
/// Sendable, so that a writer can hand it to the thread that does its blocking calls (the reference server's
/// uploads); its state is behind a lock, and the calls of one writer follow one another anyway.
public final class AtomicFile: Sendable {
    /// The `fsync` calls a commit makes (each waits for the disk).
    public struct Flush: OptionSet, Sendable {
        /// The bits of the set.
        public let rawValue: Int

        /// Creates the set from its bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `fsync` the file before it is renamed: its bytes are on disk before its name is.
        public static let file = Flush(rawValue: 1)
        /// `fsync` the folder of the final name after the rename: the new name survives a crash.
        public static let folder = Flush(rawValue: 2)
    }

    /// What is left to do with the temporary file.
    private enum Stage {
        /// Open for writing.
        case open(descriptor: Int32)
        /// Closed, complete, still under its temporary name.
        case closed
        /// Renamed, kept or removed: nothing left to do.
        case done
    }

    private struct State {
        var stage: Stage
        /// Bytes written through this value.
        var written: Int = 0
    }

    /// The temporary file's path.
    public let temporaryPath: String
    /// The folder `name` is looked up in: `AT_FDCWD` (and `name` is the whole path), or a descriptor this value owns.
    private let folder: Int32
    /// The temporary file's name in `folder`.
    private let name: String
    /// Whether the file existed before (`init(reusing:)`): it is cut to the bytes written when closed.
    private let reused: Bool
    private let state: Locked<State>

    private init(folder: Int32, name: String, temporaryPath: String, stage: Stage, reused: Bool) {
        self.folder = folder
        self.name = name
        self.temporaryPath = temporaryPath
        self.reused = reused
        state = Locked(State(stage: stage))
    }

    /// Creates a new, empty temporary file at `temporaryPath` (which must not exist, and is never followed if it is a
    /// symbolic link) with `permissions` (less the umask).
    public convenience init(creating temporaryPath: String, permissions: mode_t = 0o600) throws(ErrnoError) {
        let descriptor = open(temporaryPath, Self.createFlags, permissions)
        guard descriptor >= 0 else { throw ErrnoError(errno, .create, path: temporaryPath) }
        self.init(folder: AT_FDCWD, name: temporaryPath, temporaryPath: temporaryPath, stage: .open(descriptor: descriptor),
                  reused: false)
    }

    /// Creates a new, empty temporary file named `name` inside the open folder `folderDescriptor` (at `folderPath`, for
    /// messages) with `permissions` (less the umask).
    ///
    /// Every later step (rename, removal) looks the name up in that same folder, even if a symbolic link has replaced
    /// the folder's path meanwhile; the descriptor is duplicated, so the caller may close its own at any time.
    public convenience init(
        creating name: String, inFolder folderDescriptor: Int32, folderPath: String, permissions: mode_t = 0o600
    ) throws(ErrnoError) {
        let temporaryPath = folderPath + "/" + name
        let folder = fcntl(folderDescriptor, F_DUPFD_CLOEXEC, 0)
        guard folder >= 0 else { throw ErrnoError(errno, .open, path: folderPath) }
        let descriptor = openat(folder, name, Self.createFlags, permissions)
        guard descriptor >= 0 else {
            let code = errno
            Glibc.close(folder)
            throw ErrnoError(code, .create, path: temporaryPath)
        }
        self.init(folder: folder, name: name, temporaryPath: temporaryPath, stage: .open(descriptor: descriptor),
                  reused: false)
    }

    /// Takes the existing file at `path` as the temporary file: its bytes are overwritten from the start, and
    /// whatever lies past the last byte written is cut off when it is closed.
    ///
    /// For a writer that has a finished file to spare: renaming it allocates nothing, where creating a file does (see
    /// the outbox). The file is not created when missing, and a symbolic link at `path` is not followed.
    public convenience init(reusing path: String) throws(ErrnoError) {
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw ErrnoError(errno, .open, path: path) }
        self.init(folder: AT_FDCWD, name: path, temporaryPath: path, stage: .open(descriptor: descriptor), reused: true)
    }

    /// Takes the existing file at `path` as the temporary file, to add to it: bytes written go after its last byte.
    ///
    /// For a file kept between writers (a partial upload resumed later). The file is not created when missing, and a
    /// symbolic link at `path` is not followed; like any temporary file it is removed unless committed or kept.
    public convenience init(appendingTo path: String) throws(ErrnoError) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw ErrnoError(errno, .open, path: path) }
        self.init(folder: AT_FDCWD, name: path, temporaryPath: path, stage: .open(descriptor: descriptor), reused: false)
    }

    /// Takes over the complete temporary file at `temporaryPath`, written and closed earlier by a value that `keep()`
    /// released it from, so as to commit or discard it.
    public convenience init(adopting temporaryPath: String) {
        self.init(folder: AT_FDCWD, name: temporaryPath, temporaryPath: temporaryPath, stage: .closed, reused: false)
    }

    deinit {
        discard()
        if folder != AT_FDCWD { Glibc.close(folder) }
    }

    /// `open` flags of a new temporary file: created here or refused (also when a link is at the name).
    private static let createFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC

    /// Appends `bytes` (see `writeAll` for interrupted and short writes).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ErrnoError) {
        try step { (state) throws(ErrnoError) in
            guard case .open(let descriptor) = state.stage else { throw ErrnoError(EBADF, .write, path: temporaryPath) }
            try writeAll(bytes, to: descriptor, path: temporaryPath)
            state.written += bytes.count
        }
    }

    /// Appends the bytes of `data` (a `Data`, an array of bytes).
    public func write(_ data: some ContiguousBytes) throws(ErrnoError) {
        let failure: ErrnoError? = data.withUnsafeBytes { bytes in
            do throws(ErrnoError) {
                try write(bytes)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// `fsync`s the file, so its bytes are on disk; does nothing once it is closed.
    public func flush() throws(ErrnoError) {
        try step { (state) throws(ErrnoError) in
            guard case .open(let descriptor) = state.stage else { return }
            guard fsync(descriptor) == 0 else { throw ErrnoError(errno, .flush, path: temporaryPath) }
        }
    }

    /// Ends the writing: a reused file longer than what was written is cut to length, and the file is closed. Does
    /// nothing when it is closed already.
    public func close() throws(ErrnoError) {
        try step { (state) throws(ErrnoError) in try end(&state) }
    }

    /// Puts the file in place under `finalPath` (replacing a file there): flushes it when `flushing` says so, closes
    /// it, renames it, then flushes the folder of `finalPath` when `flushing` says so.
    ///
    /// A failure to flush the folder leaves the file in place (the rename happened) and is still thrown, since the
    /// new name may not survive a crash.
    public func commit(to finalPath: String, flushing: Flush = []) throws(ErrnoError) {
        try step { (state) throws(ErrnoError) in
            if flushing.contains(.file), case .open(let descriptor) = state.stage, fsync(descriptor) != 0 {
                throw ErrnoError(errno, .flush, path: temporaryPath)
            }
            try end(&state)
            guard case .closed = state.stage else { throw ErrnoError(ENOENT, .rename(from: temporaryPath), path: finalPath) }
            guard renameat(folder, name, AT_FDCWD, finalPath) == 0 else {
                throw ErrnoError(errno, .rename(from: temporaryPath), path: finalPath)
            }
            state.stage = .done
        }
        if flushing.contains(.folder) { try Self.flushFolder(containing: finalPath) }
    }

    /// Closes the file and leaves it under its temporary name, no longer removed by this value; answers its path, for
    /// `init(adopting:)` to commit or discard it later.
    public func keep() throws(ErrnoError) -> String {
        try step { (state) throws(ErrnoError) in
            try end(&state)
            state.stage = .done
        }
        return temporaryPath
    }

    /// Closes and removes the temporary file, unless it was committed or kept.
    ///
    /// Never throws: there is nothing left to do about a temporary file that cannot be removed (its writer's name in
    /// it lets garbage collection find it).
    public func discard() {
        state.withLock { state in remove(&state) }
    }

    /// Runs one step under the lock; when it fails, the temporary file is removed before the error is thrown, so a
    /// failure leaves nothing behind.
    private func step(_ body: (inout State) throws(ErrnoError) -> Void) throws(ErrnoError) {
        let failure: ErrnoError? = state.withLock { state in
            do throws(ErrnoError) {
                try body(&state)
                return nil
            } catch {
                remove(&state)
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Closes the open file; cuts a reused file to the bytes written first, when it is longer.
    private func end(_ state: inout State) throws(ErrnoError) {
        guard case .open(let descriptor) = state.stage else { return }
        state.stage = .closed
        defer { Glibc.close(descriptor) }
        // Only cut when longer: truncating every time frees blocks that the next write of the file allocates again.
        guard reused else { return }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw ErrnoError(errno, .inspect, path: temporaryPath) }
        if Int(info.st_size) > state.written, ftruncate(descriptor, off_t(state.written)) != 0 {
            throw ErrnoError(errno, .truncate, path: temporaryPath)
        }
    }

    /// Closes the file if open and unlinks it, unless it was committed or kept.
    private func remove(_ state: inout State) {
        if case .open(let descriptor) = state.stage { Glibc.close(descriptor) }
        if case .done = state.stage { return }
        state.stage = .done
        unlinkat(folder, name, 0)
    }

    /// Writes every file of the file system holding the folder `path` to disk, at once (`syncfs`): for a batch of
    /// files about to be committed without a `fsync` each, one disk commit instead of one per file.
    public static func flushFileSystem(of path: String) throws(ErrnoError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ErrnoError(errno, .open, path: path) }
        defer { Glibc.close(descriptor) }
        guard recipes_syncfs(descriptor) == 0 else { throw ErrnoError(errno, .flush, path: path) }
    }

    /// `fsync`s the folder that holds `path`, so that a name just created or renamed in it survives a crash.
    public static func flushFolder(containing path: String) throws(ErrnoError) {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { $0 == path.utf8.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ErrnoError(errno, .flushFolder, path: folder) }
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ErrnoError(errno, .flushFolder, path: folder) }
    }
}
