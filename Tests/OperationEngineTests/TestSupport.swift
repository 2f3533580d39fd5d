import Locking
import Testing
@testable import OperationEngine

/// A latch tests open by hand; waiting on it is cancellable (it stands in for a blocked transfer).
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var nextToken = 0
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var cancelled = Set<Int>()
    }
    private let state = Locked(State())

    /// Opens the gate and releases every waiter.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the gate is open; throws `CancellationError` when the task is cancelled.
    func wait() async throws {
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let result = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(token) != nil { return .failure(CancellationError()) }
                    if state.isOpen { return .success(()) }
                    state.waiters[token] = continuation
                    return nil
                }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if let waiter = state.waiters.removeValue(forKey: token) { return waiter }
                state.cancelled.insert(token)
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// A thread-safe list that tests append to from procedures.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// Counts how many procedures are inside each key at once, and remembers any overlap.
final class KeyOccupancy: Sendable {
    private struct State {
        var inside: [String: Int] = [:]
        var overlaps = 0
        var running = 0
        var maxRunning = 0
    }
    private let state = Locked(State())

    func enter(_ keys: [String]) {
        state.withLock { state in
            for key in keys {
                state.inside[key, default: 0] += 1
                if state.inside[key]! > 1 { state.overlaps += 1 }
            }
            state.running += 1
            state.maxRunning = max(state.maxRunning, state.running)
        }
    }

    func leave(_ keys: [String]) {
        state.withLock { state in
            for key in keys { state.inside[key, default: 0] -= 1 }
            state.running -= 1
        }
    }

    var overlaps: Int { state.withLock { $0.overlaps } }
    var maxRunning: Int { state.withLock { $0.maxRunning } }
}

/// An observer that records event names per procedure.
final class EventLog: ProcedureObserver {
    private let events = Locked<[(ProcedureID, String)]>([])

    func procedureDidStart(_ procedure: AnyProcedure) { record(procedure, "start") }
    func procedure(_ procedure: AnyProcedure, didProduce child: AnyProcedure) { record(procedure, "produced") }
    func procedure(_ procedure: AnyProcedure, didCancelWith reason: CancellationReason) { record(procedure, "cancel") }
    func procedure(_ procedure: AnyProcedure, willRetryAfter delay: Duration, attempt: Int, error: any Error) {
        record(procedure, "retry")
    }
    func procedure(_ procedure: AnyProcedure, willWaitFor delay: Duration, because error: any Error) {
        record(procedure, "waiting")
    }
    func procedure(_ procedure: AnyProcedure, didFinishWith outcome: ProcedureOutcome) { record(procedure, "finish") }

    private func record(_ procedure: AnyProcedure, _ name: String) { events.withLock { $0.append((procedure.id, name)) } }

    func names(for id: ProcedureID) -> [String] { events.withLock { $0.filter { $0.0 == id }.map(\.1) } }
    func count(_ name: String) -> Int { events.withLock { $0.filter { $0.1 == name }.count } }
}

/// An error with a chosen retry class.
struct TestFailure: RetryClassifiable, Equatable {
    var failureKind: FailureKind
    static let transient = TestFailure(failureKind: .transient(retryAfter: nil))
    static let permanent = TestFailure(failureKind: .permanent)
}

/// Runs `body`, failing the test instead of hanging when it does not finish within `seconds` (deadlock guard).
func withinDeadline(
    seconds: Int = 60, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async -> Void
) async {
    let finished = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await body()
            return true
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
    #expect(finished, "\(what) did not finish within \(seconds) s (deadlock?)", sourceLocation: sourceLocation)
}

/// Polls until `condition` holds, for a minute at most (a bound for a hung test, generous on a loaded machine); returns
/// whether it did.
func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}
