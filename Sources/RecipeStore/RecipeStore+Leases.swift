import Foundation
import GRDB
import RecipeModels

/// The recipes leased to one owner, as `leaseReport` read them.
public struct LeaseReport: Sendable, Equatable {
    /// Every recipe leased to the owner.
    public var held: Set<Int64> = []
    /// Of those, the ones whose cancellation was requested (`recipes cancel` in any process).
    public var cancelRequested: Set<Int64> = []
    /// Of those, the ones deleted by the user (deletions being sent included).
    public var deleted: Set<Int64> = []

    public init(held: Set<Int64> = [], cancelRequested: Set<Int64> = [], deleted: Set<Int64> = []) {
        self.held = held
        self.cancelRequested = cancelRequested
        self.deleted = deleted
    }
}

extension RecipeStore {
    /// Extends every lease `owner` holds to `until` (a lease taken over by another process is not among them: the
    /// poller's `leaseReport` finds it missing and stops its upload).
    public func renewLeases(owner: String, until: Date) throws(StoreError) {
        try applyToLeases(of: owner, .leaseRenewed(owner: owner, until: until))
    }

    /// Releases every lease `owner` still holds (the end of a run, whatever happened).
    public func releaseLeases(owner: String) throws(StoreError) {
        try applyToLeases(of: owner, .leaseReleased(owner: owner))
    }

    /// Applies `event` to every recipe leased to `owner`, in one transaction.
    private func applyToLeases(of owner: String, _ event: RecipeSyncMachine.Event) throws(StoreError) {
        try write { db in
            let ids = try Int64.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM recipes WHERE lease_owner = ?"), arguments: [owner])
            for id in ids { try Self.apply(event, to: id, db) }
        }
    }

    /// The recipes leased to `owner` now, and which of them were cancelled or deleted meanwhile: what the sync's
    /// poller reads every poll interval.
    public func leaseReport(owner: String) throws(StoreError) -> LeaseReport {
        try read { db in
            var report = LeaseReport()
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT id, cancel_requested, deleted FROM recipes WHERE lease_owner = ?"),
                arguments: [owner])
            while let row = try rows.next() {
                let id: Int64 = row[0]
                report.held.insert(id)
                if row[1] as Int64 != 0 { report.cancelRequested.insert(id) }
                if row[2] as Int64 != 0 { report.deleted.insert(id) }
            }
            return report
        }
    }

    /// Whether `owner` still holds the lease of recipe `id` and it is not being deleted, read from the database: what
    /// the JSON step asks when the poller's last report is not recent enough to decide. A read, not a write: the
    /// claim already recorded that the server may get this revision (`sentRevision`).
    public func mayUpload(id: Int64, owner: String) throws(StoreError) -> Bool {
        try peek { db in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE id = ? AND lease_owner = ? AND deleted = 0)"),
                arguments: [id, owner]
            ) ?? false
        }
    }

    /// Whether `owner` still holds the lease of recipe `id` (what `recipes cancel` waits for to say it stopped).
    public func isLeased(id: Int64, by owner: String) throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE id = ? AND lease_owner = ?)", arguments: [id, owner]
            ) ?? false
        }
    }

    /// Persists a failed attempt that will be retried within this run (so that `kill -9` keeps the count): the
    /// recipe is `waiting` until its next attempt, which other processes report as waiting (or busy while the lease
    /// is live) rather than overlooking it.
    public func recordAttempt(id: Int64, owner: String, attempts: Int, nextAttemptAt: Date, error: String) throws(StoreError) {
        try write { db in
            _ = try Self.apply(.attemptFailed(owner: owner, attempts: attempts, nextAttemptAt: nextAttemptAt, error: error), to: id, db)
        }
    }

    /// Marks the due recipes `ids` as waiting for the network since `since` (nothing was claimed or sent).
    public func markOffline(ids: [Int64], since: Date) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try write { db in
            for id in ids { try Self.apply(.offline(since: since), to: id, db) }
        }
    }
}
