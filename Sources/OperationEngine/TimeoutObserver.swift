import Locking

/// Cancels a procedure that is still running `timeout` after it started (reason `.timedOut`).
///
/// The timer starts at the first start and is stopped when the procedure finishes; one observer may watch many
/// procedures. Time comes from the injected clock.
public final class TimeoutObserver: ProcedureObserver {
    private let timeout: Duration
    private let clock: any EngineClock
    private let timers = Locked<[ProcedureID: Task<Void, Never>]>([:])

    /// Creates an observer that cancels after `timeout` on `clock`.
    public init(after timeout: Duration, clock: any EngineClock = ContinuousEngineClock()) {
        self.timeout = timeout
        self.clock = clock
    }

    /// Starts the timer.
    public func procedureDidStart(_ procedure: AnyProcedure) {
        let timeout = self.timeout
        let clock = self.clock
        let timer = Task { [weak procedure] in
            do {
                try await clock.sleep(for: timeout)
            } catch {
                return
            }
            procedure?.cancel(reason: .timedOut(after: timeout))
        }
        let stale = timers.withLock { timers -> Task<Void, Never>? in
            let finished = procedure.isFinished
            if finished { return timer }
            timers[procedure.id] = timer
            return nil
        }
        stale?.cancel()
    }

    /// Stops the timer.
    public func procedure(_ procedure: AnyProcedure, didFinishWith outcome: ProcedureOutcome) {
        let timer = timers.withLock { $0.removeValue(forKey: procedure.id) }
        timer?.cancel()
    }
}
