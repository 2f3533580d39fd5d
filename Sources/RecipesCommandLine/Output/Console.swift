import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// Where a command's output goes: standard output for results, standard error for one-line problems.
public protocol Console: Sendable {
    /// Writes `text` (which carries its own newlines) to standard output.
    func out(_ text: String)
    /// Writes `text` (which carries its own newlines) to standard error.
    func err(_ text: String)
}

/// The process's own standard output and error, written unbuffered so that pipes see each line at once.
public struct StandardConsole: Console {
    /// Creates the console of this process.
    public init() {}

    public func out(_ text: String) { Self.write(text, to: STDOUT_FILENO) }
    public func err(_ text: String) { Self.write(text, to: STDERR_FILENO) }

    /// Writes all of `text` with write(2) (`writeAll`), straight from the string's bytes (no `Data`, no `FileHandle`:
    /// a sync writes thousands of lines). Gives up silently when the reader is gone or the descriptor fails.
    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { bytes in try? writeAll(UnsafeRawBufferPointer(bytes), to: fd, path: "standard output or error") }
    }
}
