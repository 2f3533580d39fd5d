import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The files SQLite keeps one home's database in: `recipes.sqlite3` and its `-wal`, `-shm` and `-journal`.
///
/// Only SQLite may open them. Closing any other descriptor of one of them drops every POSIX lock the process holds
/// on that file, SQLite's own included; another process then takes itself for the database's last user and removes
/// the WAL under this one, losing and corrupting what it wrote
/// (https://www.sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_).
/// So every file a person names (an image to attach, a file to import) and every file of the home recipes opens
/// itself is looked at before it is opened (`stat` opens nothing), and what was opened is checked again with
/// `fstat`: a descriptor that turns out to be one of these files is never closed.
public struct DatabaseFiles: Sendable {
    /// The database file's path.
    let path: String

    /// The database files of `home`.
    public init(home: RecipesHome) { path = home.databaseURL.path }

    /// Whether `other` names one of the files as they are now (through a link, too).
    public func contains(path other: String) -> Bool {
        var info = stat()
        return stat(other, &info) == 0 && contains(info)
    }

    /// Whether the open `descriptor` is one of them (then it must never be closed).
    public func contains(descriptor: Int32) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && contains(info)
    }

    /// Whether the file `info` describes (from `stat` or `fstat`) is one of them.
    func contains(_ info: stat) -> Bool {
        ["", "-wal", "-shm", "-journal"].contains { suffix in
            var own = stat()
            return stat(path + suffix, &own) == 0 && own.st_dev == info.st_dev && own.st_ino == info.st_ino
        }
    }
}

/// A file a person named, opened for reading: only a regular file, never one of the home's database files.
public enum UserFile {
    /// Why a file was not opened (or read).
    public enum Refusal: Error, Sendable, Equatable {
        /// There is no such file.
        case notFound
        /// It is not a regular file: a folder, a named pipe, a socket or a device.
        case notRegular(StoreError.SpecialFile)
        /// It is the home's database or one of its files, which only SQLite opens.
        case databaseFile
        /// It could not be opened or read (the system's words).
        case unreadable(String)
        /// It is larger than the caller reads (its size in bytes).
        case tooLarge(Int64)
    }

    /// Opens `path` for reading when it is a regular file (a symbolic link to one counts) other than one of
    /// `database`'s files, and answers the descriptor and the file's size; anything else is refused.
    ///
    /// `open` on a named pipe waits until a writer appears, and opening a device can have effects of its own, so the
    /// type is checked with `stat` before opening; the open itself does not wait (`O_NONBLOCK`) and does not take a
    /// controlling terminal, and `fstat` checks again what was opened, in case the path was replaced in between. A
    /// descriptor of a database file is kept open, never closed (see `DatabaseFiles`).
    static func open(_ path: String, refusing database: DatabaseFiles) throws(Refusal) -> (descriptor: Int32, size: Int64) {
        func failure(_ code: Int32) -> Refusal {
            if code == ENOENT || code == ENOTDIR { return .notFound }
            return .unreadable(ErrnoError(code, .open, path: path).reason)
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(errno) }
        if let special = specialFile(info.st_mode) { throw .notRegular(special) }
        if database.contains(info) { throw .databaseFile }
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno) }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0 else {
            let code = errno
            close(descriptor)
            throw failure(code)
        }
        if database.contains(opened) { throw .databaseFile }  // swapped in since the `stat`: left open (see above)
        if let special = specialFile(opened.st_mode) {
            close(descriptor)
            throw .notRegular(special)
        }
        // Reads of a regular file do not wait anyway; the flag is cleared so that they never report EAGAIN.
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return (descriptor, Int64(opened.st_size))
    }

    /// The whole of the regular file `path`, at most `maxBytes` (see `open(_:refusing:)`).
    public static func read(_ path: String, maxBytes: Int64, refusing database: DatabaseFiles) throws(Refusal) -> Data {
        let (descriptor, size) = try open(path, refusing: database)
        defer { close(descriptor) }
        guard size <= maxBytes else { throw .tooLarge(size) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(ErrnoError(errno, .read, path: path).reason)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            if Int64(data.count) > maxBytes { throw .tooLarge(Int64(data.count)) }
        }
    }

    /// What a file of mode `mode` is when it is not a regular file, or nil for a regular file.
    static func specialFile(_ mode: mode_t) -> StoreError.SpecialFile? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: .folder
        case S_IFIFO: .namedPipe
        case S_IFSOCK: .socket
        case S_IFCHR, S_IFBLK: .device
        default: .other
        }
    }
}
