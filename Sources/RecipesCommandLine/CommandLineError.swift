import Foundation

/// A failure of a command, worded for the person at the terminal: what is wrong and what to do.
public struct CommandLineError: Error, LocalizedError, Sendable, Equatable {
    /// The one-line message.
    public var message: String

    /// Creates an error with a one-line message.
    public init(_ message: String) { self.message = message }

    /// The one-line message.
    public var errorDescription: String? { message }
}
