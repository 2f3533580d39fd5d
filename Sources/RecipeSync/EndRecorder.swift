import Foundation
import Locking
import OperationEngine
import RecipeModels
import RecipeStore

/// The part of a run that writes down how chains ended: a batch at a time into the database, then lets go of the
/// local files they no longer need, counts them and reports them.
///
/// The usual end waits for the next batch (every poll interval, `recordPeriodically`); any other is recorded at once,
/// so that a cancelled or failed recipe's lease is released without delay (`recipes cancel` waits for that). Outbox
/// files of chains that succeeded are handed to later chains to overwrite (`takeSpareOutboxFile`) and deleted at the
/// end of the run; media copies are deleted a batch at a time as their ends are recorded. docs/sync-engine.md says
/// what each of these choices saved.
final class EndRecorder: Sendable {
    /// A chain's end as concluded, with the event that reports it once recorded.
    struct PendingEnd: Sendable {
        let ending: ChainEnding
        var event: SyncEvent
    }

    private let store: RecipeStore
    private let owner: String
    private let outbox: Outbox
    private let tally: Locked<SyncSummary>
    private let emit: @Sendable (SyncEvent) -> Void
    private let pending = Locked<[PendingEnd]>([])
    /// Held while a batch is written: a caller of `recordEnds` returns once every end queued before it is recorded,
    /// even when the periodic task took them first. Counts the batches written (a lock around an empty value is
    /// reported as a race by ThreadSanitizer: its zero-size value has no address of its own).
    private let writing = Locked(0)
    /// Files of chains that succeeded, not deleted yet.
    private let removals = Locked<(outbox: [String], media: [String])>(([], []))

    /// Creates the recorder of a run that counts into `tally` and reports through `emit`.
    init(store: RecipeStore, owner: String, outbox: Outbox, tally: Locked<SyncSummary>,
         emit: @escaping @Sendable (SyncEvent) -> Void) {
        self.store = store
        self.owner = owner
        self.outbox = outbox
        self.tally = tally
        self.emit = emit
    }

    /// Writes a failed attempt that will be retried within the run, at once (so that `kill -9` keeps the count).
    func recordAttempt(id: Int64, attempts: Int, nextAttemptAt: Date, error: String) {
        try? store.recordAttempt(id: id, owner: owner, attempts: attempts, nextAttemptAt: nextAttemptAt, error: error)
    }

    /// Queues `end`; records it at once unless the server has what its chain sent.
    func add(_ end: PendingEnd) {
        let succeeded = end.ending.result.succeeded
        if succeeded && !end.ending.claim.isDeletion {
            // The server has it: the outbox file is free for the next chain's JSON at once (if this process dies
            // before the end is recorded, the next run writes the file again), while the media copy waits for the
            // record (`removeUnneededMedia` keeps a copy the database still refers to).
            removals.withLock { $0.outbox.append(Self.outboxName(end.ending.claim)) }
        }
        pending.withLock { $0.append(end) }
        if !succeeded { recordEnds() }
    }

    /// An outbox file of a chain that succeeded, for the next JSON to overwrite, if there is one.
    func takeSpareOutboxFile() -> String? { removals.withLock { $0.outbox.popLast() } }

    /// Records the ends queued since the last call in one transaction (each alone when the batch fails, so that an end
    /// that cannot be recorded fails only itself), queues the media copies they no longer need, counts and reports
    /// them.
    func recordEnds() {
        writing.withLock { batches in
            recordQueuedEnds()
            batches += 1
        }
    }

    private func recordQueuedEnds() {
        let ends = pending.withLock { ends in
            defer { ends = [] }
            return ends
        }
        guard !ends.isEmpty else { return }
        let endings = ends.map(\.ending)
        let finished: [Result<FinishedChain, StoreError>]
        do {
            finished = try store.finishChains(endings, owner: owner).map { .success($0) }
        } catch {
            finished = endings.map { ending in
                Result { () throws(StoreError) in try store.finishChains([ending], owner: owner)[0] }
            }
        }
        for (end, finished) in zip(ends, finished) {
            var event = end.event
            let claim = end.ending.claim
            let succeeded = end.ending.result.succeeded
            switch finished {
            case .success(let chain):
                guard succeeded else { break }
                removals.withLock { $0.media += chain.unneededMedia }
                if chain.editedMeanwhile {
                    // Revision fencing: the server has the claimed revision; the edit made meanwhile is still due.
                    tally.withLock { $0.waiting += 1 }
                    event.error = "revision \(claim.revision) is on the server; an edit made meanwhile is due next"
                } else {
                    tally.withLock { $0.done += 1 }
                }
            case .failure(let error):
                if succeeded {
                    // Still due: its outbox file is the next run's again, not this run's to recycle or delete.
                    let name = Self.outboxName(claim)
                    removals.withLock { $0.outbox.removeAll { $0 == name } }
                    tally.withLock { $0.failed += 1 }
                }
                event.kind = .failed
                event.error = "cannot record the result: \(error.localizedDescription)"
            }
            emit(event)
        }
    }

    /// Every `interval` on `clock` until cancelled: records the ends since the last time and deletes the media copies
    /// they no longer need, while the transfers go on.
    func recordPeriodically(every interval: Duration, clock: any EngineClock) async {
        while !Task.isCancelled {
            do { try await clock.sleep(for: interval) } catch { return }
            recordEnds()
            removeFinishedMedia()
        }
    }

    /// Deletes the media copies the chains recorded so far no longer need (checked against the database under the
    /// media lock).
    func removeFinishedMedia() {
        let media = removals.withLock { removals in
            defer { removals.media = [] }
            return removals.media
        }
        try? store.removeUnneededMedia(media)
    }

    /// At the end of the run: deletes the outbox files of the chains that succeeded and the media copies not deleted
    /// yet.
    func removeFinishedFiles() {
        let finished = removals.withLock { removals in
            defer { removals.outbox = [] }
            return removals.outbox
        }
        for name in finished { outbox.remove(name) }
        removeFinishedMedia()
    }

    /// The outbox file of `claim`'s revision.
    static func outboxName(_ claim: SyncClaim) -> String {
        Outbox.fileName(uuid: claim.recipe.uuid.lowercasedString, revision: claim.revision)
    }
}
