import Foundation
import Locking
import OperationEngine
import RecipeModels
import RecipeStore

/// The part of a run that claims due recipes (or the ones asked for) a batch at a time and hands their chains to the
/// queue, keeping a window of them unfinished so that the memory of a run stays flat however many recipes are due.
///
/// Each claim is a commit synced to disk that holds the database's write lock meanwhile: the next batch is claimed
/// once half the window has ended, not one recipe at a time (docs/sync-engine.md gives the figures).
struct ChainFeeder: Sendable {
    let store: RecipeStore
    let settings: SyncSettings
    let options: SyncOptions
    let registry: ChainRegistry
    let reports: RunReports

    /// The most chains unfinished at once, for a queue running `steps` steps at once: eight per step (a link with a
    /// long round trip runs more steps, and needs as many more recipes under way to keep them busy).
    static func window(steps: Int) -> Int { max(steps * 8, 64) }

    /// Claims the recipes asked for, or up to `count` due recipes after id `after`.
    private func claim(_ count: Int, after: Int64) throws -> ClaimBatch {
        if let ids = options.ids {
            let batch = try store.claim(
                ids: ids, owner: settings.owner, now: settings.now(), leaseDuration: settings.leaseDuration,
                isOwnerAlive: settings.isOwnerAlive)
            reports.reportAlreadySynced(ids: ids, batch: batch)
            return batch
        }
        return try store.claimDue(
            owner: settings.owner, now: settings.now(), leaseDuration: settings.leaseDuration, limit: count, after: after,
            isOwnerAlive: settings.isOwnerAlive)
    }

    /// Feeds `queue` until every due recipe has its chain (or the run stopped), then waits for the chains to end.
    /// `anticipate` hears each claimed batch before its chains start (the destination asks about their images at
    /// once); `start` makes the chain of a claim (its group, which concludes the recipe when it finishes, also when it
    /// was stopped before it began).
    func feed(
        _ queue: ProcedureQueue, anticipate: @escaping @Sendable ([SyncClaim]) -> Void = { _ in },
        start: @escaping @Sendable (SyncClaim) -> AnyProcedure
    ) async throws {
        let cursor = Locked<(after: Int64, done: Bool)>((0, false))
        // A chain is its group and up to two steps: the window is counted in procedures.
        let window = Self.window(steps: queue.maxConcurrentProcedures)
        try await queue.feed(window: 3 * window, batch: window / 2) { count in
            // Batches of busy recipes only go on to the next batch: an empty answer would end the feed.
            while true {
                let (after, done) = cursor.withLock { ($0.after, $0.done) }
                guard !done, !registry.isStopped else { return [] }
                let batch = try claim(count, after: after)
                cursor.withLock { $0 = (batch.cursor, options.ids != nil || batch.isExhausted) }
                for busy in batch.busy { reports.reportBusy(busy) }
                if !batch.claims.isEmpty {
                    anticipate(batch.claims)
                    return batch.claims.map(start)
                }
            }
        }
        await queue.waitUntilAllFinished()
    }
}
