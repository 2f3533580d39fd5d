import Foundation
import GRDB
import RecipeModels

/// The draft this device sent and the server may have stored without its answer arriving (docs/sync-engine.md, "Two-way sync and conflicts"): kept
/// so that a server version equal to it is recognised as this client's own write, becomes the base, and only the
/// edits made since are merged on it (without it, a step added and sent, then another added here, merged against the
/// old base as an insertion on both sides: the first step twice, here and on the server).
///
/// Kept in `recipes.sent_version` / `sent_fields` (migration 0007) by the edit that changes a draft whose upload is
/// unacknowledged, not by the claim: a sync's hot path writes nothing more for it, and the draft sent is only at
/// risk of being lost once an edit overwrites it.
struct SentDraft: Equatable {
    /// The version the upload would have made: the base it was sent on + 1.
    var version: Int64
    /// Its fields.
    var fields: RecipeFields

    /// Before an edit of recipe `row` (as `editableRow` read it): when its current revision was sent and the server
    /// has not acknowledged it, that revision's fields as the draft sent, for `remember` once the edit changed
    /// something. An older draft sent is kept when the current revision was not sent (two edits after one upload),
    /// and replaced by a later one sent.
    static func beforeEdit(_ row: Row, id: Int64, _ db: Database) throws -> SentDraft? {
        let revision: Int64 = row["revision"]
        guard (row["sent_revision"] as Int64) == revision, (row["synced_revision"] as Int64) < revision,
            (row["deleted"] as Int64) == 0, let version = ServerNumbers.next(after: row["server_version"])
        else { return nil }
        return SentDraft(version: version, fields: RecipeFields(try RecipeStore.fetchRecipe(db, id: id)))
    }

    /// Keeps this as recipe `id`'s draft sent, inside the edit's transaction.
    func remember(_ id: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE recipes SET sent_version = ?, sent_fields = ? WHERE id = ?")
            .execute(arguments: [version, fields.storedJSON, id])
    }

    /// The draft sent of recipe `id` that still matters: sent on the version the recipe is based on now
    /// (`serverVersion`), so that the server may hold it as `serverVersion` + 1; nil otherwise.
    static func current(of id: Int64, serverVersion: Int64?, _ db: Database) throws -> SentDraft? {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT sent_version, sent_fields FROM recipes WHERE id = ?"), arguments: [id])
        guard let version: Int64 = row?["sent_version"], version == ServerNumbers.next(after: serverVersion),
            let text: String = row?["sent_fields"], let fields = RecipeFields(storedJSON: text)
        else { return nil }
        return SentDraft(version: version, fields: fields)
    }

    /// Forgets recipe `id`'s draft sent (a server version newer than its base was applied: the draft is either that
    /// version, now the base, or never stored).
    static func forget(_ id: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE recipes SET sent_version = NULL, sent_fields = NULL WHERE id = ? AND sent_version IS NOT NULL")
            .execute(arguments: [id])
    }
}
