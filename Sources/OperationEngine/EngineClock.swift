/// The source of time for backoff sleeps and timeouts, injected so that tests control it.
public protocol EngineClock: Sendable {
    /// Suspends for `duration`; throws `CancellationError` promptly when the calling task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The live clock: `ContinuousClock`.
public struct ContinuousEngineClock: EngineClock {
    /// Creates the live clock.
    public init() {}

    /// Sleeps on `ContinuousClock`.
    public func sleep(for duration: Duration) async throws {
        try await ContinuousClock().sleep(for: duration)
    }
}

extension EngineClock where Self == ContinuousEngineClock {
    /// The live clock.
    public static var continuous: ContinuousEngineClock { ContinuousEngineClock() }
}
