import Foundation
import OperationEngine
import RecipeModels
import RecipeStore

/// The pages of a pull: leased and their downloads queued (`begin`), downloaded (`finish`), then installed and
/// applied (`commit`).
extension PullRun {
    /// A page leased, its image downloads queued.
    struct PageInFlight: Sendable {
        /// The whole page.
        let page: ChangesPage
        /// Where the cursor was before it.
        let since: Int64
        /// Its first changes, up to the first recipe another process holds.
        let leased: [ServerChange]
        /// The download chains, one per change whose image this home lacks.
        let chains: [DownloadChain]

        /// Whether every change of the page is leased.
        var leasedWhole: Bool { leased.count == page.changes.count }
    }

    /// One image download on the queue: a group holding the recipe's mutual exclusion, as an upload does, around
    /// the image step.
    struct DownloadChain: Sendable {
        /// The change whose image it downloads.
        let change: ServerChange
        /// The recipe's local id (0 when it is new here).
        let id: Int64
        /// The image step.
        let step: Procedure<ImageDownload>
        /// The group around it, as the queue runs it.
        let group: AnyProcedure
    }

    /// A page downloaded, not yet applied.
    struct PreparedPage: Sendable {
        /// The whole page.
        let page: ChangesPage
        /// Where the cursor was before it.
        let since: Int64
        /// Its first changes, up to the first that cannot be applied now (busy elsewhere, an image that failed).
        let ready: [ServerChange]
        /// The images downloaded (checked, not installed), by recipe.
        let fetched: [UUID: ImageDownload]

        /// Whether every change of the page is ready.
        var whole: Bool { ready.count == page.changes.count }

        /// Lets go of the downloads (the page is not applied).
        func discard() { for download in fetched.values { download.discard() } }
    }

    /// Leases the recipes of `page` (up to the first another process holds, which is reported) and queues a download
    /// chain for every image they need.
    func begin(_ page: ChangesPage, since: Int64) throws -> PageInFlight {
        let changes = page.changes
        let leases = try store.leaseForPull(
            changes.map(Self.pulled), owner: settings.owner, now: settings.now(), leaseDuration: settings.leaseDuration,
            isOwnerAlive: settings.isOwnerAlive)
        let leased = Array(changes.prefix(leases.applicable))
        if leased.count < changes.count, let busy = try? store.recipe(uuid: changes[leased.count].uuid) {
            emit(SyncEvent(.skipped, id: busy.id, uuid: busy.uuid, title: busy.title, error: "being synced by another process; pulled later",
                           time: settings.now()))
            tally.withLock { $0.waiting += 1 }
        }
        var chains: [DownloadChain] = []
        for change in leased where leases.imagesNeeded.contains(change.uuid) {
            guard let image = change.recipe?.fields.image, image.serverURL != nil else { continue }
            let steps = self.steps
            let step = Procedure<ImageDownload>(
                name: "download \(image.sha256.prefix(12))", conditions: parts.reachability.map { [$0] } ?? [],
                retry: parts.retry, tags: ["uuid": change.uuid.lowercasedString, "step": "image"]
            ) { _ in try await steps.fetchImage(image, of: change.uuid) }
            let group = GroupProcedure(
                name: "download #\(change.uuid.lowercasedString)",
                conditions: [MutualExclusion("recipe:\(change.uuid.lowercasedString)")], children: [step.erased])
            let id = leases.localIDs[change.uuid] ?? 0
            if id != 0, let reason = registry.register(id, chain: group.erased) {
                group.cancel(reason: .requested(ChainRegistry.words(reason)))
            }
            chains.append(DownloadChain(change: change, id: id, step: step, group: group.erased))
        }
        if !chains.isEmpty { queue.add(chains.map(\.group)) }
        return PageInFlight(page: page, since: since, leased: leased, chains: chains)
    }

    /// Waits for the downloads of `page`: the images downloaded and checked, not yet installed. A download that
    /// fails is reported; the page stops before its change.
    func finish(_ page: PageInFlight) async -> PreparedPage {
        var fetched: [UUID: ImageDownload] = [:]
        for chain in page.chains {
            let outcome = await chain.group.waitUntilFinished()
            if chain.id != 0 { registry.remove(chain.id) }
            if let download = chain.step.output {
                fetched[chain.change.uuid] = download
            } else {
                let reason = outcome.error.map(ChainConclusion.describe) ?? "stopped"
                emit(SyncEvent(
                    .skipped, id: chain.id, uuid: chain.change.uuid, title: chain.change.recipe?.fields.title ?? "",
                    step: .image, error: "not pulled yet, its image did not download: " + reason, time: settings.now()))
                tally.withLock { $0.waiting += 1 }
            }
        }
        let missing = Set(page.chains.map(\.change.uuid)).subtracting(fetched.keys)
        let ready = page.leased.firstIndex { missing.contains($0.uuid) }.map { Array(page.leased.prefix($0)) } ?? page.leased
        return PreparedPage(page: page.page, since: page.since, ready: ready, fetched: fetched)
    }

    /// Stops the downloads of `page` and lets go of what they fetched (a page before it stopped short).
    func cancel(_ page: PageInFlight) async {
        for chain in page.chains { chain.group.cancel(reason: .requested("the pull stopped before this page")) }
        for chain in page.chains {
            _ = await chain.group.waitUntilFinished()
            if chain.id != 0 { registry.remove(chain.id) }
            chain.step.output?.discard()
        }
    }

    /// Installs the images of `prepared` and applies its ready changes, moving the cursor past them, in one
    /// transaction (disk and database work, off the transport's thread); whether the whole page was applied.
    func commit(_ prepared: PreparedPage) throws -> Bool {
        var ready = prepared.ready
        let downloaded = install(prepared.fetched, for: &ready)
        let whole = ready.count == prepared.page.changes.count
        let seq = whole ? prepared.page.next : (ready.last?.seq ?? prepared.since)
        let results: [AppliedChange]
        do {
            results = try store.applyPage(
                ready.map(Self.pulled), through: seq, owner: settings.owner, releasing: prepared.page.changes.map(\.uuid))
        } catch {
            try? store.releaseLeases(owner: settings.owner)
            throw error
        }
        for (change, result) in zip(ready, results) {
            report(result, version: change.version, downloaded: downloaded[change.uuid])
        }
        return whole
    }

    /// Installs in `images/` the downloads of the changes of `ready`, all at once (off the transport's thread: they
    /// are flushed to disk), and discards the others; `ready` stops before a change whose image could not be stored.
    func install(_ fetched: [UUID: ImageDownload], for ready: inout [ServerChange]) -> [UUID: ImageReference] {
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
}
