import Locking
import OperationEngine

/// A reachability probe for tests: reachable or not as the test sets it, counting the probes it answers.
public final class FakeReachability: ReachabilityProbe {
    private struct State {
        var reachable: Bool
        var probes = 0
        var probeWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
    }

    private let state: Locked<State>

    /// Creates a probe answering `reachable`.
    public init(reachable: Bool) { state = Locked(State(reachable: reachable)) }

    /// Changes the answer.
    public func setReachable(_ reachable: Bool) { state.withLock { $0.reachable = reachable } }

    /// How many probes were answered.
    public var probeCount: Int { state.withLock { $0.probes } }

    /// Answers with the current setting.
    public func isReachable(host: String, port: Int) async -> Bool {
        let (answer, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            state.probes += 1
            let count = state.probes
            var ready: [CheckedContinuation<Void, Never>] = []
            state.probeWaiters.removeAll { wanted, continuation in
                guard count >= wanted else { return false }
                ready.append(continuation)
                return true
            }
            return (state.reachable, ready)
        }
        for waiter in ready { waiter.resume() }
        return answer
    }

    /// Waits until at least `count` probes were answered.
    public func waitForProbes(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.probes >= count { return true }
                state.probeWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
