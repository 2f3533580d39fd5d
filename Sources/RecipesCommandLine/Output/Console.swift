import Foundation

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

    public func out(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
    public func err(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
