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
        /// The changes whose image did not download earlier in this run, with why: not tried again before the next run.
        let failedBefore: [UUID: String]

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
        /// Its first changes, up to the first recipe another process holds.
        let leased: [ServerChange]
        /// The changes among them that cannot be applied now (an image that did not download), with why in words.
        let missing: [UUID: String]
        /// The changes among them whose download was stopped (the run is stopping): not applied, not recorded.
        let stopped: Set<UUID>
        /// The images downloaded (checked, not installed), by recipe.
        let fetched: [UUID: ImageDownload]

        /// Whether every change of the page is leased: the pull may go on to the next page.
        var whole: Bool { leased.count == page.changes.count }

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
        var failedBefore: [UUID: String] = [:]
        for change in leased where leases.imagesNeeded.contains(change.uuid) {
            guard let image = change.recipe?.fields.image, image.serverURL != nil else { continue }
            if let earlier = wentPast.withLock({ $0[change.uuid] }), earlier.version == change.version {
                failedBefore[change.uuid] = earlier.reason  // this run's pull after its push: reported already
                continue
            }
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
        return PageInFlight(page: page, since: since, leased: leased, chains: chains, failedBefore: failedBefore)
    }

    /// Waits for the downloads of `page`: the images downloaded and checked, not yet installed. A download that
    /// fails is reported; its change is not applied, the others are.
    func finish(_ page: PageInFlight) async -> PreparedPage {
        var fetched: [UUID: ImageDownload] = [:]
        var missing = page.failedBefore
        var stopped: Set<UUID> = []
        for chain in page.chains {
            let outcome = await chain.group.waitUntilFinished()
            if chain.id != 0 { registry.remove(chain.id) }
            if let download = chain.step.output {
                fetched[chain.change.uuid] = download
                continue
            }
            switch (outcome, (outcome.error as? StepFailure)?.kind) {
            case (.cancelled, _) where registry.isStopped:
                stopped.insert(chain.change.uuid)  // Ctrl-C, refused credentials: the run stops, nothing to record
            case (_, .credentials?), (_, .setup?):
                // The run stops as a page refused so would stop it: the recipe is not the reason.
                let failure = outcome.error as? StepFailure
                tally.withLock { tally in
                    if failure?.kind == .credentials { tally.credentialsRefused = true } else { tally.setupProblem = failure?.message }
                }
                registry.stopAll(failure?.kind == .credentials ? .credentials : .setup)
                stopped.insert(chain.change.uuid)
            default:
                let reason = "its image did not download: " + (outcome.error.map(ChainConclusion.describe) ?? "stopped")
                missing[chain.change.uuid] = reason
                reportNotPulled(chain.change, id: chain.id, reason: reason)
            }
        }
        return PreparedPage(
            page: page.page, since: page.since, leased: page.leased, missing: missing, stopped: stopped, fetched: fetched)
    }

    /// Reports that `change` (of local recipe `id`, 0 when new here) is not applied now, for `reason`, and counts it
    /// as waiting: the pull goes past it, the next run tries it again.
    func reportNotPulled(_ change: ServerChange, id: Int64, reason: String) {
        emit(SyncEvent(
            .skipped, id: id, uuid: change.uuid, title: change.recipe?.fields.title ?? "", step: .image,
            error: "not pulled yet, \(reason); the recipes after it are pulled, the next sync tries it again",
            time: settings.now()))
        tally.withLock { $0.waiting += 1 }
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

    /// Installs the images of `prepared` and applies its changes but those whose image is missing, moving the cursor
    /// up to the first of those (never past it: the next run reads it again), in one transaction (disk and database
    /// work, off the transport's thread); whether the pull may go on to the next page.
    func commit(_ prepared: PreparedPage) throws -> Bool {
        var missing = prepared.missing
        let downloaded = install(prepared.fetched, of: prepared.leased, missing: &missing, stopped: prepared.stopped)
        func applicable(_ change: ServerChange) -> Bool { missing[change.uuid] == nil && !prepared.stopped.contains(change.uuid) }
        let ready = prepared.leased.filter(applicable)
        let firstMissing = prepared.leased.firstIndex { !applicable($0) }
        let reached = firstMissing.map { $0 == 0 ? prepared.since : prepared.leased[$0 - 1].seq }
            ?? (prepared.whole ? prepared.page.next : (prepared.leased.last?.seq ?? prepared.since))
        // Once a change is gone past in this run, the cursor stays before it (`applyPage` never moves it back).
        let seq = heldAt.withLock { held in
            defer { if firstMissing != nil, held == nil { held = reached } }
            return held ?? reached
        }
        let now = settings.now()
        let toCome = prepared.leased.compactMap { change in
            missing[change.uuid].map { reason in
                PullToCome(uuid: change.uuid, seq: change.seq, version: change.version,
                           title: change.recipe?.fields.title ?? "", reason: reason, since: now)
            }
        }
        wentPast.withLock { failed in
            for entry in toCome { failed[entry.uuid] = (entry.version, entry.reason) }
        }
        let results: [AppliedChange]
        do {
            results = try store.applyPage(
                ready.map(Self.pulled), through: seq, owner: settings.owner, releasing: prepared.page.changes.map(\.uuid),
                toCome: toCome)
        } catch {
            try? store.releaseLeases(owner: settings.owner)
            throw error
        }
        for (change, result) in zip(ready, results) {
            report(result, version: change.version, downloaded: downloaded[change.uuid])
        }
        return prepared.whole
    }

    /// Installs in `images/` the downloads of the changes of `leased`, all at once (off the transport's thread: they
    /// are flushed to disk), and discards the others; a change whose image could not be stored joins `missing`.
    func install(
        _ fetched: [UUID: ImageDownload], of leased: [ServerChange], missing: inout [UUID: String], stopped: Set<UUID>
    ) -> [UUID: ImageReference] {
        let wanted = Set(leased.map(\.uuid)).subtracting(missing.keys).subtracting(stopped)
        for (uuid, download) in fetched where !wanted.contains(uuid) { download.discard() }
        let installing = leased.compactMap { change in
            wanted.contains(change.uuid) ? fetched[change.uuid].map { (change, $0) } : nil
        }
        var downloaded: [UUID: ImageReference] = [:]
        for ((change, _), result) in zip(installing, store.images.install(installing.map(\.1))) {
            switch result {
            case .success(let reference):
                downloaded[change.uuid] = reference
            case .failure(let error):
                let reason = "its image could not be stored: " + error.localizedDescription
                missing[change.uuid] = reason
                reportNotPulled(change, id: (try? store.recipe(uuid: change.uuid))?.id ?? 0, reason: reason)
            }
        }
        return downloaded
    }
}
