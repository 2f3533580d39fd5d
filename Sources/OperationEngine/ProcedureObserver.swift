/// Watches one or more procedures (the seeds' `OperationObserver`); every method has an empty default.
///
/// Each event is delivered exactly once per procedure (progress and retry once per occurrence). A procedure drops
/// its observers when it finishes, and observers receive the procedure only as an argument, so an observer that
/// does not store it creates no retain cycle.
public protocol ProcedureObserver: Sendable {
    /// The procedure was added to a queue.
    func procedureWasAdded(_ procedure: AnyProcedure)
    /// The procedure's work started for the first time.
    func procedureDidStart(_ procedure: AnyProcedure)
    /// The running procedure produced `child`, which was added to the same queue.
    func procedure(_ procedure: AnyProcedure, didProduce child: AnyProcedure)
    /// The work reported progress.
    func procedure(_ procedure: AnyProcedure, didProgress completed: Int64, of total: Int64?)
    /// Cancellation was requested.
    func procedure(_ procedure: AnyProcedure, didCancelWith reason: CancellationReason)
    /// An attempt failed and another follows after `delay`.
    func procedure(_ procedure: AnyProcedure, willRetryAfter delay: Duration, attempt: Int, error: any Error)
    /// The procedure waits for the network without counting an attempt.
    func procedure(_ procedure: AnyProcedure, willWaitFor delay: Duration, because error: any Error)
    /// The procedure finished.
    func procedure(_ procedure: AnyProcedure, didFinishWith outcome: ProcedureOutcome)
}

extension ProcedureObserver {
    /// Does nothing.
    public func procedureWasAdded(_ procedure: AnyProcedure) {}
    /// Does nothing.
    public func procedureDidStart(_ procedure: AnyProcedure) {}
    /// Does nothing.
    public func procedure(_ procedure: AnyProcedure, didProduce child: AnyProcedure) {}
    /// Does nothing.
    public func procedure(_ procedure: AnyProcedure, didProgress completed: Int64, of total: Int64?) {}
    /// Does nothing.
    public func procedure(_ procedure: AnyProcedure, didCancelWith reason: CancellationReason) {}
    /// Does nothing.
    public func procedure(_ procedure: AnyProcedure, willRetryAfter delay: Duration, attempt: Int, error: any Error) {}
    /// Does nothing.
    public func procedure(_ procedure: AnyProcedure, willWaitFor delay: Duration, because error: any Error) {}
    /// Does nothing.
    public func procedure(_ procedure: AnyProcedure, didFinishWith outcome: ProcedureOutcome) {}
}

extension ProcedureObserver {
    /// Dispatches an event to the matching method.
    func receive(_ event: ProcedureEvent, from procedure: AnyProcedure, child: AnyProcedure?) {
        switch event {
        case .started: procedureDidStart(procedure)
        case .produced: if let child { self.procedure(procedure, didProduce: child) }
        case .progress(_, let completed, let total): self.procedure(procedure, didProgress: completed, of: total)
        case .cancelled(_, let reason): self.procedure(procedure, didCancelWith: reason)
        case .retrying(_, let attempt, let delay, let error):
            self.procedure(procedure, willRetryAfter: delay, attempt: attempt, error: error)
        case .waiting(_, let delay, let error): self.procedure(procedure, willWaitFor: delay, because: error)
        case .finished(_, let outcome): self.procedure(procedure, didFinishWith: outcome)
        }
    }
}
