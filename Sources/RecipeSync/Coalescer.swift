/// The bookkeeping of a data loader: requests of many chains that become ready together travel as one batch, and each
/// chain gets its own answer (docs/sync-engine.md, "How the chains' requests travel"). A plain state machine: who
/// waits, which batch each waiter went in, what a batch's answer means for each waiter; `BatchLoader` does the I/O.
///
/// The first arrival opens a short window; the window's end (or a full batch) sends what waits — unless `maxInFlight`
/// batches are in flight already: then what waits is held and goes when one of them is answered, as Nagle's algorithm
/// holds small segments while one is unacknowledged. On a long round trip the requests that become ready during one
/// batch's round trip then travel together, and the small requests never take more than `maxInFlight` of the
/// connections the large transfers need; on loopback a batch is answered at once and nothing waits. A failed batch fails
/// each of its waiters the same way; a waiter cancelled before its batch left is taken out of it, one cancelled after
/// is only forgotten (the others still get their answers), and a batch whose every waiter is gone may be abandoned.
struct Coalescer<Key: Sendable>: Sendable {
    /// What the loader does after an arrival.
    enum Arrival: Equatable {
        /// The first of a window: wait the window, then `windowEnded()`.
        case openWindow
        /// A window is open: nothing to do.
        case wait
        /// The batch is full: send `takeFull()` now (the window stays open for whoever comes next).
        case sendFull
    }

    /// What a cancellation came to.
    enum Cancellation: Equatable {
        /// Taken out before its batch left: nothing was sent for it.
        case removedBeforeSending
        /// Its batch is in flight; its answer will be dropped. `batchAbandoned`: no waiter of that batch is left.
        case droppedFromBatch(UInt64, batchAbandoned: Bool)
        /// Not waiting (answered already, or never arrived).
        case unknown
    }

    /// At most this many keys per batch (the server's limit).
    let maxBatch: Int
    /// At most this many batches in flight; more waits for an answer (a full batch goes regardless).
    let maxInFlight: Int
    private(set) var pending: [(id: UInt64, key: Key)] = []
    private(set) var windowOpen = false
    /// A window ended while `maxInFlight` batches were in flight: what waits goes with the next answer.
    private(set) var held = false
    /// The waiters of each batch in flight, by batch id.
    private(set) var inFlight: [UInt64: Set<UInt64>] = [:]
    private var nextBatch: UInt64 = 1

    init(maxBatch: Int, maxInFlight: Int = .max) {
        self.maxBatch = max(1, maxBatch)
        self.maxInFlight = max(1, maxInFlight)
    }

    /// Waiter `id` asks for `key`.
    mutating func arrive(_ id: UInt64, _ key: Key) -> Arrival {
        pending.append((id, key))
        if pending.count >= maxBatch { return .sendFull }
        if windowOpen || held { return .wait }
        windowOpen = true
        return .openWindow
    }

    /// A full batch, when one waits (after `.sendFull`); nil otherwise.
    mutating func takeFull() -> (batch: UInt64, waiters: [(id: UInt64, key: Key)])? {
        guard pending.count >= maxBatch else { return nil }
        let taken = Array(pending.prefix(maxBatch))
        pending.removeFirst(taken.count)
        return (start(taken), taken)
    }

    /// The window ended: every waiter left goes, in batches of at most `maxBatch` — or, with `maxInFlight` batches in
    /// flight, is held for `released()`.
    mutating func windowEnded() -> [(batch: UInt64, waiters: [(id: UInt64, key: Key)])] {
        windowOpen = false
        if inFlight.count >= maxInFlight, !pending.isEmpty {
            held = true
            return []
        }
        return takeAll()
    }

    /// What a held window sends now that a batch was answered (call after `answered`): everything waiting, in batches
    /// of at most `maxBatch`; nothing when nothing is held or `maxInFlight` batches are still in flight.
    mutating func released() -> [(batch: UInt64, waiters: [(id: UInt64, key: Key)])] {
        guard held, inFlight.count < maxInFlight else { return [] }
        held = false
        return takeAll()
    }

    private mutating func takeAll() -> [(batch: UInt64, waiters: [(id: UInt64, key: Key)])] {
        var batches: [(batch: UInt64, waiters: [(id: UInt64, key: Key)])] = []
        while !pending.isEmpty {
            let taken = Array(pending.prefix(maxBatch))
            pending.removeFirst(taken.count)
            batches.append((start(taken), taken))
        }
        return batches
    }

    /// Waiter `id` was cancelled.
    mutating func cancel(_ id: UInt64) -> Cancellation {
        if let index = pending.firstIndex(where: { $0.id == id }) {
            pending.remove(at: index)
            return .removedBeforeSending
        }
        for (batch, var waiters) in inFlight where waiters.contains(id) {
            waiters.remove(id)
            inFlight[batch] = waiters
            return .droppedFromBatch(batch, batchAbandoned: waiters.isEmpty)
        }
        return .unknown
    }

    /// Batch `batch` was answered with `result` (one answer per key sent, in order): each waiter still there, with
    /// its own answer; an answer of the wrong length fails each waiter with `mismatch`, a failure fails each the same.
    mutating func answered<Answer, Failure: Error>(
        _ batch: UInt64, sent: [(id: UInt64, key: Key)], result: Result<[Answer], Failure>, mismatch: Failure
    ) -> [(id: UInt64, result: Result<Answer, Failure>)] {
        let waiting = inFlight.removeValue(forKey: batch) ?? []
        return Self.distribute(sent.map(\.id), result: result, mismatch: mismatch).filter { waiting.contains($0.id) }
    }

    /// Each of `ids` with its answer of `result`, in order.
    static func distribute<Answer, Failure: Error>(
        _ ids: [UInt64], result: Result<[Answer], Failure>, mismatch: Failure
    ) -> [(id: UInt64, result: Result<Answer, Failure>)] {
        switch result {
        case .success(let answers) where answers.count == ids.count:
            return zip(ids, answers).map { ($0, .success($1)) }
        case .success:
            return ids.map { ($0, .failure(mismatch)) }
        case .failure(let failure):
            return ids.map { ($0, .failure(failure)) }
        }
    }

    private mutating func start(_ waiters: [(id: UInt64, key: Key)]) -> UInt64 {
        let batch = nextBatch
        nextBatch += 1
        inFlight[batch] = Set(waiters.map(\.id))
        return batch
    }
}
