/// How a procedure ended; every procedure has exactly one outcome.
public enum ProcedureOutcome: Sendable {
    /// The work ran and returned.
    case succeeded
    /// A condition failed or the work threw an error the retry policy does not retry.
    case failed(any Error)
    /// The procedure was cancelled before or while running.
    // `indirect` (here and for `deferred`): the rare large payloads are boxed, so that every procedure's room for
    // an outcome stays small.
    indirect case cancelled(CancellationReason)
    /// The work must be tried again later, outside this run (a long backoff, or the host was unreachable).
    indirect case deferred(Deferral)

    /// Whether the procedure succeeded.
    public var isSuccess: Bool {
        if case .succeeded = self { return true }
        return false
    }

    /// Whether the procedure was cancelled.
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// The error behind a failure, a deferral or a dependency-caused cancellation; `nil` on success.
    public var error: (any Error)? {
        switch self {
        case .succeeded: nil
        case .failed(let error): error
        case .deferred(let deferral): deferral.error
        case .cancelled(let reason): reason.underlyingError
        }
    }

    /// A short word for the outcome, as used in event streams: `done`, `failed`, `cancelled` or `deferred`.
    public var word: String {
        switch self {
        case .succeeded: "done"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .deferred: "deferred"
        }
    }
}

/// Why a procedure was deferred: the last error, when it may be retried, and how many attempts were used.
public struct Deferral: Sendable {
    /// The error of the last attempt or condition evaluation.
    public var error: any Error
    /// The backoff still to wait before the next attempt, or `nil` when it waits for the network to come back.
    public var retryAfter: Duration?
    /// Attempts counted so far, including those of earlier runs.
    public var attempts: Int

    /// Creates a deferral.
    public init(error: any Error, retryAfter: Duration?, attempts: Int) {
        self.error = error
        self.retryAfter = retryAfter
        self.attempts = attempts
    }
}

/// Why a procedure was cancelled.
public enum CancellationReason: Sendable, CustomStringConvertible {
    /// Someone asked for it (a user command, cancel by key, cancel all); the text says who.
    case requested(String)
    /// A timeout observer fired after this duration.
    case timedOut(after: Duration)
    /// A dependency failed with this error (or was deferred), so this procedure cannot run.
    // `indirect`: boxed, so that every procedure's room for a reason stays small.
    indirect case dependencyFailed(dependency: String, error: any Error)
    /// A dependency was itself cancelled.
    case dependencyCancelled(dependency: String)

    /// The error that caused the cancellation, when there is one.
    public var underlyingError: (any Error)? {
        if case .dependencyFailed(_, let error) = self { return error }
        return nil
    }

    /// The reason in words.
    public var description: String {
        switch self {
        case .requested(let who): "cancelled: \(who)"
        case .timedOut(let after): "timed out after \(after)"
        case .dependencyFailed(let dependency, let error):
            "dependency ‘\(dependency)’ failed: \(errorMessage(error))"
        case .dependencyCancelled(let dependency): "dependency ‘\(dependency)’ was cancelled"
        }
    }
}
