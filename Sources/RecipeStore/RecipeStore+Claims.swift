import Foundation
import GRDB
import RecipeModels

/// One recipe claimed for upload by this process: a snapshot of the exact revision to send, taken in the same
/// transaction as the lease, so that the JSON written to the outbox is the revision the lease was taken for.
public struct SyncClaim: Sendable, Equatable {
    /// The recipe at the claimed revision, with its ingredients and steps; its `sync` is the record as claimed.
    public var recipe: Recipe
    /// Whether the chain is a `DELETE` (the user deleted the recipe).
    public var isDeletion: Bool { recipe.sync.deleted }
    /// The revision this chain uploads (`version` in the JSON).
    public var revision: Int64 { recipe.sync.revision }
    /// Failed attempts before this run, counted against the retry limit.
    public var attempts: Int { recipe.sync.attempts }
    /// The sync record as the claim wrote it (what a chain's end is first applied to).
    public var record: SyncRecord { SyncRecord(sync: recipe.sync, image: recipe.image) }

    /// Creates a claim of `recipe` as leased.
    public init(recipe: Recipe) { self.recipe = recipe }

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

extension RecipeStore {
    /// Whether any recipe is due at `now` (what a sync asks first, once the store is open).
    public func hasDueWork(at now: Date) throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE \(Self.dueCondition))",
                arguments: StatementArguments(Self.dueArguments(now))) ?? false
        }
    }

    /// The earliest moment after `now` at which a recipe with work left becomes claimable by `owner`: its retry comes
    /// due (`nextAttemptAt`), or the lease another process holds on a due recipe lapses (should that process stop
    /// before finishing it); nil when nothing waits for a time. What `recipes sync --watch` arms its timer for.
    public func earliestRetry(after now: Date, owner: String) throws(StoreError) -> Date? {
        try read { db in
            try Double.fetchOne(
                db,
                sql: """
                    SELECT MIN(at) FROM (
                        SELECT next_attempt_at AS at FROM recipes
                        WHERE state IN \(Self.unsyncedStates) AND conflicts IS NULL
                            AND next_attempt_at > ?1 AND next_attempt_at <= ?1 + \(SyncInfo.longestWait)
                        UNION ALL
                        SELECT lease_expires_at FROM recipes
                        WHERE state IN \(Self.unsyncedStates) AND conflicts IS NULL
                            AND (next_attempt_at IS NULL OR next_attempt_at <= ?1
                                OR next_attempt_at > ?1 + \(SyncInfo.longestWait))
                            AND lease_owner IS NOT NULL AND lease_owner != ?2 AND lease_expires_at > ?1)
                    """,
                arguments: [now.timeIntervalSince1970, owner]
            ).map { Date(timeIntervalSince1970: $0) }
        }
    }

    /// The recipes due at `now` (or `ids`), in id order, without claiming them.
    public func dueRecipes(at now: Date, ids: [Int64]? = nil) throws(StoreError) -> [Recipe] {
        try read { db in
            if let ids { return try ids.compactMap { id in try Self.storedRecipe(id, db) } }
            return try Row.fetchAll(
                db, sql: "SELECT \(Self.recipeColumns) FROM recipes WHERE \(Self.dueCondition) ORDER BY id",
                arguments: StatementArguments(Self.dueArguments(now))
            ).map(Self.decode)
        }
    }

    /// The recipes a sync without ids leaves alone until a person acts (`failed`, `cancelled`; see
    /// `RecipeSyncMachine.stoppedStates`), by id; those in conflict are reminded of as conflicts instead.
    public func stoppedRecipes() throws(StoreError) -> [Recipe] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.recipeColumns) FROM recipes WHERE state IN \(Self.stoppedStates) AND conflicts IS NULL ORDER BY id"
            ).map(Self.decode)
        }
    }

    /// The recipes in conflict (a person must choose), by id.
    public func recipesInConflict() throws(StoreError) -> [Recipe] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.recipeColumns) FROM recipes WHERE conflicts IS NOT NULL ORDER BY id"
            ).map(Self.decode)
        }
    }

    /// The recipes waiting for a retry that is not due yet at `now`.
    public func waitingRecipes(at now: Date) throws(StoreError) -> [Recipe] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.recipeColumns) FROM recipes
                    WHERE state = 'waiting' AND next_attempt_at > ?1 AND next_attempt_at <= ?1 + \(SyncInfo.longestWait)
                    ORDER BY id
                    """,
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
            // In id order from the cursor (`NOT INDEXED`: the rowid range, stopping after `limit` rows). Through an
            // index on the due recipes SQLite collected and sorted every due recipe on each call.
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT \(Self.recipeColumns) FROM recipes NOT INDEXED
                    WHERE id > ? AND \(Self.dueCondition) ORDER BY id LIMIT ?
                    """),
                arguments: [cursor, now.timeIntervalSince1970, now.timeIntervalSince1970, limit])
            var batch = ClaimBatch(cursor: cursor, isExhausted: rows.count < limit)
            var free: [Recipe] = []
            for row in rows {
                let recipe = Self.decode(row)
                batch.cursor = recipe.id
                if let busy = Self.busyElsewhere(recipe, owner: owner, now: now, isOwnerAlive: isOwnerAlive) {
                    batch.busy.append(busy)
                } else {
                    free.append(recipe)
                }
            }
            let claim = RecipeSyncMachine.Event.claimed(owner: owner, now: now, leaseDuration: leaseDuration, explicit: false)
            batch.claims = try Self.lease(free, claim, db)
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
            var free: [Recipe] = []
            var seen = Set<Int64>()
            for id in ids where seen.insert(id).inserted {
                guard let recipe = try Self.storedRecipe(id, db) else { throw StoreError(.unknownRecipe(id: id)) }
                if RecipeSyncMachine.isOnServer(SyncRecord(sync: recipe.sync, image: recipe.image)) { continue }
                if let busy = Self.busyElsewhere(recipe, owner: owner, now: now, isOwnerAlive: isOwnerAlive) {
                    batch.busy.append(busy)
                } else {
                    free.append(recipe)
                }
            }
            let claim = RecipeSyncMachine.Event.claimed(owner: owner, now: now, leaseDuration: leaseDuration, explicit: true)
            batch.claims = try Self.lease(free, claim, db)
            return batch
        }
    }

    /// The busy report for `recipe` when another live owner holds its lease, else nil (free or taken over).
    static func busyElsewhere(_ recipe: Recipe, owner: String, now: Date, isOwnerAlive: (String) -> Bool) -> BusyRecipe? {
        let record = SyncRecord(sync: recipe.sync, image: recipe.image)
        guard RecipeSyncMachine.leaseHolderElsewhere(record, owner: owner, now: now, isOwnerAlive: isOwnerAlive) != nil
        else { return nil }
        return BusyRecipe(id: recipe.id, uuid: recipe.uuid, title: recipe.title, processID: recipe.sync.leaseProcessID)
    }

    /// Applies `claim` to each of `recipes` (read in this transaction) and returns their claims, in the same order,
    /// with ingredients and steps loaded (one query per part for the whole batch).
    static func lease(_ recipes: [Recipe], _ claim: RecipeSyncMachine.Event, _ db: Database) throws -> [SyncClaim] {
        guard !recipes.isEmpty else { return [] }
        var claimed: [Recipe] = []
        for recipe in recipes {
            let known = SyncRecord(sync: recipe.sync, image: recipe.image)
            guard let transition = try apply(claim, to: recipe.id, known: known, db) else { continue }
            var leased = recipe
            leased.sync = transition.record.sync
            leased.image = transition.record.image
            claimed.append(leased)
        }
        let ids = "[" + claimed.map { String($0.id) }.joined(separator: ",") + "]"  // a JSON array for json_each
        func parts(_ table: String, _ columns: String) throws -> [Int64: [Row]] {
            var rows: [Int64: [Row]] = [:]
            let cursor = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT recipe_id, \(columns) FROM \(table) WHERE recipe_id IN (SELECT value FROM json_each(?))
                    ORDER BY recipe_id, position
                    """),
                arguments: [ids])
            while let row = try cursor.next() { rows[row[0], default: []].append(row.copy()) }
            return rows
        }
        let ingredients = try parts("ingredients", "text")
        let steps = try parts("steps", "text, section")
        return claimed.map { recipe in
            var recipe = recipe
            recipe.ingredients = (ingredients[recipe.id] ?? []).map { Ingredient(text: $0[1]) }
            recipe.steps = (steps[recipe.id] ?? []).map { Step(text: $0[1], section: $0[2]) }
            return SyncClaim(recipe: recipe)
        }
    }
}
