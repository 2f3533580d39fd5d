import Locking
import OperationEngine

/// A test clock whose time moves only when `advance(by:)` is called, so backoff and timeout tests are deterministic.
public final class ManualClock: EngineClock {
    private struct Sleeper {
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var nextToken = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelledTokens = Set<Int>()
        var requested: [Duration] = []
        var countWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// Creates a clock at time zero.
    public init() {}

    /// The time elapsed since creation, as advanced by the test.
    public var now: Duration { state.withLock { $0.now } }
    /// Every duration passed to `sleep`, in order.
    public var requestedSleeps: [Duration] { state.withLock { $0.requested } }
    /// How many tasks are sleeping now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock has been advanced past `duration` from now; throws when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        let token = state.withLock { state -> Int in
            state.nextToken += 1
            state.requested.append(duration)
            return state.nextToken
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (immediate, wakeCounters) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if state.cancelledTokens.remove(token) != nil { return (.failure(CancellationError()), []) }
                    if duration <= .zero { return (.success(()), []) }
                    state.sleepers[token] = Sleeper(deadline: state.now + duration, continuation: continuation)
                    return (nil, Self.takeCountWaiters(&state))
                }
                for waiter in wakeCounters { waiter.resume() }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: token) { return sleeper }
                state.cancelledTokens.insert(token)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has passed.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for token in due.keys { state.sleepers.removeValue(forKey: token) }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits until at least `count` tasks are sleeping on this clock (no timing involved).
    public func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.countWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    private static func takeCountWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        var ready: [CheckedContinuation<Void, Never>] = []
        state.countWaiters.removeAll { wanted, continuation in
            guard count >= wanted else { return false }
            ready.append(continuation)
            return true
        }
        return ready
    }
}
