import Foundation
import Locking
import OperationEngine
import RecipeModels
import RecipeStore

/// The part of a run that watches its leases: every poll interval it reads which of them another process asked to
/// cancel, took over or saw deleted, and stops those chains; every third of the lease it renews them. It only reads
/// and renews: ends and files are the `EndRecorder`'s, so that a commit waited for never delays a cancellation.
final class LeasePoller: Sendable {
    private let store: RecipeStore
    private let settings: SyncSettings
    private let registry: ChainRegistry
    /// What the last poll read (see `LeaseView`).
    private let view = Locked(LeaseView())

    /// Creates the poller of a run whose chains `registry` holds.
    init(store: RecipeStore, settings: SyncSettings, registry: ChainRegistry) {
        self.store = store
        self.settings = settings
        self.registry = registry
    }

    /// Polls until cancelled, sleeping on the run's clock.
    func run() async {
        var lastRenewal = settings.now()
        while !Task.isCancelled {
            do { try await settings.clock.sleep(for: settings.pollInterval) } catch { return }
            poll()
            if settings.now().timeIntervalSince(lastRenewal) >= settings.leaseDuration / 3 {
                lastRenewal = settings.now()
                try? store.renewLeases(owner: settings.owner, until: lastRenewal.addingTimeInterval(settings.leaseDuration))
            }
        }
    }

    /// One poll: stops the chains whose cancellation was requested or whose lease was lost, and notes deletions.
    func poll() {
        // The chains running before the read: each registered after its claim committed, so a lease missing from the
        // report was lost, not not yet taken.
        let watched = registry.ids
        let polledAt = settings.now()
        guard let report = try? store.leaseReport(owner: settings.owner) else { return }
        for id in report.cancelRequested { registry.stop(id, .user) }
        for id in watched where !report.held.contains(id) { registry.stop(id, .leaseLost) }
        view.withLock { $0.update(report, at: polledAt) }
    }

    /// Whether this process still holds the lease of `claim`'s recipe and it was not deleted: from the last poll while
    /// that (or the claim) is recent, else from the database.
    func mayUpload(_ claim: SyncClaim) throws -> Bool {
        let claimedAt = (claim.recipe.sync.leaseExpiresAt ?? .distantPast).addingTimeInterval(-settings.leaseDuration)
        let known = view.withLock { $0.mayUpload(claim.recipe.id, claimedAt: claimedAt, now: settings.now()) }
        return try known ?? store.mayUpload(id: claim.recipe.id, owner: settings.owner)
    }
}
