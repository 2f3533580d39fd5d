import Foundation
import Locking
import OperationEngine
import RecipeModels
import RecipeStore
import Transport

/// The part of a run that pulls (CONTRACT section 6): it reads the server's changes feed from this home's cursor,
/// a page at a time; for each page it leases the recipes it names (up to the first one another process holds), runs
/// a download chain for every image this home lacks, then applies the page — add, replace, merge, conflict, remove —
/// and moves the cursor past it, in one transaction (`RecipeStore.applyPage`). A pull killed at any moment re-applies
/// at most one page; the cursor never passes a change that was not applied.
struct PullRun: Sendable {
    let store: RecipeStore
    let settings: SyncSettings
    let requests: ChainRequests
    let queue: ProcedureQueue
    let registry: ChainRegistry
    let parts: UploadChain.Parts
    let tally: Locked<SyncSummary>
    let emit: @Sendable (SyncEvent) -> Void

    /// The most changes a page holds.
    static let pageSize = 100

    /// How the pull ended.
    enum End: Equatable {
        /// Every change up to the server's latest is applied.
        case complete
        /// It stopped before a change it could not apply now (a recipe busy elsewhere, a download that failed, the
        /// server unreachable); the cursor stays before it.
        case stopped
    }

    /// Pulls until the feed is read or a change cannot be applied now.
    func run() async throws -> End {
        // Images installed before the change naming them is applied are not garbage to another process's collection.
        let inUse = store.images.markInUse()
        defer { withExtendedLifetime(inUse) {} }
        var cursor = try store.feedCursor()
        var newServer = false
        while true {
            guard !registry.isStopped else { return .stopped }
            guard let page = try await fetchPage(since: cursor.seq) else { return .stopped }
            if page.server != cursor.server {
                // The first pull, or another server, or this one reset: its whole feed, from the start.
                newServer = cursor.server != nil
                try store.startFeed(of: page.server)
                let wasAt = cursor.seq
                cursor = FeedCursor(server: page.server, seq: 0)
                if wasAt != 0 { continue }
            }
            guard !page.changes.isEmpty else { break }
            let applied = try await apply(page, since: cursor.seq)
            cursor.seq = applied.seq
            guard applied.whole else { return .stopped }
            if !page.more { break }
        }
        if newServer { try store.finishServerChange() }
        return .complete
    }

    /// Applies as much of `page` as can be applied now: whether all of it was, and the cursor after it.
    private func apply(_ page: ChangesPage, since: Int64) async throws -> (whole: Bool, seq: Int64) {
        let changes = page.changes
        let leases = try store.leaseForPull(
            changes.map(Self.pulled), owner: settings.owner, now: settings.now(), leaseDuration: settings.leaseDuration,
            isOwnerAlive: settings.isOwnerAlive)
        let leasable = leases.applicable
        var ready = Array(changes.prefix(leasable))
        if leasable < changes.count, let busy = try? store.recipe(uuid: changes[leasable].uuid) {
            emit(SyncEvent(.skipped, id: busy.id, uuid: busy.uuid, title: busy.title, error: "being synced by another process; pulled later",
                           time: settings.now()))
            tally.withLock { $0.waiting += 1 }
        }
        let fetched = await download(ready.filter { leases.imagesNeeded.contains($0.uuid) })
        if let failed = ready.firstIndex(where: { leases.imagesNeeded.contains($0.uuid) && fetched[$0.uuid] == nil }) {
            ready = Array(ready.prefix(failed))
        }
        let downloaded = install(fetched, for: &ready)
        let seq = ready.count == changes.count ? page.next : (ready.last?.seq ?? since)
        let results: [AppliedChange]
        do {
            results = try store.applyPage(ready.map(Self.pulled), through: seq, owner: settings.owner)
        } catch {
            try? store.releaseLeases(owner: settings.owner)
            throw error
        }
        try? store.releaseLeases(owner: settings.owner)
        for (change, result) in zip(ready, results) {
            report(result, version: change.version, downloaded: downloaded[change.uuid])
        }
        return (ready.count == changes.count, seq)
    }

    /// Installs in `images/` the downloads of the changes of `ready`, all at once (off the transport's thread: each
    /// is flushed to disk), and discards the others; `ready` stops before a change whose image could not be stored.
    private func install(_ fetched: [UUID: ImageDownload], for ready: inout [ServerChange]) -> [UUID: ImageReference] {
        let wanted = Set(ready.map(\.uuid))
        for (uuid, download) in fetched where !wanted.contains(uuid) { download.discard() }
        let installing = ready.compactMap { change in fetched[change.uuid].map { (change, $0) } }
        var downloaded: [UUID: ImageReference] = [:]
        var cut = ready.count
        for ((change, _), result) in zip(installing, store.images.install(installing.map(\.1))) {
            switch result {
            case .success(let reference):
                downloaded[change.uuid] = reference
            case .failure(let error):
                let id = (try? store.recipe(uuid: change.uuid))?.id ?? 0
                emit(SyncEvent(
                    .skipped, id: id, uuid: change.uuid, title: change.recipe?.fields.title ?? "", step: .image,
                    error: "not pulled yet, its image could not be stored: " + error.localizedDescription, time: settings.now()))
                tally.withLock { $0.waiting += 1 }
                cut = min(cut, ready.firstIndex { $0.uuid == change.uuid } ?? cut)
            }
        }
        ready = Array(ready.prefix(cut))
        return downloaded
    }

    /// Runs a download chain for every change of `changes` (each names an image this home lacks), all at once on the
    /// queue (a group holding the recipe's mutual exclusion, as an upload does, around the image step); returns the
    /// images downloaded and checked, not yet installed, by recipe. A download that fails is reported; the page stops
    /// before its change.
    private func download(_ changes: [ServerChange]) async -> [UUID: ImageDownload] {
        var chains: [(change: ServerChange, id: Int64, step: Procedure<ImageDownload>, group: AnyProcedure)] = []
        for change in changes {
            guard let image = change.recipe?.fields.image, let url = image.serverURL else { continue }
            let requests = self.requests
            let step = Procedure<ImageDownload>(
                name: "download \(image.sha256.prefix(12))", conditions: parts.reachability.map { [$0] } ?? [],
                retry: parts.retry, tags: ["uuid": change.uuid.lowercasedString, "step": "image"]
            ) { _ in try await requests.fetchImage(sha256: image.sha256, url: url) }
            let group = GroupProcedure(
                name: "download #\(change.uuid.lowercasedString)",
                conditions: [MutualExclusion("recipe:\(change.uuid.lowercasedString)")], children: [step.erased])
            let id = (try? store.recipe(uuid: change.uuid))?.id ?? 0
            if id != 0, let reason = registry.register(id, chain: group.erased) {
                group.cancel(reason: .requested(ChainRegistry.words(reason)))
            }
            chains.append((change, id, step, group.erased))
        }
        guard !chains.isEmpty else { return [:] }
        queue.add(chains.map(\.group))
        var downloaded: [UUID: ImageDownload] = [:]
        for chain in chains {
            let outcome = await chain.group.waitUntilFinished()
            if chain.id != 0 { registry.remove(chain.id) }
            if let reference = chain.step.output {
                downloaded[chain.change.uuid] = reference
            } else {
                let reason = outcome.error.map(ChainConclusion.describe) ?? "stopped"
                emit(SyncEvent(
                    .skipped, id: chain.id, uuid: chain.change.uuid, title: chain.change.recipe?.fields.title ?? "",
                    step: .image, error: "not pulled yet, its image did not download: " + reason, time: settings.now()))
                tally.withLock { $0.waiting += 1 }
            }
        }
        return downloaded
    }

    /// Fetches one page of the feed (a procedure with the run's reachability condition and retry policy); nil when
    /// the server cannot be reached now or keeps failing (reported, counted as waiting).
    private func fetchPage(since seq: Int64) async throws -> ChangesPage? {
        let requests = self.requests
        let fetch = Procedure<ChangesPage>(
            name: "changes since \(seq)", conditions: parts.reachability.map { [$0] } ?? [], retry: parts.retry
        ) { _ in
            let response = try await requests.send(requests.api.changes(since: seq, limit: Self.pageSize), what: "changes")
            guard response.status == 200 else { throw requests.failure(response, what: "changes") }
            guard let page = ChangesPage(response.body) else {
                throw StepFailure(.transient(retryAfter: nil), "changes: the server's page is not the recipe server's changes feed")
            }
            return page
        }
        queue.add(fetch)
        switch await fetch.waitUntilFinished() {
        case .succeeded:
            return fetch.output
        case .failed(let error as StepFailure) where error.kind == .credentials:
            tally.withLock { $0.credentialsRefused = true }
            registry.stopAll(.credentials)
            return nil
        case let outcome:
            let reason = outcome.error.map(ChainConclusion.describe) ?? "interrupted"
            tally.withLock { $0.pullStopped = reason }
            return nil
        }
    }

    /// Reports what applying one change did, and counts it.
    private func report(_ applied: AppliedChange, version: Int64, downloaded: ImageReference?) {
        let id = applied.id ?? 0
        func event(_ kind: SyncEvent.Kind, error: String? = nil, bytes: Int64? = nil) -> SyncEvent {
            SyncEvent(kind, id: id, uuid: applied.uuid, title: applied.title, revision: version, bytes: bytes, error: error,
                      time: settings.now())
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
            emit(event(.conflict, error: conflict.blocked(id: id)))
            tally.withLock { $0.conflicts += 1 }
        case .removed:
            emit(event(.removed))
            tally.withLock { $0.removed += 1 }
        }
    }

    /// The store's form of a change.
    static func pulled(_ change: ServerChange) -> PulledChange {
        let copy: ServerCopy = change.recipe.map { .live(version: change.version, fields: $0.fields) }
            ?? .deleted(version: change.version)
        return PulledChange(uuid: change.uuid, copy: copy, seq: change.seq)
    }
}
