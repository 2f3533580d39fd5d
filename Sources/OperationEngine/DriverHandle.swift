import Locking

/// The task that drives procedures, one at a time, and the procedure it drives now.
///
/// A driver task holding a concurrency slot goes on to the next ready procedure instead of ending, so that a
/// procedure costs no task of its own. Cancelling a procedure cancels the driver task only while that task is
/// driving that very procedure (decided under the handle's lock, against the driver's own move to its next
/// procedure), and a cancelled driver never takes another procedure: a late cancellation can therefore never reach
/// the next procedure's work.
final class DriverHandle: Sendable {
    private struct State {
        /// The procedure driven now.
        var current: ProcedureID
        /// Whether the task was cancelled (for good: a task's cancellation cannot be undone).
        var cancelled = false
        /// The task, once it exists.
        var task: Task<Void, Never>?
    }

    private let state: Locked<State>

    /// Creates a handle for a driver about to drive `procedure`.
    init(driving procedure: ProcedureID) {
        state = Locked(State(current: procedure))
    }

    /// Records the task once it exists; cancels it at once if its procedure was cancelled in the meantime.
    func setTask(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        // Outside the lock: cancelling runs the task's cancellation handlers at once (they take other locks).
        if cancelNow { task.cancel() }
    }

    /// Cancels the driver task if, and only if, it is driving `procedure` now.
    func cancel(ifDriving procedure: ProcedureID) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard state.current == procedure, !state.cancelled else { return nil }
            state.cancelled = true
            return state.task
        }
        task?.cancel()   // outside the lock, as in `setTask`
    }

    /// Moves the driver to `procedure`; `false` when the driver was cancelled (it must stop driving).
    func switchTo(_ procedure: ProcedureID) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.current = procedure
            return true
        }
    }
}
