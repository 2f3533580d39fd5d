import Locking

/// Wakes the long polls of `GET /v1/changes?wait=` when a write is committed.
///
/// Each waiter registers an `AsyncStream` continuation; `published(_:)` yields to all of them. A waiter whose
/// cursor is already behind the newest sequence number returns at once, so a write committed between a poll's
/// empty page and its registration is never missed.
final class ChangeSignal: Sendable {
    private struct State {
        var latest: Int64
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: AsyncStream<Void>.Continuation] = [:]
    }

    private let state: Locked<State>

    /// Creates the signal with the newest sequence number already given out.
    init(latest: Int64) {
        state = Locked(State(latest: latest))
    }

    /// The newest sequence number published (or given out before the server started).
    var latest: Int64 { state.withLock { $0.latest } }

    /// A write with sequence number `sequence` was committed.
    func published(_ sequence: Int64) {
        let waiters = state.withLock { state -> [AsyncStream<Void>.Continuation] in
            state.latest = max(state.latest, sequence)
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.yield() }
    }

    /// Returns once a change after `since` is published, `limit` has passed, or the task is cancelled.
    func wait(beyond since: Int64, upTo limit: Duration) async {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> UInt64? in
            guard state.latest <= since else { return nil }
            let id = state.nextWaiter
            state.nextWaiter += 1
            state.waiters[id] = continuation
            return id
        }
        guard let id else { return }
        defer { _ = state.withLock { $0.waiters.removeValue(forKey: id) } }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.finish()
        }
        defer { timer.cancel() }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
    }
}
