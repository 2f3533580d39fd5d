import Foundation
import GRDB
import RecipeModels

/// One recipe claimed for upload by this process: a snapshot of the exact revision to send, taken in the same
/// transaction as the lease, so that the JSON written to the outbox is the revision the lease was taken for.
public struct SyncClaim: Sendable, Equatable {
    /// The recipe at the claimed revision, with its ingredients and steps.
    public var recipe: Recipe
    /// Whether the chain is a `DELETE` (the user deleted the recipe).
    public var isDeletion: Bool
    /// The revision this chain uploads (`version` in the JSON).
    public var revision: Int64 { recipe.sync.revision }
    /// Failed attempts before this run, counted against the retry limit.
    public var attempts: Int { recipe.sync.attempts }

    /// Whether the image must go to the server first: the recipe has an image the server is not known to have.
    public var imageToSend: ImageReference? {
        guard !isDeletion, let image = recipe.image else { return nil }
        if image.sha256 == recipe.sync.remoteImageSHA256, recipe.sync.remoteImageURL != nil { return nil }
        return image
    }
}

/// A recipe that was due but is being uploaded by another live process: reported, not waited on.
public struct BusyRecipe: Sendable, Equatable {
    /// The recipe's local id.
    public var id: Int64
    /// The recipe's identity.
    public var uuid: UUID
    /// Its title.
    public var title: String
    /// The process holding its lease, when the owner names one.
    public var processID: Int32?
}

/// What one claiming transaction found.
public struct ClaimBatch: Sendable, Equatable {
    /// Recipes now leased to the caller.
    public var claims: [SyncClaim] = []
    /// Due recipes leased by another live process.
    public var busy: [BusyRecipe] = []
    /// The highest id looked at: the next batch starts after it.
    public var cursor: Int64 = 0
    /// Whether no due recipe remains after `cursor`.
    public var isExhausted = true
}

/// One chain's end, for `finishChains`.
public struct ChainEnding: Sendable {
    /// The claim the chain ran for.
    public var claim: SyncClaim
    /// How it ended.
    public var result: ChainResult
    /// The image the server confirmed during the chain (SHA-256 and URL), whatever the outcome.
    public var confirmedImage: (sha256: String, url: String)?

    public init(_ claim: SyncClaim, _ result: ChainResult, confirmedImage: (sha256: String, url: String)? = nil) {
        self.claim = claim
        self.result = result
        self.confirmedImage = confirmedImage
    }
}

/// What `finishChains` recorded for one chain.
public struct FinishedChain: Sendable, Equatable {
    /// Media copies no longer needed (the server has their image), for the caller to delete under the media lock.
    public var unneededMedia: [String]
    /// Whether the recipe was edited while its chain ran (its revision moved on): the edit is still due.
    public var editedMeanwhile: Bool
}

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
    /// Runs `sql` through the connection's statement cache: the sync's few statements run thousands of times, and
    /// preparing each anew (with GRDB's authorizer) was a measurable part of a long run.
    static func exec(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    // MARK: Claiming

    /// The SQL condition of a recipe that background sync should upload at `?` (now): pending, waiting past its
    /// retry time, or a deletion to send — never cancelled, failed or synced.
    static let dueCondition = """
        state IN \(unsyncedStates) AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
        """

    /// The states of a recipe with work left for a sync: due now, or later after a backoff.
    static let unsyncedStates = "('pending', 'waiting', 'deleting', 'uploading')"

    /// Whether any recipe is due at `now` (what a sync asks first, once the store is open).
    public func hasDueWork(at now: Date) throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE \(Self.dueCondition))",
                arguments: [now.timeIntervalSince1970]) ?? false
        }
    }

    /// The ids of the recipes due at `now` (or of `ids`), in id order, without claiming them.
    public func dueRecipes(at now: Date, ids: [Int64]? = nil) throws(StoreError) -> [Recipe] {
        try read { db in
            if let ids {
                return try ids.compactMap { id in
                    try Row.fetchOne(db, sql: "SELECT \(Self.recipeColumns) FROM recipes WHERE id = ?", arguments: [id])
                        .map(Self.decode)
                }
            }
            return try Row.fetchAll(
                db, sql: "SELECT \(Self.recipeColumns) FROM recipes WHERE \(Self.dueCondition) ORDER BY id",
                arguments: [now.timeIntervalSince1970]
            ).map(Self.decode)
        }
    }

    /// The recipes waiting for a retry that is not due yet at `now`.
    public func waitingRecipes(at now: Date) throws(StoreError) -> [Recipe] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.recipeColumns) FROM recipes WHERE state = 'waiting' AND next_attempt_at > ? ORDER BY id",
                arguments: [now.timeIntervalSince1970]
            ).map(Self.decode)
        }
    }

    /// Leases up to `limit` due recipes with an id above `cursor` to `owner`, in one `BEGIN IMMEDIATE` transaction.
    ///
    /// A lease held by another owner is taken over when it has lapsed or `isOwnerAlive` says its process is gone;
    /// otherwise the recipe is reported busy. Each claim carries the recipe as it is at that moment.
    public func claimDue(
        owner: String, now: Date, leaseDuration: TimeInterval, limit: Int, after cursor: Int64,
        isOwnerAlive: @escaping (String) -> Bool
    ) throws(StoreError) -> ClaimBatch {
        try write { db in
            // In id order from the cursor (`NOT INDEXED`: the rowid range, stopping after `limit` rows). Through
            // `recipes_due` SQLite collected and sorted every due recipe on each call, so a run of n recipes cost
            // n²/window row visits.
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT \(Self.recipeColumns), deleted FROM recipes NOT INDEXED
                    WHERE id > ? AND \(Self.dueCondition) ORDER BY id LIMIT ?
                    """),
                arguments: [cursor, now.timeIntervalSince1970, limit])
            var batch = ClaimBatch(cursor: cursor, isExhausted: rows.count < limit)
            var free: [(recipe: Recipe, deleted: Int64)] = []
            for row in rows {
                let recipe = Self.decode(row)
                batch.cursor = recipe.id
                if let busy = Self.busyElsewhere(recipe, owner: owner, now: now, isOwnerAlive: isOwnerAlive) {
                    batch.busy.append(busy)
                    continue
                }
                free.append((recipe, row["deleted"]))
            }
            batch.claims = try Self.lease(free, owner: owner, now: now, duration: leaseDuration, db: db)
            return batch
        }
    }

    /// Leases exactly the recipes `ids` to `owner` now (an explicit `recipes sync <id>...`): resumes cancelled and
    /// failed ones, skips backoff, and after a 409 lifts the revision above the server's version (the user chose
    /// to overwrite it). Recipes the server already has at their revision are left alone. Unknown ids throw
    /// before anything changes.
    public func claim(
        ids: [Int64], owner: String, now: Date, leaseDuration: TimeInterval, isOwnerAlive: @escaping (String) -> Bool
    ) throws(StoreError) -> ClaimBatch {
        try write { db in
            var batch = ClaimBatch()
            var free: [(recipe: Recipe, deleted: Int64)] = []
            var seen = Set<Int64>()
            for id in ids where seen.insert(id).inserted {
                guard let row = try Row.fetchOne(
                    db, sql: "SELECT \(Self.recipeColumns), deleted, server_version FROM recipes WHERE id = ?",
                    arguments: [id])
                else { throw StoreError(.unknownRecipe(id: id)) }
                var recipe = Self.decode(row)
                let deleted: Int64 = row["deleted"]
                if deleted == 0, recipe.sync.revision <= recipe.sync.syncedRevision, recipe.sync.state == .synced {
                    continue  // already on the server
                }
                if let busy = Self.busyElsewhere(recipe, owner: owner, now: now, isOwnerAlive: isOwnerAlive) {
                    batch.busy.append(busy)
                    continue
                }
                let serverVersion: Int64? = row["server_version"]
                let resumedState = deleted != 0 ? "deleting" : "pending"
                let resetAttempts = recipe.sync.state == .failed
                var revision = recipe.sync.revision
                if let serverVersion, serverVersion >= revision { revision = serverVersion + 1 }
                try Self.exec(db, sql: """
                        UPDATE recipes SET state = CASE WHEN state IN ('cancelled', 'failed', 'waiting', 'uploading')
                                THEN ? ELSE state END,
                            attempts = CASE WHEN ? THEN 0 ELSE attempts END,
                            next_attempt_at = NULL, revision = ?, server_version = NULL
                        WHERE id = ?
                        """,
                    arguments: [resumedState, resetAttempts, revision, id])
                if resetAttempts { recipe.sync.attempts = 0 }
                recipe.sync.revision = revision
                free.append((recipe, deleted))
            }
            batch.claims = try Self.lease(free, owner: owner, now: now, duration: leaseDuration, db: db)
            return batch
        }
    }

    /// The busy report for `recipe` when another live owner holds its lease, else nil (free or taken over).
    static func busyElsewhere(
        _ recipe: Recipe, owner: String, now: Date, isOwnerAlive: (String) -> Bool
    ) -> BusyRecipe? {
        guard let holder = recipe.sync.leaseOwner, holder != owner, recipe.sync.hasLiveLease(at: now),
            isOwnerAlive(holder)
        else { return nil }
        return BusyRecipe(id: recipe.id, uuid: recipe.uuid, title: recipe.title, processID: recipe.sync.leaseProcessID)
    }

    /// Writes the leases of `recipes` (each with its `deleted` flag) and returns their claims, in the same order, with
    /// ingredients and steps loaded: one UPDATE and one query per part for the whole batch, where a statement per
    /// recipe was a twentieth of a 1,000-recipe sync's CPU.
    static func lease(
        _ recipes: [(recipe: Recipe, deleted: Int64)], owner: String, now: Date, duration: TimeInterval, db: Database
    ) throws -> [SyncClaim] {
        guard !recipes.isEmpty else { return [] }
        let ids = "[" + recipes.map { String($0.recipe.id) }.joined(separator: ",") + "]"  // a JSON array for json_each
        let expiry = now.timeIntervalSince1970 + duration
        // `sent_revision`: from here on the server may get this revision, so a deletion must go through the server
        // (a claim whose JSON never went out costs that deletion one DELETE answered 404, which counts as done).
        // Recorded with the lease rather than in a commit of its own before each upload.
        try Self.exec(db, sql: """
                UPDATE recipes SET lease_owner = ?, lease_expires_at = ?, cancel_requested = 0,
                    sent_revision = CASE WHEN deleted = 0 THEN max(sent_revision, revision) ELSE sent_revision END
                WHERE id IN (SELECT value FROM json_each(?))
                """,
            arguments: [owner, expiry, ids])
        func parts(_ table: String) throws -> [Int64: [String]] {
            var texts: [Int64: [String]] = [:]
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT recipe_id, text FROM \(table) WHERE recipe_id IN (SELECT value FROM json_each(?))
                    ORDER BY recipe_id, position
                    """),
                arguments: [ids])
            while let row = try rows.next() { texts[row[0], default: []].append(row[1]) }
            return texts
        }
        let ingredients = try parts("ingredients")
        let steps = try parts("steps")
        return recipes.map { recipe, deleted in
            var recipe = recipe
            recipe.ingredients = (ingredients[recipe.id] ?? []).map(Ingredient.init(text:))
            recipe.steps = (steps[recipe.id] ?? []).map(Step.init(text:))
            recipe.sync.leaseOwner = owner
            recipe.sync.leaseExpiresAt = Date(timeIntervalSince1970: expiry)
            return SyncClaim(recipe: recipe, isDeletion: deleted != 0)
        }
    }

    // MARK: While uploading

    /// Extends every lease `owner` holds to `until` (a lease taken over by another process is not among them: the
    /// poller's `leaseReport` finds it missing and stops its upload).
    public func renewLeases(owner: String, until: Date) throws(StoreError) {
        try write { db in
            try Self.exec(db, sql: "UPDATE recipes SET lease_expires_at = ? WHERE lease_owner = ?",
                arguments: [until.timeIntervalSince1970, owner])
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
    /// the JSON step asks when the poller's last report is not recent enough to decide (see `SyncRun`). A read, not
    /// a write: the claim already recorded that the server may get this revision (`sent_revision`).
    public func mayUpload(id: Int64, owner: String) throws(StoreError) -> Bool {
        try peek { db in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE id = ? AND lease_owner = ? AND deleted = 0)"),
                arguments: [id, owner]
            ) ?? false
        }
    }

    /// Persists a failed attempt that will be retried within this run (so that `kill -9` keeps the count): the
    /// recipe is `waiting` until its next attempt, which other processes report as waiting (or busy while the lease
    /// is live) rather than overlooking it.
    public func recordAttempt(id: Int64, owner: String, attempts: Int, nextAttemptAt: Date, error: String) throws(StoreError) {
        try write { db in
            try Self.exec(db, sql: """
                    UPDATE recipes SET attempts = ?, next_attempt_at = ?, last_error = ?, offline_since = NULL,
                        state = CASE WHEN state IN ('pending', 'deleting', 'uploading') THEN 'waiting' ELSE state END
                    WHERE id = ? AND lease_owner = ?
                    """,
                arguments: [attempts, nextAttemptAt.timeIntervalSince1970, error, id, owner])
        }
    }

    // MARK: Finishing

    /// Records how the chains of `endings` ended, in one transaction, and releases their leases; returns, in the
    /// same order, the local files each no longer needs (the media copy of an image the server now has), for the
    /// caller to delete under the media lock.
    ///
    /// Revision fencing: a recipe counts as synced only when the acknowledged revision is still its current one;
    /// an edit made meanwhile leaves it as the edit left it (pending for the next revision).
    ///
    /// An ending's `confirmedImage` (SHA-256 and URL) is the image the server confirmed during the chain, recorded
    /// whatever the outcome so that a later run skips it; a crash before this commit is covered by the image step's
    /// `HEAD`.
    ///
    /// Not waited for on disk (the next synced commit takes it there): a power cut right after, or a `kill -9` before
    /// the caller recorded a batch, may forget how a chain ended, never anything the user wrote. The recipe is then
    /// still due at the same revision, and the next run sends it again, which the server takes as it takes a
    /// repeated upload after a lost answer; the claim that recorded `sent_revision` was synced, so a deletion still
    /// goes through the server. A sync to disk per recipe was a twentieth of a 1,000-recipe sync's CPU; a
    /// transaction per recipe (against one per batch of 32) three times the database's share of the ends.
    @discardableResult
    public func finishChains(_ endings: [ChainEnding], owner: String) throws(StoreError) -> [FinishedChain] {
        guard !endings.isEmpty else { return [] }
        return try write(waitForDisk: false) { db in
            try endings.map { ending in
                try Self.finish(ending.claim, owner: owner, result: ending.result,
                                confirmedImage: ending.confirmedImage, db: db)
            }
        }
    }

    /// The assignments of a chain's usual end — synced, the confirmed image recorded, the media copy let go when
    /// done — bound by `usualEndArguments`; each UPDATE adds how it releases the lease and which row it applies to.
    private static let usualEnd = """
        synced_revision = max(synced_revision, ?), state = 'synced', attempts = 0,
        next_attempt_at = NULL, last_error = NULL, offline_since = NULL, cancel_requested = 0, server_version = NULL,
        remote_image_sha256 = CASE WHEN ? THEN ? ELSE remote_image_sha256 END,
        remote_image_url = CASE WHEN ? THEN ? ELSE remote_image_url END,
        image_file = CASE WHEN ? THEN NULL ELSE image_file END
        """

    private static func usualEndArguments(
        _ uploaded: Int64, _ confirmed: (sha256: String, url: String)?, _ mediaDone: Bool
    ) -> StatementArguments {
        [uploaded, confirmed != nil, confirmed?.sha256, confirmed != nil, confirmed?.url, mediaDone]
    }

    /// Records the end of one chain inside the caller's transaction (`finishChains`' body).
    private static func finish(
        _ claim: SyncClaim, owner: String, result: ChainResult, confirmedImage: (sha256: String, url: String)?,
        db: Database
    ) throws -> FinishedChain {
        let id = claim.recipe.id
        if case .uploaded(let uploaded) = result, uploaded == claim.revision {
            // The usual end without reading the row first: one UPDATE that applies only while the recipe is exactly
            // as claimed — same revision, image and remote image, leased to this process, not deleted. Otherwise
            // nothing changes and the general path below reads the row and decides.
            let imageFile = claim.recipe.image?.localFileName
            let local = claim.recipe.image?.sha256
            let remote = confirmedImage?.sha256 ?? claim.recipe.sync.remoteImageSHA256
            let mediaDone = imageFile != nil && local != nil && local == remote
            try Self.exec(db, sql: """
                    UPDATE recipes SET \(Self.usualEnd), lease_owner = NULL, lease_expires_at = NULL
                    WHERE id = ? AND revision = ? AND lease_owner = ? AND deleted = 0
                        AND image_file IS ? AND image_sha256 IS ? AND remote_image_sha256 IS ?
                    """,
                arguments: Self.usualEndArguments(uploaded, confirmedImage, mediaDone)
                    + [id, uploaded, owner, imageFile, local, claim.recipe.sync.remoteImageSHA256])
            if db.changesCount == 1 {
                return FinishedChain(unneededMedia: mediaDone ? imageFile.map { [$0] } ?? [] : [], editedMeanwhile: false)
            }
        }
        var unneeded: [String] = []
        var editedMeanwhile = false
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT revision, state, image_file, image_sha256, remote_image_sha256, lease_owner, deleted
                FROM recipes WHERE id = ?
                """),
            arguments: [id])
        else { return FinishedChain(unneededMedia: [], editedMeanwhile: false) }
        let revision: Int64 = row["revision"]
        let state: String = row["state"]
        let imageFile: String? = row["image_file"]
        let local: String? = row["image_sha256"]
        // The confirmed image is recorded only while this process holds the lease of a recipe not being deleted.
        let holdsLease = row["lease_owner"] == owner && (row["deleted"] as Int64) == 0
        let confirmed = holdsLease ? confirmedImage : nil
        let remote: String? = confirmed?.sha256 ?? row["remote_image_sha256"]
        // The media copy is no longer needed once the server has that image for this recipe.
        let mediaDone = imageFile != nil && local != nil && local == remote

        if case .uploaded(let uploaded) = result, revision == uploaded {
            // The usual end, in one statement: synced, the confirmed image, the media copy let go, the lease released.
            try Self.exec(db, sql: """
                    UPDATE recipes SET \(Self.usualEnd),
                        lease_expires_at = CASE WHEN lease_owner = ? THEN NULL ELSE lease_expires_at END,
                        lease_owner = CASE WHEN lease_owner = ? THEN NULL ELSE lease_owner END
                    WHERE id = ?
                    """,
                arguments: Self.usualEndArguments(uploaded, confirmed, mediaDone) + [owner, owner, id])
            if mediaDone, let imageFile { unneeded.append(imageFile) }
            return FinishedChain(unneededMedia: unneeded, editedMeanwhile: false)
        }

        if let confirmed {
            try Self.exec(db, sql: "UPDATE recipes SET remote_image_sha256 = ?, remote_image_url = ? WHERE id = ?",
                arguments: [confirmed.sha256, confirmed.url, id])
        }
        // A failure of revision N says nothing about an edit made meanwhile: that stays as the edit left it.
        editedMeanwhile = revision != claim.revision
        let open = editedMeanwhile ? "0" : "state IN \(Self.unsyncedStates)"
        switch result {
        case .uploaded(let uploaded):
            // An older revision than the current one (the current one ended above): an edit made meanwhile is due.
            try Self.exec(db, sql: "UPDATE recipes SET synced_revision = max(synced_revision, ?), offline_since = NULL WHERE id = ?",
                arguments: [uploaded, id])
            if mediaDone, let imageFile {
                try Self.exec(db, sql: "UPDATE recipes SET image_file = NULL WHERE id = ?", arguments: [id])
                unneeded.append(imageFile)
            }
        case .deleted:
            if let imageFile { unneeded.append(imageFile) }
            try Self.exec(db, sql: "DELETE FROM recipes WHERE id = ? AND deleted = 1", arguments: [id])
        case .retryLater(let at, let attempts, let error):
            try Self.exec(db, sql: """
                    UPDATE recipes SET state = CASE WHEN \(open) THEN 'waiting' ELSE state END,
                        attempts = CASE WHEN \(open) THEN ? ELSE attempts END,
                        next_attempt_at = CASE WHEN \(open) THEN ? ELSE next_attempt_at END,
                        last_error = ?, offline_since = NULL
                    WHERE id = ?
                    """,
                arguments: [attempts, at.timeIntervalSince1970, error, id])
        case .failed(let attempts, let error, let serverVersion):
            try Self.exec(db, sql: """
                    UPDATE recipes SET state = CASE WHEN \(open) THEN 'failed' ELSE state END,
                        attempts = CASE WHEN \(open) THEN ? ELSE attempts END,
                        next_attempt_at = CASE WHEN \(open) THEN NULL ELSE next_attempt_at END,
                        last_error = ?, server_version = ?, offline_since = NULL
                    WHERE id = ?
                    """,
                arguments: [attempts, error, serverVersion, id])
        case .cancelledByUser:
            if state != SyncState.cancelled.rawValue, revision == claim.revision {
                try Self.exec(db, sql: "UPDATE recipes SET state = 'cancelled' WHERE id = ?", arguments: [id])
            }
            try Self.exec(db, sql: "UPDATE recipes SET cancel_requested = 0 WHERE id = ?", arguments: [id])
        case .interrupted(let error):
            if let error {
                try Self.exec(db, sql: "UPDATE recipes SET last_error = ? WHERE id = ?", arguments: [error, id])
            }
        case .offline(let since):
            try Self.exec(db, sql: "UPDATE recipes SET offline_since = coalesce(offline_since, ?) WHERE id = ?",
                arguments: [since.timeIntervalSince1970, id])
        }
        try Self.exec(db, sql: "UPDATE recipes SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?",
            arguments: [id, owner])
        return FinishedChain(unneededMedia: unneeded, editedMeanwhile: editedMeanwhile)
    }

    /// Marks the due recipes `ids` as waiting for the network since `since` (nothing was claimed or sent).
    public func markOffline(ids: [Int64], since: Date) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try write { db in
            for id in ids {
                try Self.exec(db, sql: "UPDATE recipes SET offline_since = coalesce(offline_since, ?) WHERE id = ?",
                    arguments: [since.timeIntervalSince1970, id])
            }
        }
    }

    /// Releases every lease `owner` still holds (the end of a run, whatever happened).
    public func releaseLeases(owner: String) throws(StoreError) {
        try write { db in
            try Self.exec(db, sql: "UPDATE recipes SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?",
                arguments: [owner])
        }
    }

    /// Deletes the media copies `fileNames` that no recipe refers to any more, under the media lock.
    public func removeUnneededMedia(_ fileNames: [String]) throws(StoreError) {
        guard !fileNames.isEmpty else { return }
        try media.withExclusiveAccess { () throws(StoreError) in
            // One read for all of them: a read per file (a pooled connection, BEGIN, COMMIT) was most of the cost of
            // letting a thousand copies go.
            let unreferenced = try read { db in
                let exists = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE image_file = ?)")
                return try fileNames.filter { name in try Bool.fetchOne(exists, arguments: [name]) != true }
            }
            for name in unreferenced { media.remove(name) }
        }
    }

    // MARK: Cancelling

    /// Cancels recipe `id`'s upload wherever it is (`recipes cancel`): queued or waiting → `cancelled`; leased by a
    /// live process → `cancelled` with `cancel_requested` set, which that process polls. Unknown id throws.
    public func requestCancel(id: Int64, now: Date, isOwnerAlive: @escaping (String) -> Bool) throws(StoreError) -> CancelResult {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT \(Self.recipeColumns) FROM recipes WHERE id = ?", arguments: [id])
            else { throw StoreError(.unknownRecipe(id: id)) }
            let recipe = Self.decode(row)
            let sync = recipe.sync
            let live = sync.hasLiveLease(at: now) && sync.leaseOwner.map(isOwnerAlive) == true
            switch sync.state {
            case .synced, .failed, .cancelled:
                if !live { return .nothingToCancel(state: sync.state) }
            case .pending, .waiting, .deleting, .uploading:
                break
            }
            try Self.exec(db, sql: "UPDATE recipes SET state = 'cancelled', cancel_requested = ?, next_attempt_at = NULL WHERE id = ?",
                arguments: [live, id])
            if live, let owner = sync.leaseOwner {
                return .cancelledInFlight(owner: owner, processID: sync.leaseProcessID)
            }
            return .cancelledQueued
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

    // MARK: Outbox

    /// The outbox files (`<uuid>-<revision>.json`) some unsynced work still refers to: the current revision of a
    /// recipe not yet on the server, or any revision of a recipe leased by a live process (its upload may be
    /// streaming that file now).
    public func referencedOutboxFiles(now: Date, isOwnerAlive: @escaping (String) -> Bool) throws(StoreError) -> Set<String> {
        try read { db in
            var names = Set<String>()
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT uuid, revision, lease_owner, lease_expires_at FROM recipes
                    WHERE revision > synced_revision OR lease_owner IS NOT NULL
                    """)
            for row in rows {
                let uuid: String = row[0]
                let revision: Int64 = row[1]
                names.insert(Outbox.fileName(uuid: uuid, revision: revision))
                if let owner: String = row[2], let expiry: Double = row[3], expiry > now.timeIntervalSince1970,
                    isOwnerAlive(owner)
                {
                    names.insert(Outbox.leasedPrefix(uuid: uuid))
                }
            }
            return names
        }
    }

    /// Deletes outbox files no unsynced work refers to (see `referencedOutboxFiles`), and temporary files whose
    /// writer is gone (or, writer unknown, older than `TemporaryFiles.grace`); returns their names.
    @discardableResult
    public func collectOutboxGarbage(now: Date, isOwnerAlive: @escaping (String) -> Bool) throws(StoreError) -> [String] {
        let outbox = Outbox(directory: home.outboxURL)
        let names = outbox.fileNames()
        guard !names.isEmpty else { return [] }
        let referenced = try referencedOutboxFiles(now: now, isOwnerAlive: isOwnerAlive)
        var removed: [String] = []
        for name in names {
            if referenced.contains(name) { continue }
            if let prefix = Outbox.uuidPrefix(of: name), referenced.contains(prefix) { continue }
            if TemporaryFiles.isLive(name, path: outbox.path(of: name), now: now, isWriterAlive: isOwnerAlive) { continue }
            outbox.remove(name)
            removed.append(name)
        }
        return removed
    }
}
