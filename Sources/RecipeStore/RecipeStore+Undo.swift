import Foundation
import GRDB
import RecipeModels

/// What `RecipeStore.undo(_:toRevision:)` did.
public struct UndoOutcome: Sendable, Equatable {
    /// The recipe as it is now.
    public var recipe: Recipe
    /// The revision whose content it brought back.
    public var restoredRevision: Int64
    /// Whether the recipe was deleted (here or on the server) and is back.
    public var recreated: Bool
    /// The image of the restored revision could not be brought back (its bytes are no longer on this device): the
    /// recipe kept the image it had.
    public var imageKept: Bool
}

extension RecipeStore {
    /// Recipe `id`'s kept revisions, oldest first (also for a recipe deleted since: its id stays in its history).
    public func history(of id: Int64) throws(StoreError) -> [RevisionEntry] {
        try read { db in try Self.entries(of: id, db) }
    }

    /// The newest `limit` revisions of every recipe, newest first.
    public func recentHistory(limit: Int = 20) throws(StoreError) -> [RevisionEntry] {
        try read { db in
            guard try db.tableExists("recipe_history") else { return [] }
            return try Row.fetchAll(
                db, sql: "SELECT * FROM recipe_history ORDER BY seq DESC LIMIT ?", arguments: [max(0, limit)]
            ).compactMap(Self.entry)
        }
    }

    /// The recipes deleted here or on the server that `undo` can bring back: the newest revision of each, the one that
    /// deleted it, newest first.
    public func deletedRecipes() throws(StoreError) -> [RevisionEntry] {
        try read { db in
            guard try db.tableExists("recipe_history") else { return [] }
            return try Row.fetchAll(db, sql: """
                SELECT h.* FROM recipe_history h
                WHERE h.seq = (SELECT max(seq) FROM recipe_history WHERE recipe_id = h.recipe_id) AND h.deleted = 1
                ORDER BY h.seq DESC
                """).compactMap(Self.entry)
        }
    }

    /// The recipe of the newest change made on this device (created, edited, imported, resolved, undone or deleted
    /// here), if any: what `undo` without an id undoes.
    public func lastLocalChange() throws(StoreError) -> Int64? {
        try read { db in
            guard try db.tableExists("recipe_history") else { return nil }
            let local = [RevisionOrigin.new, .edit, .import, .resolve, .undo, .delete].map { "'\($0.rawValue)'" }
            return try Int64.fetchOne(db, sql: """
                SELECT recipe_id FROM recipe_history WHERE origin IN (\(local.joined(separator: ", ")))
                ORDER BY seq DESC LIMIT 1
                """)
        }
    }

    /// The id of the recipe `reference` names for `history` and `undo`: a recipe here (`recipeID(_:)`), or else a
    /// deleted one by its old id, its uuid (or the start of it) or the title it had (or its start).
    public func recipeIDWithHistory(_ reference: RecipeReference) throws(StoreError) -> Int64 {
        do {
            return try recipeID(reference)
        } catch {
            let deleted = try deletedRecipes()
            let found: [RevisionEntry]
            switch reference {
            case .id(let id), .idOrUUID(let id, _):
                found = deleted.filter { $0.recipeID == id }
            case .uuid(let prefix):
                found = deleted.filter { $0.uuid.replacingOccurrences(of: "-", with: "").hasPrefix(prefix) }
            case .title(let name), .uuidOrTitle(_, let name):
                let choice = TitleMatch.decide(name, among: deleted.map { (id: $0.recipeID, title: $0.fields.title) })
                switch choice {
                case .none: found = []
                case .one(let id): found = deleted.filter { $0.recipeID == id }
                case .several(let ids):
                    let names = deleted.filter { ids.contains($0.recipeID) }.map { "\($0.recipeID) \"\($0.fields.title)\"" }
                    throw StoreError(.undo(detail: "\"\(name)\" names several deleted recipes: "
                        + names.joined(separator: ", ") + "; give the id"))
                }
            }
            guard let entry = found.first else { throw error }
            return entry.recipeID
        }
    }

    /// Brings back the content of an earlier revision of recipe `id` as a new revision, pending upload like any edit
    /// (`UndoDecision` chooses which: one back, or `toRevision`). A recipe deleted here before its deletion reached the
    /// server is simply no longer deleted (nothing is deleted there); one whose deletion the server has (or that was
    /// deleted on the server) is made again under its old id and uuid, and the next sync re-creates it on the server
    /// above the tombstone. The restored revision's image comes back when its bytes are still on this device (a media
    /// copy or `images/`), else the recipe keeps its image (`imageKept`). `tombstones: false` (a destination that
    /// keeps none, a Mealie) makes a recipe gone from the server new to it instead: there is no tombstone to write above,
    /// and a write based on the deleted version would find the recipe gone and be a conflict.
    ///
    /// Refused, changing nothing: no earlier revision to go back to, a revision not kept, a recipe deleted here while
    /// in conflict with the server's changes (`resolve --theirs` keeps the server's copy), a uuid in use again.
    public func undo(_ id: Int64, toRevision revision: Int64? = nil, tombstones: Bool = true) throws(StoreError) -> UndoOutcome {
        try media.withExclusiveAccess { () throws(StoreError) -> UndoOutcome in
            var restored: Int64 = 0
            var recreated = false
            var imageKept = false
            let recipe = try edit { db -> Recipe in
                let entries = try Self.entries(of: id, db)
                let target: RevisionEntry
                switch UndoDecision.target(in: entries, toRevision: revision) {
                case .success(let entry): target = entry
                case .failure(let refusal): throw StoreError(.undo(detail: Self.words(refusal, id: id)))
                }
                restored = target.revision
                let newest = entries[entries.count - 1]
                if let row = try Row.fetchOne(db, sql: "SELECT * FROM recipes WHERE id = ?", arguments: [id]) {
                    recreated = (row["deleted"] as Int64) != 0
                    imageKept = try restore(target, over: row, db)
                } else {
                    try recreate(target, newest: newest, tombstones: tombstones, db)
                    imageKept = try Self.restoreImage(target.fields.image, of: id, images: images, media: media, db)
                    recreated = true
                }
                try Self.noteOrigin(.undo, restores: target.seq, of: id, db)
                return try Self.fetchRecipe(db, id: id)
            }
            return UndoOutcome(recipe: recipe, restoredRevision: restored, recreated: recreated, imageKept: imageKept)
        }
    }

    /// Writes `target`'s content over the recipe whose row is `row`, as an edit (a deleted one is no longer deleted);
    /// whether its image was kept.
    private func restore(_ target: RevisionEntry, over row: Row, _ db: Database) throws -> Bool {
        let id: Int64 = row["id"]
        let wasDeleted = (row["deleted"] as Int64) != 0
        if wasDeleted, row["conflicts"] as String? != nil {
            throw StoreError(.undo(detail: "recipe \(id) was deleted here and changed on the server meanwhile; "
                + "`recipes resolve \(id) --theirs` keeps the server's copy, or `--mine` the deletion"))
        }
        let sent = try SentDraft.beforeEdit(row, id: id, db)
        let before = wasDeleted ? nil : try Self.conflictBeforeEdit(row, id: id, db)
        var changed = try Self.write(target.fields.content, received: target.fields.received, over: row, db)
        let current: String? = row["image_sha256"]
        let imageKept = try Self.restoreImage(target.fields.image, of: id, images: images, media: media, db)
        if try String.fetchOne(db, sql: "SELECT image_sha256 FROM recipes WHERE id = ?", arguments: [id]) != current {
            changed = true
        }
        guard changed || wasDeleted else {
            throw StoreError(.undo(detail: "revision \(target.revision) of recipe \(id) differs only in its image, whose "
                + "bytes are no longer on this device; `image set` attaches it again"))
        }
        try sent?.remember(id, db)
        if wasDeleted {
            // The transition of a recipe kept against its deletion: not deleted, pending at the next revision.
            try Self.apply(.resolved(.recreate), to: id, db)
            try Self.touch(id, now(), db)
        } else {
            try markChanged(id, settling: before, in: db)
        }
        return imageKept
    }

    /// Makes deleted recipe `target.recipeID` again under its id and uuid, at the revision after `newest`: new to the
    /// server when it never had it, else based on the tombstone's version (a push re-creates it as tombstone + 1).
    private func recreate(_ target: RevisionEntry, newest: RevisionEntry, tombstones: Bool, _ db: Database) throws {
        let id = target.recipeID
        if let other = try Int64.fetchOne(db, sql: "SELECT id FROM recipes WHERE uuid = ?", arguments: [target.uuid]) {
            throw StoreError(.undo(detail: "recipe \(id) is here again already, as recipe \(other); undo that one"))
        }
        let stamp = now().timeIntervalSince1970
        try db.execute(
            sql: """
                INSERT INTO recipes (id, uuid, title, revision, state, server_version, created_at, updated_at)
                VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)
                """,
            arguments: [id, target.uuid, target.fields.title, newest.revision + 1, tombstones ? newest.tombstone : nil, stamp, stamp])
        var fields = target.fields
        fields.image = nil
        _ = try Self.write(fields, to: id, images: images, db)
    }

    /// Gives recipe `id` the image `image` (none: no image) when its bytes are on this device, as a media copy or in
    /// `images/`; whether it could not (the recipe keeps the image it has).
    static func restoreImage(
        _ image: RecipeImage?, of id: Int64, images: ImageLibrary, media: MediaLibrary, _ db: Database
    ) throws -> Bool {
        let current = try String.fetchOne(db, sql: "SELECT image_sha256 FROM recipes WHERE id = ?", arguments: [id])
        guard current != image?.sha256 else { return false }
        guard let image else {
            try db.execute(
                sql: "UPDATE recipes SET image_sha256 = NULL, image_format = NULL, image_bytes = NULL, image_file = NULL WHERE id = ?",
                arguments: [id])
            return false
        }
        var file: String?
        var reference = image.localReference
        if let name = reference?.localFileName, FileManager.default.fileExists(atPath: media.path(of: name)) {
            file = name
        } else if let downloaded = images.image(sha256: image.sha256) {
            reference = downloaded
        } else {
            return true
        }
        guard let reference else { return true }
        try db.execute(
            sql: "UPDATE recipes SET image_sha256 = ?, image_format = ?, image_bytes = ?, image_file = ? WHERE id = ?",
            arguments: [reference.sha256, reference.format.rawValue, reference.byteCount, file, id])
        return false
    }

    // MARK: Reading

    /// Recipe `id`'s history rows, oldest first (none in a schema without history).
    static func entries(of id: Int64, _ db: Database) throws -> [RevisionEntry] {
        guard try db.tableExists("recipe_history") else { return [] }
        return try Row.fetchAll(db, sql: "SELECT * FROM recipe_history WHERE recipe_id = ? ORDER BY seq", arguments: [id])
            .compactMap(entry)
    }

    /// One history row as an entry; nil for a row this version cannot read.
    static func entry(_ row: Row) -> RevisionEntry? {
        guard let origin = RevisionOrigin(rawValue: row["origin"]), let fields = RecipeFields(storedJSON: row["fields"])
        else { return nil }
        return RevisionEntry(
            seq: row["seq"], recipeID: row["recipe_id"], uuid: row["uuid"], revision: row["revision"],
            at: Date(timeIntervalSince1970: row["at"]), origin: origin, command: row["command"],
            deleted: (row["deleted"] as Int64) != 0, fields: fields, restores: row["restores"], tombstone: row["tombstone"])
    }

    /// What a refused undo of recipe `id` says.
    static func words(_ refusal: UndoDecision.Refusal, id: Int64) -> String {
        switch refusal {
        case .noHistory:
            return "recipe \(id) has no revisions kept on this device, so there is nothing to go back to"
        case .nothingOlder(let oldest):
            return "recipe \(id) has no earlier content to go back to (revision \(oldest) is the oldest kept here); "
                + "`recipes history \(id)` lists what is kept"
        case .unknownRevision(let revision, let kept):
            return "recipe \(id) has no revision \(revision) kept here (it keeps \(kept.lowerBound) to \(kept.upperBound)); "
                + "`recipes history \(id)` lists them"
        case .deletingRevision(let revision):
            return "revision \(revision) of recipe \(id) is its deletion; give a revision with content to go back to"
        case .alreadyThere(let revision):
            return "recipe \(id) already holds the content of revision \(revision)"
        }
    }
}
