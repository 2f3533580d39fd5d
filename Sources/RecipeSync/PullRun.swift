import Foundation
import Locking
import OperationEngine
import RecipeModels
import RecipeStore
import Transport

/// The part of a run that pulls (docs/sync-engine.md, "Two-way sync and conflicts"): it reads the server's changes feed from this home's cursor,
/// a page at a time; for each page it leases the recipes it names (up to the first one another process holds), runs
/// a download chain for every image this home lacks, then applies the page — add, replace, merge, conflict, remove —
/// and moves the cursor past it, in one transaction (`RecipeStore.applyPage`). A pull killed at any moment re-applies
/// at most one page; the cursor never passes a change that was not applied.
///
/// A change whose image cannot be fetched never holds back the changes after it: they are applied, it is recorded
/// as still to come (`PullToCome`, which `status` shows), and the cursor stays before it, so that the next run reads
/// it again and tries its image once more (the changes after it, read again, are already here: nothing is done).
struct PullRun: Sendable {
    let store: RecipeStore
    let settings: SyncSettings
    let steps: ChainSteps
    let queue: ProcedureQueue
    let registry: ChainRegistry
    let parts: UploadChain.Parts
    let tally: Locked<SyncSummary>
    let emit: @Sendable (SyncEvent) -> Void
    /// The round trip to the destination as measured so far in this run (nil: not yet): it sizes the pages.
    var roundTrip: @Sendable () -> Duration? = { nil }

    /// How many times the server's id changed in this run's pulls (a run pulls before and after it pushes): at most
    /// once is followed (`FeedProgress`).
    let serverChanges = Locked(0)

    /// Where the cursor stays in this pull: before the first change it went past (nil: none yet).
    let heldAt = Locked<Int64?>(nil)

    /// The changes this run's pulls went past, by recipe: the version and why. The pull after the push does not
    /// download their images again (the next run does).
    let wentPast = Locked<[UUID: (version: Int64, reason: String)]>([:])

    /// The most changes a page holds on a short round trip, and on any: the contract's default and its limit.
    static let pageSizes = 100...1000

    /// The most changes a page asks for on a link of `roundTrip` (nil: not measured yet). Each page costs a round trip
    /// before the next can be asked for (it names the next), so a long round trip asks for larger pages: 100 per 10 ms,
    /// from 100 (loopback, a LAN, and until the round trip is known) to 1,000 (100 ms and more). A plain function,
    /// tested from a table.
    static func pageSize(roundTrip: Duration?) -> Int {
        guard let roundTrip, roundTrip > .zero else { return pageSizes.lowerBound }
        let tens = Int((roundTrip / .milliseconds(10)).rounded(.up))
        return min(pageSizes.upperBound, max(pageSizes.lowerBound, tens * 100))
    }

    /// How the pull ended.
    enum End: Equatable {
        /// Every change up to the server's latest is applied.
        case complete
        /// It stopped before a change it could not apply now (a recipe busy elsewhere, the server unreachable), or
        /// went past changes whose image did not download; the cursor stays before the first of them.
        case stopped
    }

    /// Pulls until the feed is read or a change cannot be applied now.
    ///
    /// Pages are pipelined: while one page's images download, the next page is fetched and leased and its downloads
    /// queued behind them (the transfers never wait for a page boundary), and while a page's images are installed
    /// and its changes applied (disk and database work), the next one's images download. Pages are still applied in
    /// order, and the cursor only ever moves past a page applied whole.
    func run() async throws -> End {
        // Images installed before the change naming them is applied are not garbage to another process's collection.
        let inUse = store.images.markInUse()
        defer { withExtendedLifetime(inUse) {} }
        heldAt.withLock { $0 = nil }
        var pipeline = Pipeline()
        do {
            return try await pages(&pipeline)
        } catch {
            await pipeline.abandon(self)
            throw error
        }
    }

    /// What a pull has under way: the page whose images are downloading, and the commit of the page before.
    struct Pipeline {
        var downloading: PageInFlight?
        var committing: Task<Bool, any Error>?

        /// Waits for the commit under way; whether it applied its whole page (true when there was none).
        mutating func committed() async throws -> Bool {
            defer { committing = nil }
            return try await committing?.value ?? true
        }

        /// Stops the downloads under way (their files discarded, their leases released) and waits for the commit.
        mutating func abandon(_ pull: PullRun) async {
            if let page = downloading { await pull.cancel(page) }
            downloading = nil
            _ = try? await committed()
            try? pull.store.releaseLeases(owner: pull.settings.owner)
        }
    }

    /// The loop of `run`.
    private func pages(_ pipeline: inout Pipeline) async throws -> End {
        var cursor = try store.feedCursor()
        var newServer = false
        var since = cursor.seq
        while true {
            if registry.isStopped {
                // Ctrl-C (or refused credentials): what was downloaded is applied, the rest waits for the next run.
                _ = try await drain(&pipeline)
                tally.withLock { $0.pullStopped = $0.pullStopped ?? PullStop(.interrupted, "interrupted before the server's latest change") }
                return .stopped
            }
            guard let page = try await fetchPage(since: since) else {
                // What was downloaded before is applied; the cursor stops after it.
                _ = try await drain(&pipeline)
                return .stopped
            }
            if case .stop(let reason) = FeedProgress.judge(
                page, since: page.server == cursor.server ? since : 0, cursorServer: cursor.server,
                serverChanges: serverChanges.withLock { $0 })
            {
                _ = try await drain(&pipeline)
                tally.withLock { $0.pullStopped = PullStop(.failed, reason) }
                return .stopped
            }
            if page.server != cursor.server {
                serverChanges.withLock { $0 += 1 }
                // The first pull, or another server, or this one reset: its whole feed, from the start.
                guard try await drain(&pipeline) else { return .stopped }
                newServer = cursor.server != nil
                try store.startFeed(of: page.server)
                let wasAt = since
                cursor = FeedCursor(server: page.server, seq: 0)
                since = 0
                if wasAt != 0 { continue }
            }
            guard !page.changes.isEmpty else { break }
            let next = try begin(page, since: since)
            if pipeline.downloading != nil {
                guard try await commitDownloading(&pipeline) else {
                    await cancel(next)
                    await pipeline.abandon(self)
                    return .stopped
                }
            }
            pipeline.downloading = next
            // A page that stops before a recipe busy elsewhere is the last: the cursor cannot pass it.
            guard next.leasedWhole, page.more else { break }
            since = page.next
        }
        guard try await drain(&pipeline), heldAt.withLock({ $0 == nil }) else { return .stopped }
        // The end of a new server's full pass, begun in this run or in one that was interrupted (`startFeed` recorded
        // what it owes with the server's id).
        if try newServer || store.owesServerChange() { try store.finishServerChange() }
        return .complete
    }

    /// Waits for the page downloading and hands it to a commit of its own, once the commit before has applied its
    /// whole page; false (nothing more may be applied) when that commit or this page stops short.
    private func commitDownloading(_ pipeline: inout Pipeline) async throws -> Bool {
        guard let downloading = pipeline.downloading else { return true }
        pipeline.downloading = nil
        let prepared = await finish(downloading)
        guard try await pipeline.committed() else {
            prepared.discard()
            return false
        }
        pipeline.committing = Task { try self.commit(prepared) }
        return prepared.whole
    }

    /// Commits everything under way; whether every page was applied whole.
    private func drain(_ pipeline: inout Pipeline) async throws -> Bool {
        let whole = try await commitDownloading(&pipeline)
        let committed = try await pipeline.committed()
        return whole && committed
    }

    /// Fetches one page of the feed (a procedure with the run's reachability condition and retry policy); nil when
    /// the server cannot be reached now or keeps failing (reported, counted as waiting).
    private func fetchPage(since seq: Int64) async throws -> ChangesPage? {
        let destination = steps.destination
        let fetch = Procedure<ChangesPage>(
            name: "changes since \(seq)", conditions: parts.reachability.map { [$0] } ?? [], retry: parts.retry
        ) { [roundTrip] _ in try await destination.changes(after: seq, limit: Self.pageSize(roundTrip: roundTrip())) }
        queue.add(fetch)
        switch await fetch.waitUntilFinished() {
        case .succeeded:
            return fetch.output
        case .failed(let error as StepFailure) where error.kind == .credentials:
            tally.withLock { $0.credentialsRefused = true }
            registry.stopAll(.credentials)
            return nil
        case .failed(let error as StepFailure) where error.kind == .setup:
            tally.withLock { $0.setupProblem = error.message }
            registry.stopAll(.setup)
            return nil
        case let outcome:
            tally.withLock { $0.pullStopped = PullStop.of(outcome) }
            return nil
        }
    }

    /// Reports what applying one change did, and counts it.
    func report(_ applied: AppliedChange, version: Int64, downloaded: ImageReference?) {
        var id = applied.id ?? 0
        var title = applied.title
        if case .removed(let formerID, let formerTitle) = applied.outcome {
            (id, title) = (formerID, formerTitle)  // named as this device knew it: the id it had, its title here
        }
        func event(
            _ kind: SyncEvent.Kind, error: String? = nil, bytes: Int64? = nil, hint: SyncEvent.Hint? = nil
        ) -> SyncEvent {
            SyncEvent(
                kind, id: id, uuid: applied.uuid, title: title, bytes: bytes, error: error, time: settings.now(),
                version: version, hint: hint)
        }
        if let downloaded { emit(event(.downloaded, bytes: downloaded.byteCount)) }
        switch applied.outcome {
        case .unchanged:
            break
        case .added, .replaced:
            emit(event(.pulled))
            tally.withLock { $0.pulled += 1 }
        case .acknowledged:
            emit(event(.pulled, error: "the server has this device's draft"))
            tally.withLock { $0.pulled += 1 }
        case .merged(let pending):
            emit(event(.merged, error: pending ? "sent to the server next" : nil))
            tally.withLock { $0.merged += 1 }
        case .conflict(let conflict):
            emit(event(.conflict, error: conflict.summary, hint: .resolve))
            tally.withLock { $0.conflicts += 1 }
        case .removed:
            emit(event(.removed))
            tally.withLock { $0.removed += 1 }
        case .refused(let reason):
            // Reported once: the cursor moves past the change, and this home keeps its copy (a push over the server's
            // copy fails with the same words).
            emit(event(.failed, error: "not pulled: " + reason + "; this device keeps its copy: fix the recipe on the server"))
            tally.withLock { $0.failed += 1 }
        }
    }

    /// The store's form of a change.
    static func pulled(_ change: ServerChange) -> PulledChange {
        let copy: ServerCopy = change.recipe.map { .live(version: change.version, fields: $0.fields) }
            ?? .deleted(version: change.version)
        return PulledChange(uuid: change.uuid, copy: copy, seq: change.seq)
    }
}
