import Locking
import OperationEngine

/// A data loader over a `Coalescer`: `load(key, send:)` waits for the batch its key travels in and returns its own
/// answer. The first key of a window waits `window` (on the injected clock) for the others that become ready together;
/// a full batch goes at once. Cancelling one caller cancels only its own wait; a batch none waits for any more is
/// abandoned (its transfer cancelled).
final class BatchLoader<Key: Sendable, Answer: Sendable>: Sendable {
    typealias Send = @Sendable ([Key]) async throws(StepFailure) -> [Answer]

    private struct State {
        var coalescer: Coalescer<Key>
        var waiters: [UInt64: CheckedContinuation<Answer, any Error>] = [:]
        /// Cancelled before their continuation was registered.
        var cancelledEarly: Set<UInt64> = []
        /// The send of each window (the first caller's), and the tasks of batches in flight.
        var send: Send?
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 1

        /// The send of a batch without a window's (never: a waiter always arrives with its send); fails each waiter.
        static func noSend(_ keys: [Key]) async throws(StepFailure) -> [Answer] {
            throw StepFailure(.transient(retryAfter: nil), "the batch had no request to go in")
        }

        /// `batches` the coalescer let go, each with the send of the window's first caller (kept while any waits).
        mutating func take(_ batches: [Batch]) -> [(Batch, Send)] {
            // Not `??`: Swift 6.3's SIL generation crashes on an autoclosure of a typed-throws function.
            var send: Send = State.noSend
            if let kept = self.send { send = kept }
            if coalescer.pending.isEmpty { self.send = nil }
            return batches.map { ($0, send) }
        }
    }
    typealias Batch = (batch: UInt64, waiters: [(id: UInt64, key: Key)])


    private let state: Locked<State>
    private let window: Duration
    private let clock: any EngineClock

    /// A loader of batches of at most `maxBatch` keys, gathered for `window` on `clock`, at most `maxInFlight` of them
    /// in flight (the rest waits for an answer: `Coalescer`).
    init(maxBatch: Int, maxInFlight: Int = .max, window: Duration, clock: any EngineClock) {
        state = Locked(State(coalescer: Coalescer(maxBatch: maxBatch, maxInFlight: maxInFlight)))
        self.window = window
        self.clock = clock
    }

    /// The answer for `key`, sent with whatever else becomes ready within the window (by `send`, the keys in order →
    /// one answer each, in order). Every waiter of a failed batch gets its failure.
    func load(_ key: Key, send: @escaping Send) async throws -> Answer {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        // A cancellation that came after this wait ended (answered or failed) left its id in `cancelledEarly`: once
        // the handler is gone, no cancellation can come any more, and the id goes too.
        defer { state.withLock { _ = $0.cancelledEarly.remove(id) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Answer, any Error>) in
                let arrival: Coalescer<Key>.Arrival? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return nil }
                    state.waiters[id] = continuation
                    if state.send == nil { state.send = send }
                    return state.coalescer.arrive(id, key)
                }
                switch arrival {
                case nil: continuation.resume(throwing: CancellationError())
                case .openWindow?:
                    Task { [self] in
                        try? await clock.sleep(for: window)
                        let batches = state.withLock { state in state.take(state.coalescer.windowEnded()) }
                        for (batch, send) in batches { start(batch, send: send) }
                    }
                case .sendFull?:
                    let full = state.withLock { state in state.coalescer.takeFull().map { state.take([$0]) } ?? [] }
                    for (batch, send) in full { start(batch, send: send) }
                case .wait?: break
                }
            }
        } onCancel: {
            cancel(id)
        }
    }


    /// How many loads wait for an answer now (for tests that release a window once every load has arrived).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    private func start(_ batch: Batch, send: @escaping Send) {
        let task = Task { [self] in
            let result: Result<[Answer], StepFailure>
            do throws(StepFailure) {
                result = .success(try await send(batch.waiters.map(\.key)))
            } catch {
                result = .failure(error)
            }
            let mismatch = StepFailure(.transient(retryAfter: nil),
                "the server's batch answer does not have one result for each request sent")
            let (answers, released) = state.withLock { state in
                state.tasks[batch.batch] = nil
                let answers = state.coalescer.answered(batch.batch, sent: batch.waiters, result: result, mismatch: mismatch)
                return (
                    answers.compactMap { answer in state.waiters.removeValue(forKey: answer.id).map { ($0, answer.result) } },
                    state.take(state.coalescer.released()))
            }
            for (next, send) in released { start(next, send: send) }
            for (continuation, answer) in answers { continuation.resume(with: answer.mapError { $0 as any Error }) }
        }
        state.withLock { state in
            // Only while the batch still waits for an answer (a quick one may have removed itself already).
            if state.coalescer.inFlight[batch.batch] != nil { state.tasks[batch.batch] = task }
        }
    }

    private func cancel(_ id: UInt64) {
        let (continuation, abandoned): (CheckedContinuation<Answer, any Error>?, Task<Void, Never>?) = state.withLock { state in
            guard let continuation = state.waiters.removeValue(forKey: id) else {
                state.cancelledEarly.insert(id)
                return (nil, nil)
            }
            switch state.coalescer.cancel(id) {
            case .droppedFromBatch(let batch, batchAbandoned: true): return (continuation, state.tasks.removeValue(forKey: batch))
            case .removedBeforeSending, .droppedFromBatch, .unknown: return (continuation, nil)
            }
        }
        abandoned?.cancel()
        continuation?.resume(throwing: CancellationError())
    }
}
