import Foundation
import GRDB
import RecipeModels

/// How the store keeps a recipe's sync record: it reads the row, asks `RecipeSyncMachine`, and writes the answer with
/// a guarded statement that applies only while the row still holds what was read. The SQL stores the decisions; it
/// makes none.
extension RecipeStore {
    /// The columns of a sync record, in the order of `values(of:)`.
    static let recordColumns = [
        "state", "revision", "synced_revision", "attempts", "next_attempt_at", "last_error", "lease_owner",
        "lease_expires_at", "cancel_requested", "remote_image_url", "remote_image_sha256", "offline_since", "deleted",
        "sent_revision", "server_version", "image_file", "base_fields", "conflicts",
    ]

    /// `UPDATE … SET <every record column> WHERE id = ? AND <every record column> IS <as read>`.
    private static let guardedWrite = """
        UPDATE recipes SET \(recordColumns.map { "\($0) = ?" }.joined(separator: ", "))
        WHERE id = ? AND \(recordColumns.map { "\($0) IS ?" }.joined(separator: " AND "))
        """

    /// The column values of `record`, in `recordColumns` order.
    static func values(of record: SyncRecord) -> [(any DatabaseValueConvertible)?] {
        let sync = record.sync
        return [
            sync.state.rawValue, sync.revision, sync.syncedRevision, sync.attempts,
            sync.nextAttemptAt?.timeIntervalSince1970, sync.lastError, sync.leaseOwner,
            sync.leaseExpiresAt?.timeIntervalSince1970, sync.cancelRequested, sync.remoteImageURL,
            sync.remoteImageSHA256, sync.offlineSince?.timeIntervalSince1970, sync.deleted, sync.sentRevision,
            sync.serverVersion, record.image?.localFileName, sync.base?.storedJSON, sync.conflict?.storedJSON,
        ]
    }

    /// Writes `new` over recipe `id` while its row still holds `old`; whether it did (nothing to write counts as done
    /// only when the row is as `old` says).
    static func write(_ new: SyncRecord, over old: SyncRecord, id: Int64, _ db: Database) throws -> Bool {
        let arguments = StatementArguments(values(of: new) + [id] + values(of: old))
        try db.cachedStatement(sql: guardedWrite).execute(arguments: arguments)
        return db.changesCount == 1
    }

    /// The recipe `id` as stored (without ingredients and steps), or nil when there is none.
    static func storedRecipe(_ id: Int64, _ db: Database) throws -> Recipe? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(recipeColumns) FROM recipes WHERE id = ?"), arguments: [id])
            .map(decode)
    }

    /// Applies `event` to recipe `id` inside the caller's transaction: from `known` (what the caller believes the row
    /// holds, written only if it still does) or else from the row as read; performs the transition's removal and
    /// returns the transition, or nil when there is no such recipe.
    @discardableResult
    static func apply(
        _ event: RecipeSyncMachine.Event, to id: Int64, known: SyncRecord? = nil, _ db: Database
    ) throws -> RecipeSyncMachine.Transition? {
        if let known {
            let transition = RecipeSyncMachine.transition(known, on: event)
            if try commit(transition, over: known, id: id, db) { return transition }
        }
        guard let recipe = try storedRecipe(id, db) else { return nil }
        let record = SyncRecord(sync: recipe.sync, image: recipe.image)
        let transition = RecipeSyncMachine.transition(record, on: event)
        guard try commit(transition, over: record, id: id, db) else {
            // Inside one write transaction the row read just now cannot have changed.
            throw StoreError(.database(detail: "recipe \(id) changed while its sync record was being written"))
        }
        return transition
    }

    /// Writes `transition` over `old` (or removes the recipe); whether the row still held `old`.
    private static func commit(
        _ transition: RecipeSyncMachine.Transition, over old: SyncRecord, id: Int64, _ db: Database
    ) throws -> Bool {
        if transition.effects.contains(.removeRecipe) {
            try db.cachedStatement(sql: "DELETE FROM recipes WHERE id = ? AND deleted IS ? AND revision = ?")
                .execute(arguments: [id, old.sync.deleted, old.sync.revision])
            return db.changesCount == 1
        }
        return try write(transition.record, over: old, id: id, db)
    }

    /// The SQL list of the states with work left for a sync (`RecipeSyncMachine.unsyncedStates`).
    static let unsyncedStates = "(" + RecipeSyncMachine.unsyncedStates.map { "'\($0.rawValue)'" }.sorted()
        .joined(separator: ", ") + ")"

    /// The SQL list of the states a sync reminds of (`RecipeSyncMachine.stoppedStates`).
    static let stoppedStates = "(" + RecipeSyncMachine.stoppedStates.map { "'\($0.rawValue)'" }.sorted()
        .joined(separator: ", ") + ")"

    /// The SQL condition of `RecipeSyncMachine.isDue` at `?` (now, bound twice: `dueArguments`), for queries over
    /// many recipes: no wait, a wait over, or one further ahead than a sync records (`SyncInfo.longestWait`).
    static let dueCondition = "state IN \(unsyncedStates) AND conflicts IS NULL AND \(noWaitAhead)"

    /// The SQL condition of `!SyncInfo.waitIsAhead` at `?` (now, bound twice).
    static let noWaitAhead =
        "(next_attempt_at IS NULL OR next_attempt_at <= ? OR next_attempt_at > ? + \(SyncInfo.longestWait))"

    /// The arguments of `dueCondition` at `now`.
    static func dueArguments(_ now: Date) -> [Double] { [now.timeIntervalSince1970, now.timeIntervalSince1970] }
}
