import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A system call that failed: its `errno`, what it was doing and the path it was doing it to.
///
/// The one place where `errno` becomes words. Each layer keeps its own error type for what a failure means to the
/// person at the terminal and puts `reason` (or the whole `errorDescription`) into its message.
public struct ErrnoError: Error, LocalizedError, Sendable, Equatable {
    /// What the failed call was doing, worded as the verb of "cannot … <path>".
    public enum Operation: Sendable, Equatable {
        /// Creating a new file.
        case create
        /// Opening an existing file or folder.
        case open
        /// Reading a file.
        case read
        /// Writing a file.
        case write
        /// Looking up a file's size or type (`stat`).
        case inspect
        /// Cutting a file to length.
        case truncate
        /// `fsync` of a file.
        case flush
        /// `fsync` of a folder, making the names changed in it durable.
        case flushFolder
        /// Renaming the file at `from` to the error's path.
        case rename(from: String)
        /// Linking the file at `from` under the error's path.
        case link(from: String)
        /// Removing a file.
        case remove
        /// Creating a folder.
        case makeFolder
        /// Listing a folder.
        case list
        /// Taking a lock on a file.
        case lock
    }

    /// The `errno` value.
    public var code: Int32
    /// What the call was doing.
    public var operation: Operation
    /// The path it was doing it to (for a rename, the new name).
    public var path: String

    /// Creates the error of a call that set `errno` to `code`.
    ///
    /// `code` comes first so that `ErrnoError(errno, .write, path: folder + "/" + name)` reads `errno` before the
    /// other arguments are built (building a string may allocate, and an allocation may change `errno`).
    public init(_ code: Int32, _ operation: Operation, path: String) {
        self.code = code
        self.operation = operation
        self.path = path
    }

    /// The system's words for `code`, for example "No space left on device".
    public var reason: String { Self.describe(code) }

    /// What failed and why in one line, for example "cannot write /x/y: No space left on device".
    public var errorDescription: String? {
        let what: String
        switch operation {
        case .create: what = "create \(path)"
        case .open: what = "open \(path)"
        case .read: what = "read \(path)"
        case .write: what = "write \(path)"
        case .inspect: what = "inspect \(path)"
        case .truncate: what = "truncate \(path)"
        case .flush: what = "flush \(path) to disk"
        case .flushFolder: what = "flush the folder \(path) to disk"
        case .rename(let from): what = "rename \(from) to \(path)"
        case .link(let from): what = "link \(from) to \(path)"
        case .remove: what = "remove \(path)"
        case .makeFolder: what = "create the folder \(path)"
        case .list: what = "list the folder \(path)"
        case .lock: what = "lock \(path)"
        }
        return "cannot \(what): \(reason)"
    }

    /// The system's words for the `errno` value `code` (`strerror`).
    public static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The `errno` value a Foundation error carries (a `POSIXError`, or an `NSError` of the POSIX domain), if any.
    public static func code(of error: any Error) -> Int32? {
        if let posix = error as? POSIXError { return posix.code.rawValue }
        let ns = error as NSError
        return ns.domain == NSPOSIXErrorDomain ? Int32(ns.code) : nil
    }
}
