/// How a failure should be treated by a retry policy.
public enum FailureKind: Sendable, Equatable {
    /// Worth retrying after a backoff; a server-given delay (`Retry-After`) wins when it is longer.
    case transient(retryAfter: Duration?)
    /// Retrying will not help.
    case permanent
    /// Not now: a precondition such as reachability does not hold; wait without counting an attempt.
    case notNow
}

/// An error that knows how a retry policy should treat it.
public protocol RetryClassifiable: Error {
    /// The failure's class.
    var failureKind: FailureKind { get }
}

/// What to do after a failed attempt or condition; the result of `RetryPolicy.decide`.
public enum RetryDecision: Sendable, Equatable {
    /// Try again after this delay, in this run.
    case retry(after: Duration)
    /// Wait this long for the network and re-evaluate, without counting an attempt.
    case waitForNetwork(Duration)
    /// The wait is longer than this run accepts: finish as deferred, to be retried after this delay.
    case deferRetry(after: Duration)
    /// The network did not come back in time: finish as deferred until it is reachable.
    case deferUntilReachable
    /// Give up: finish as failed.
    case fail
}

/// A retry policy: attempts, exponential backoff with full jitter and a cap, `Retry-After`, and error classes.
///
/// The decision is a plain function (`decide`) of the error, the attempt number, the time already spent waiting
/// for the network and a random fraction, so it is tested without clocks or I/O.
public struct RetryPolicy: Sendable {
    /// The most attempts in total (earlier runs included); the attempt that reaches it is not retried.
    public var maxAttempts: Int
    /// The backoff ceiling before the first retry; it doubles with every further attempt.
    public var baseDelay: Duration
    /// The highest backoff ceiling, whatever the attempt.
    public var maxDelay: Duration
    /// The longest wait a server's `Retry-After` can ask for; a longer one is cut to this, so that one answer
    /// cannot park a procedure for years.
    public var maxRetryAfter: Duration
    /// The longest wait slept out inside a run; longer waits finish the procedure as deferred. `nil`: no limit.
    public var maxInRunDelay: Duration?
    /// How long a "not now" failure (unreachable host) may be waited out in this run; zero defers at once.
    public var networkWait: Duration
    /// How often reachability is re-evaluated while waiting for the network.
    public var networkPollInterval: Duration
    /// Sorts errors into transient, permanent and "not now".
    public var classify: @Sendable (any Error) -> FailureKind

    /// Creates a policy.
    public init(
        maxAttempts: Int = 8,
        baseDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(300),
        maxRetryAfter: Duration = .seconds(86_400),
        maxInRunDelay: Duration? = .seconds(30),
        networkWait: Duration = .zero,
        networkPollInterval: Duration = .seconds(1),
        classify: @escaping @Sendable (any Error) -> FailureKind = RetryPolicy.defaultClassification
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.maxInRunDelay = maxInRunDelay
        self.networkWait = networkWait
        self.networkPollInterval = networkPollInterval
        self.classify = classify
    }

    /// One attempt, no retry; "not now" failures defer at once.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The contract's default: 8 attempts, 1 s doubling to at most 5 min, `Retry-After` up to 24 h, waits over 30 s
    /// deferred.
    public static let standard = RetryPolicy()

    /// The default classification: a `RetryClassifiable` error says itself; an unreachable host is "not now";
    /// anything else (including cancellation) is permanent.
    public static let defaultClassification: @Sendable (any Error) -> FailureKind = { error in
        if let classifiable = error as? any RetryClassifiable { return classifiable.failureKind }
        if let engine = error as? EngineError, engine.isUnreachable { return .notNow }
        return .permanent
    }

    /// The full-jitter backoff after failed attempt `attempt` (1-based): `fraction × min(maxDelay, baseDelay × 2^(attempt-1))`.
    public func backoff(afterAttempt attempt: Int, fraction: Double) -> Duration {
        let exponent = Double(min(max(attempt - 1, 0), 62))
        let ceiling = min(baseDelay / .seconds(1) * pow2(exponent), maxDelay / .seconds(1))
        let clamped = min(max(fraction, 0), 1)
        return .seconds(ceiling * clamped)
    }

    /// Decides what follows a failure.
    ///
    /// - Parameters:
    ///   - error: what the attempt or condition threw.
    ///   - attempt: the number of the attempt that failed, counting earlier runs (1-based); ignored for "not now".
    ///   - networkWaited: how long this run has already waited for the network.
    ///   - fraction: a random number in `0 ..< 1` for the jitter.
    public func decide(error: any Error, attempt: Int, networkWaited: Duration, fraction: Double) -> RetryDecision {
        switch classify(error) {
        case .permanent:
            return .fail
        case .notNow:
            if networkWaited + networkPollInterval <= networkWait, networkPollInterval > .zero {
                return .waitForNetwork(networkPollInterval)
            }
            return .deferUntilReachable
        case .transient(let retryAfter):
            guard attempt < maxAttempts else { return .fail }
            var delay = backoff(afterAttempt: attempt, fraction: fraction)
            if let retryAfter { delay = max(delay, min(retryAfter, maxRetryAfter)) }
            if let maxInRunDelay, delay > maxInRunDelay { return .deferRetry(after: delay) }
            return .retry(after: delay)
        }
    }
}

private func pow2(_ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(exponent)
    while remaining > 0 {
        result *= 2
        remaining -= 1
    }
    return result
}

