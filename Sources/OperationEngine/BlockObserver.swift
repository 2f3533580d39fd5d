/// An observer made of closures, for the common cases (the seeds' `BlockObserver`).
public struct BlockObserver: ProcedureObserver {
    private let onStart: (@Sendable (AnyProcedure) -> Void)?
    private let onEvent: (@Sendable (ProcedureEvent) -> Void)?
    private let onFinish: (@Sendable (AnyProcedure, ProcedureOutcome) -> Void)?

    /// Creates an observer; `onEvent` receives every event as a value, the other two their specific moment.
    public init(
        onStart: (@Sendable (AnyProcedure) -> Void)? = nil,
        onEvent: (@Sendable (ProcedureEvent) -> Void)? = nil,
        onFinish: (@Sendable (AnyProcedure, ProcedureOutcome) -> Void)? = nil
    ) {
        self.onStart = onStart
        self.onEvent = onEvent
        self.onFinish = onFinish
    }

    /// Calls `onStart` and `onEvent`.
    public func procedureDidStart(_ procedure: AnyProcedure) {
        onStart?(procedure)
        onEvent?(.started(procedure.info, attempt: procedure.attempt))
    }

    /// Calls `onEvent`.
    public func procedure(_ procedure: AnyProcedure, didProduce child: AnyProcedure) {
        onEvent?(.produced(procedure.info, child: child.info))
    }

    /// Calls `onEvent`.
    public func procedure(_ procedure: AnyProcedure, didProgress completed: Int64, of total: Int64?) {
        onEvent?(.progress(procedure.info, completed: completed, total: total))
    }

    /// Calls `onEvent`.
    public func procedure(_ procedure: AnyProcedure, didCancelWith reason: CancellationReason) {
        onEvent?(.cancelled(procedure.info, reason: reason))
    }

    /// Calls `onEvent`.
    public func procedure(_ procedure: AnyProcedure, willRetryAfter delay: Duration, attempt: Int, error: any Error) {
        onEvent?(.retrying(procedure.info, attempt: attempt, delay: delay, error: error))
    }

    /// Calls `onEvent`.
    public func procedure(_ procedure: AnyProcedure, willWaitFor delay: Duration, because error: any Error) {
        onEvent?(.waiting(procedure.info, delay: delay, error: error))
    }

    /// Calls `onEvent` and `onFinish`.
    public func procedure(_ procedure: AnyProcedure, didFinishWith outcome: ProcedureOutcome) {
        onEvent?(.finished(procedure.info, outcome: outcome))
        onFinish?(procedure, outcome)
    }
}
