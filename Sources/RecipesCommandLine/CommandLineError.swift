import Foundation

/// A failure of a command, worded for the person at the terminal: what is wrong and what to do.
public struct CommandLineError: Error, LocalizedError, Sendable, Equatable {
    /// The one-line message.
    public var message: String

    /// The exit status of a command that stops on it: 1, or 78 for a configuration this build cannot act on
    /// (EX_CONFIG of sysexits.h).
    public var exitStatus: Int32

    /// Creates an error with a one-line message and its exit status.
    public init(_ message: String, exitStatus: Int32 = 1) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// The one-line message.
    public var errorDescription: String? { message }
}
