
/// The task that drives procedures, one at a time, and the procedure it drives now.
///
/// A driver task holding a concurrency slot goes on to the next ready procedure instead of ending, so that a
/// procedure costs no task of its own. Cancelling a procedure cancels the driver task only while that task is
/// driving that very procedure (checked under this lock), and a cancelled driver never takes another procedure:
/// a late cancellation can therefore never reach the next procedure's work.
final class DriverHandle: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var current: ProcedureID
        var cancelRequested = false
    }

    private let state: Locked<State>

    /// Creates a handle for a driver about to drive `procedure`.
    init(driving procedure: ProcedureID) { state = Locked(State(current: procedure)) }

    /// Records the task once it exists; cancels it at once if its procedure was cancelled in the meantime.
    func setTask(_ task: Task<Void, Never>) {
        state.withLock { state in
            state.task = task
            if state.cancelRequested { task.cancel() }
        }
    }

    /// Cancels the driver task if, and only if, it is driving `procedure` now.
    func cancel(ifDriving procedure: ProcedureID) {
        state.withLock { state in
            guard state.current == procedure else { return }
            state.cancelRequested = true
            state.task?.cancel()
        }
    }

    /// Moves the driver to `procedure`; `false` when the driver task was cancelled (it must stop driving).
    func switchTo(_ procedure: ProcedureID) -> Bool {
        state.withLock { state in
            guard !state.cancelRequested, !Task.isCancelled else { return false }
            state.current = procedure
            return true
        }
    }
}
