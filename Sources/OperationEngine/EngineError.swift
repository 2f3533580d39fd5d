import Foundation

/// An error raised by the operation engine itself; its message says what went wrong and what to do.
public struct EngineError: LocalizedError, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        case unreachable(host: String, port: Int)
        case waitsOnItself(procedure: String, key: String, holder: String)
        case cancelled(procedure: String, reason: CancellationReason)
        case deferred(procedure: String, deferral: Deferral)
        case failed(procedure: String, error: any Error)
        case missingInput(procedure: String, dependency: String)
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// The host could not be reached, so the procedure did not run.
    public static func unreachable(host: String, port: Int) -> EngineError {
        EngineError(.unreachable(host: host, port: port))
    }

    /// A procedure needs an exclusivity key that is held, ahead of it, by a procedure depending on it: it would wait forever.
    public static func waitsOnItself(procedure: String, key: String, holder: String) -> EngineError {
        EngineError(.waitsOnItself(procedure: procedure, key: key, holder: holder))
    }

    /// The procedure was cancelled (thrown by `Procedure.value()`).
    public static func cancelled(procedure: String, reason: CancellationReason) -> EngineError {
        EngineError(.cancelled(procedure: procedure, reason: reason))
    }

    /// The procedure was deferred to a later run (thrown by `Procedure.value()`).
    public static func deferred(procedure: String, deferral: Deferral) -> EngineError {
        EngineError(.deferred(procedure: procedure, deferral: deferral))
    }

    /// A typed input was asked for but its dependency produced no value.
    public static func missingInput(procedure: String, dependency: String) -> EngineError {
        EngineError(.missingInput(procedure: procedure, dependency: dependency))
    }

    /// Whether this error means "the host is unreachable" (a "not now" failure for retry policies).
    public var isUnreachable: Bool {
        if case .unreachable = kind { return true }
        return false
    }

    /// Whether this error is the exclusivity self-wait error.
    public var isSelfWait: Bool {
        if case .waitsOnItself = kind { return true }
        return false
    }

    /// Whether this error reports a cancellation.
    public var isCancellation: Bool {
        if case .cancelled = kind { return true }
        return false
    }

    /// The message: what went wrong and what to do.
    public var errorDescription: String? {
        switch kind {
        case .unreachable(let host, let port):
            "\(host):\(port) is not reachable; nothing was sent. Check the network or the server address, then try again."
        case .waitsOnItself(let procedure, let key, let holder):
            "‘\(procedure)’ needs the exclusivity key \(key), which ‘\(holder)’ holds ahead of it while depending on ‘\(procedure)’; it would wait forever. Add a dependency to the queue before the procedures that depend on it, or give them different keys."
        case .cancelled(let procedure, let reason):
            "‘\(procedure)’ did not complete: \(reason). Run it again if it is still wanted."
        case .deferred(let procedure, let deferral):
            if let after = deferral.retryAfter {
                "‘\(procedure)’ will be retried after \(after) (attempt \(deferral.attempts) failed: \(errorMessage(deferral.error))); run again later."
            } else {
                "‘\(procedure)’ is waiting for the network (\(errorMessage(deferral.error))); run again when the host is reachable."
            }
        case .failed(let procedure, let error):
            "‘\(procedure)’ failed: \(errorMessage(error))"
        case .missingInput(let procedure, let dependency):
            "‘\(procedure)’ needs the result of ‘\(dependency)’, which did not produce one. Do not opt out of dependency-failure cancellation for procedures that take typed input."
        }
    }

    /// The same as `errorDescription`.
    public var description: String { errorDescription ?? "operation engine error" }
}

/// The message of any error: its `LocalizedError` description when it has one, else its description.
func errorMessage(_ error: any Error) -> String {
    if let localized = error as? any LocalizedError, let text = localized.errorDescription { return text }
    return String(describing: error)
}
