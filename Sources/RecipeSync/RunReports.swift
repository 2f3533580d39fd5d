import Foundation
import Locking
import RecipeModels
import RecipeStore
import Transport

/// The part of a run that reports recipes no chain runs for: busy in another process, already on the server,
/// waiting for a later retry, due while the server is unreachable, or in conflict. Each counts in the run's summary.
struct RunReports: Sendable {
    let store: RecipeStore
    let settings: SyncSettings
    let tally: Locked<SyncSummary>
    let emit: @Sendable (SyncEvent) -> Void

    /// Reports a recipe busy in another process (it counts as still waiting).
    func reportBusy(_ busy: BusyRecipe) {
        let holder = busy.processID.map { "uploading in pid \($0)" } ?? "uploading in another process"
        emit(SyncEvent(.skipped, id: busy.id, uuid: busy.uuid, title: busy.title, error: holder, time: settings.now()))
        tally.withLock { $0.waiting += 1 }
    }

    /// Reports the explicitly requested recipes the server already has: done, with nothing sent.
    func reportAlreadySynced(ids: [Int64], batch: ClaimBatch) {
        let handled = Set(batch.claims.map(\.recipe.id)).union(batch.busy.map(\.id))
        let rest = Array(Set(ids).subtracting(handled)).sorted()
        guard !rest.isEmpty, let recipes = try? store.recipes(ids: rest) else { return }
        for recipe in recipes {
            emit(SyncEvent(
                .done, id: recipe.id, uuid: recipe.uuid, title: recipe.title, revision: recipe.sync.revision,
                time: settings.now()))
        }
        tally.withLock { $0.done += recipes.count }
    }

    /// Reports the recipes waiting for a later retry (not due now); they count as still waiting.
    func reportWaiting(now: Date) throws {
        let waiting = try store.waitingRecipes(at: now)
        for recipe in waiting {
            let sync = recipe.sync.droppingLease(unless: settings.isOwnerAlive)
            let words = BlockedReason.describe(sync, id: recipe.id, at: now) ?? "waiting"  // advice in a shell's words
            emit(SyncEvent(
                .skipped, id: recipe.id, uuid: recipe.uuid, title: recipe.title, revision: recipe.sync.revision,
                delay: recipe.sync.nextAttemptAt.map { max(0, $0.timeIntervalSince(now)) }, error: words, time: now))
        }
        tally.withLock { $0.waiting += waiting.count }
    }

    /// Reminds of the recipes a run without ids leaves alone until a person acts: each failed one (exit status 1)
    /// and each cancelled one, with what happened and (through its hint) the command that syncs it again. A reminder
    /// is a `skipped` event: only the run that failed or cancelled a recipe reports it as such.
    func reportStopped(now: Date) throws {
        let recipes = try store.stoppedRecipes()
        var failed = 0
        for recipe in recipes {
            let isFailed = recipe.sync.state == .failed
            if isFailed { failed += 1 }
            let words = isFailed
                ? "failed earlier: \(recipe.sync.lastError ?? "gave up"); not retried without its id"
                : "cancelled earlier; left alone until edited or synced by id"
            emit(SyncEvent(
                .skipped, id: recipe.id, uuid: recipe.uuid, title: recipe.title, revision: recipe.sync.revision,
                error: words, time: now, hint: isFailed ? .retry : .resume))
        }
        tally.withLock { summary in
            summary.failedEarlier += failed
            summary.cancelledEarlier += recipes.count - failed
        }
    }

    /// Reports the due recipes as not sent, the server having refused the credentials before any was (they stay due).
    func reportNotSent(at now: Date) throws {
        let recipes = try store.dueRecipes(at: now)
        for recipe in recipes {
            emit(SyncEvent(
                .skipped, id: recipe.id, uuid: recipe.uuid, title: recipe.title, revision: recipe.sync.revision,
                error: "not sent: the server refused the credentials", time: now))
        }
        tally.withLock { $0.waiting += recipes.count }
    }

    /// Reports the recipes still in conflict that this run has not reported (`reported` holds those it has): each
    /// run says again that a person must choose, and counts them (exit 1). A reminder is a `skipped` event, not a
    /// `conflict`: only the run that finds a conflict reports it as one (what `--background` mails, once).
    func reportConflicts(except reported: Set<Int64>, at now: Date) throws {
        let recipes = try store.recipesInConflict().filter { !reported.contains($0.id) }
        for recipe in recipes {
            guard let conflict = recipe.sync.conflict else { continue }
            emit(SyncEvent(
                .skipped, id: recipe.id, uuid: recipe.uuid, title: recipe.title, revision: recipe.sync.revision,
                error: "in conflict: " + conflict.summary, time: now, hint: .resolve))
        }
        tally.withLock { $0.conflicts += recipes.count }
    }

    /// Records and reports that the server is unreachable: nothing sent or pulled, no attempt counted.
    func reportOffline(_ api: ServerAPI, ids: [Int64]?, since: Date, pulling: Bool) throws -> SyncSummary {
        let recipes = try store.dueRecipes(at: since, ids: ids).filter { recipe in
            recipe.sync.state != .synced || recipe.sync.revision > recipe.sync.syncedRevision
        }
        try store.markOffline(ids: recipes.map(\.id), since: since)
        let target = settings.reachability.unreachableWords(api.baseURL)
        for recipe in recipes {
            emit(SyncEvent(
                .offline, id: recipe.id, uuid: recipe.uuid, title: recipe.title, revision: recipe.sync.revision,
                error: target, time: since))
        }
        return tally.withLock { summary in
            summary.waiting += recipes.count
            if pulling { summary.pullStopped = PullStop(.unreachable, target) }
            return summary
        }
    }
}
