import Locking
import Synchronization

/// The task that drives procedures, one at a time, and the procedure it drives now.
///
/// A driver task holding a concurrency slot goes on to the next ready procedure instead of ending, so that a
/// procedure costs no task of its own. Cancelling a procedure cancels the driver task only while that task is
/// driving that very procedure (one atomic compare-and-exchange on `current` decides it, against the driver's own
/// move to its next procedure), and a cancelled driver never takes another procedure: a late cancellation can
/// therefore never reach the next procedure's work.
final class DriverHandle: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var cancelRequested = false
    }

    /// The raw identifier of the procedure driven now, with `cancelledBit` set once the driver was cancelled.
    private let current: Atomic<UInt64>
    /// Set in `current` by a cancellation; identifiers never reach it.
    private static let cancelledBit: UInt64 = 1 << 63

    /// The task, once it exists, and whether it must be cancelled as soon as it does.
    private let state = Locked(State())

    /// The queue the driver works for (held for the contexts it hands to bodies: `ProcedureContext.queue`).
    let queue: ProcedureQueue

    /// Creates a handle for a driver of `queue` about to drive `procedure`.
    init(driving procedure: ProcedureID, for queue: ProcedureQueue) {
        current = Atomic(procedure.rawValue)
        self.queue = queue
    }

    /// Records the task once it exists; cancels it at once if its procedure was cancelled in the meantime.
    func setTask(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { state in
            state.task = task
            return state.cancelRequested
        }
        // Outside the lock: cancelling runs the task's cancellation handlers at once (they take other locks).
        if cancelNow { task.cancel() }
    }

    /// Cancels the driver task if, and only if, it is driving `procedure` now.
    func cancel(ifDriving procedure: ProcedureID) {
        let (marked, _) = current.compareExchange(
            expected: procedure.rawValue, desired: procedure.rawValue | Self.cancelledBit, ordering: .acquiringAndReleasing)
        guard marked else { return }
        let task = state.withLock { state in
            state.cancelRequested = true
            return state.task
        }
        task?.cancel()   // outside the lock, as in `setTask`
    }

    /// Moves the driver to `procedure`; `false` when the driver was cancelled (it must stop driving).
    ///
    /// Only `cancel(ifDriving:)` cancels a driver task (the engine keeps the only handle to it), and it marks
    /// `current` first, so the mark alone says whether the task was cancelled.
    func switchTo(_ procedure: ProcedureID) -> Bool {
        var driving = current.load(ordering: .acquiring)
        while driving & Self.cancelledBit == 0 {
            let (exchanged, found) = current.compareExchange(
                expected: driving, desired: procedure.rawValue, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            driving = found
        }
        return false
    }
}
