import Locking

/// How many chains of a run are running, and the feeder waiting for that number to fall: the feeder claims the next
/// batch only once half its window has ended, so it is woken once per batch rather than once per chain (each wake
/// of a task on the pool cost a thread switch per recipe).
final class ChainGate: Sendable {
    private struct State {
        var running = 0
        var level = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// The chains running now.
    var running: Int { state.withLock { $0.running } }

    /// Whether the feeder is waiting.
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Counts `count` chains started.
    func started(_ count: Int) {
        state.withLock { $0.running += count }
    }

    /// Counts one chain ended, and wakes the feeder once no more than its level are running.
    func ended() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.running -= 1
            guard state.running <= state.level, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once no more than `level` chains are running (at once when that is already so). One waiter at a time.
    func wait(untilAtMost level: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                guard state.running > level else { return true }
                precondition(state.waiter == nil, "ChainGate has one waiter, the feeder")
                state.level = level
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
