import Foundation
import GRDB
import RecipeModels

/// The server's copy of a recipe, as a pull or the answer to a `412` reads it.
public enum ServerCopy: Sendable, Equatable {
    /// The recipe at server version `version`, with these fields (its image, if any, already in `images/`).
    case live(version: Int64, fields: RecipeFields)
    /// Deleted on the server at version `version` (the tombstone's).
    case deleted(version: Int64)

    /// The version the copy is at.
    public var version: Int64 {
        switch self {
        case .live(let version, _), .deleted(let version): version
        }
    }
}

/// What applying the server's copy of a recipe did (docs/sync-engine.md, "Two-way sync and conflicts").
public enum ServerCopyOutcome: Sendable, Equatable {
    /// Unknown here: added, synced.
    case added
    /// Nothing to do: not newer than what this device has, or the same fields as the base.
    case unchanged
    /// No local edits: the server's fields replaced the local ones, synced.
    case replaced
    /// The server has exactly the local draft (this device's own upload whose answer was lost, say): synced there.
    case acknowledged
    /// Merged with local edits, field by field: pending (pushed as the next version) or, when equal to the server's
    /// copy, synced.
    case merged(pending: Bool)
    /// A person must choose (and `status` says what).
    case conflict(RecipeConflict)
    /// Not taken: the server's copy breaks the store's rules (`RecipeStore.refusal(of:)`, which says why); the recipe
    /// stays as it was here.
    case refused(String)
    /// Deleted on the server, not changed here: removed here too (it had the local id `formerID` and the title
    /// `title`, by which the run names it).
    case removed(formerID: Int64, title: String)
}

extension RecipeStore {
    /// Applies the server's copy of recipe `uuid` inside the caller's transaction and returns what it did and the
    /// recipe's local id (nil when it is gone or never was here).
    ///
    /// A copy the store's rules refuse (`refusal(of:)`) changes nothing. Otherwise the rules are those of docs/sync-engine.md's "Two-way sync and conflicts":
    /// a change not newer than the local base is nothing; an unknown recipe is
    /// added; without local edits the server's fields replace the local ones; with local edits the fields are merged
    /// three ways (`RecipeMerge`), a field changed differently on both sides being a conflict that keeps the local value;
    /// a deletion on one side against a change on the other is a conflict; fields equal to the server's make the
    /// recipe synced without a push. What counts is the fields, not the version number. The sync bookkeeping goes
    /// through `RecipeSyncMachine`.
    static func applyServerCopy(
        _ copy: ServerCopy, uuid: UUID, images: ImageLibrary, now: Date, _ db: Database
    ) throws -> (id: Int64?, outcome: ServerCopyOutcome) {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(recipeColumns) FROM recipes WHERE uuid = ?"), arguments: [uuid.lowercasedString])
        if let reason = refusal(of: copy) { return (row.map { $0["id"] as Int64 }, .refused(reason)) }
        guard let row else {
            guard case .live(let version, let theirs) = copy else { return (nil, .unchanged) }
            return (try insert(theirs, uuid: uuid, version: version, images: images, now: now, db), .added)
        }
        var recipe = decode(row)
        let id = recipe.id
        recipe.ingredients = try String.fetchAll(
            db.cachedStatement(sql: "SELECT text FROM ingredients WHERE recipe_id = ? ORDER BY position"), arguments: [id]
        ).map(Ingredient.init(text:))
        recipe.steps = try fetchSteps(id, db)
        let sync = recipe.sync
        let version = copy.version
        if let known = sync.serverVersion, version <= known {
            // A home migrated from before two-way sync knows the version its draft is based on, not its fields: the
            // first pull, which reads the whole feed, finds them there (a one-time reconcile).
            if version == known, sync.base == nil, case .live(_, let theirs) = copy {
                try apply(.baseRecovered(version: version, fields: theirs), to: id, db)
            }
            return (id, .unchanged)
        }
        let local = RecipeFields(recipe)
        let edited = sync.deleted || sync.revision > sync.syncedRevision || sync.serverVersion == nil
        // This device's own upload whose answer was lost, edited since: that version is the base (docs/sync-engine.md, "Two-way sync and conflicts").
        let ownWrite: Bool
        if edited, case .live(let version, let theirs) = copy,
           let sent = try SentDraft.current(of: id, serverVersion: sync.serverVersion, db) {
            ownWrite = sent.version == version && sent.fields == theirs
        } else {
            ownWrite = false
        }
        try SentDraft.forget(id, db)
        func record(_ outcome: RecipeSyncMachine.MergeOutcome, base: RecipeFields?, changed: Bool, deleted: Bool) throws {
            try apply(.merged(version: version, base: base, outcome: outcome, fieldsChanged: changed, deleted: deleted), to: id, db)
            if changed { try touch(id, now, db) }
        }
        switch copy {
        case .deleted:
            if sync.deleted || !edited {
                try apply(.removedOnServer, to: id, db)
                return (nil, .removed(formerID: id, title: recipe.title))
            }
            try record(.conflict(.deletedOnServer), base: nil, changed: false, deleted: false)
            return (id, .conflict(.deletedOnServer))
        case .live(_, let theirs):
            if sync.deleted {
                if ownWrite || sync.base == theirs {
                    try record(.pending, base: theirs, changed: false, deleted: true)
                    return (id, .unchanged)
                }
                try record(.conflict(.deletedHere), base: theirs, changed: false, deleted: true)
                return (id, .conflict(.deletedHere))
            }
            if !edited {
                let changed = try write(theirs, to: id, images: images, db)
                try record(.synced, base: theirs, changed: changed, deleted: false)
                return (id, changed ? .replaced : .unchanged)
            }
            if local == theirs {
                try writeForms(theirs, to: id, db)
                try record(.synced, base: theirs, changed: false, deleted: false)
                return (id, .acknowledged)
            }
            if ownWrite || sync.base == theirs {
                // The server has the fields this draft started from, or the draft this device sent before the edits
                // made since: the draft is pushed over the newer version.
                try writeForms(theirs, to: id, db)
                try record(.pending, base: theirs, changed: false, deleted: false)
                return (id, .unchanged)
            }
            let result = sync.base.map { RecipeMerge.merge(base: $0, mine: local, theirs: theirs) }
                ?? RecipeMerge.mergeWithoutBase(mine: local, theirs: theirs)
            let changed = try write(result.merged, to: id, images: images, db)
            if !result.conflicts.isEmpty {
                let conflict = RecipeConflict.fields(result.conflicts)
                try record(.conflict(conflict), base: theirs, changed: changed, deleted: false)
                return (id, .conflict(conflict))
            }
            let pending = result.merged != theirs
            try record(pending ? .pending : .synced, base: theirs, changed: changed, deleted: false)
            return (id, .merged(pending: pending))
        }
    }

    /// Adds a recipe the server has and this device does not, synced at `version`.
    private static func insert(
        _ fields: RecipeFields, uuid: UUID, version: Int64, images: ImageLibrary, now: Date, _ db: Database
    ) throws -> Int64 {
        let stamp = now.timeIntervalSince1970
        // The text fields in the row as it is inserted: one search-index entry written, not one per field.
        try db.cachedStatement(sql: """
            INSERT INTO recipes (uuid, title, description, recipe_yield, keywords, revision, synced_revision, sent_revision,
                state, created_at, updated_at, \(detailColumns))
            VALUES (?, ?, ?, ?, ?, 1, 1, 1, 'synced', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: StatementArguments([
                uuid.lowercasedString, fields.title.isEmpty ? "(untitled)" : fields.title, fields.description,
                fields.recipeYield, fields.keywords, stamp, stamp,
            ] as [(any DatabaseValueConvertible)?] + values(of: fields.details, fields.received)))
        let id = db.lastInsertedRowID
        _ = try write(fields, to: id, images: images, db)
        try apply(.merged(version: version, base: fields, outcome: .synced, fieldsChanged: false, deleted: false), to: id, db)
        return id
    }

    /// Makes recipe `id`'s fields `fields` (its image a local copy kept as it is, or a server image that must be in
    /// `images/` already), writing only what differs; whether anything changed.
    static func write(_ fields: RecipeFields, to id: Int64, images: ImageLibrary, _ db: Database) throws -> Bool {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT title, description, recipe_yield, keywords, image_sha256 FROM recipes WHERE id = ?"),
            arguments: [id])
        guard let row else { throw StoreError(.unknownRecipe(id: id)) }
        var changed = false
        let title = fields.title.isEmpty ? (row["title"] as String) : fields.title
        for (column, value) in [("title", title), ("description", fields.description),
                                ("recipe_yield", fields.recipeYield), ("keywords", fields.keywords)]
        where (row[column] as String) != value {
            try db.cachedStatement(sql: "UPDATE recipes SET \(column) = ? WHERE id = ?").execute(arguments: [value, id])
            changed = true
        }
        changed = try replaceParts(of: id, in: "ingredients", with: fields.ingredients, db) || changed
        changed = try replaceSteps(of: id, with: fields.steps, db) || changed
        changed = try writeDetails(fields.details, fields.received, to: id, db) || changed
        let current: String? = row["image_sha256"]
        if current != fields.image?.sha256 {
            changed = true
            switch fields.image?.source {
            case nil:
                try db.execute(
                    sql: "UPDATE recipes SET image_sha256 = NULL, image_format = NULL, image_bytes = NULL, image_file = NULL WHERE id = ?",
                    arguments: [id])
            case .local(let reference):
                try db.execute(
                    sql: "UPDATE recipes SET image_sha256 = ?, image_format = ?, image_bytes = ?, image_file = ? WHERE id = ?",
                    arguments: [reference.sha256, reference.format.rawValue, reference.byteCount, reference.localFileName, id])
            case .server(let url):
                guard let image = fields.image, let local = images.image(sha256: image.sha256) else {
                    throw StoreError(.downloadRefused(sha256: fields.image?.sha256 ?? "", reason: "it was not downloaded"))
                }
                try db.cachedStatement(sql: """
                    UPDATE recipes SET image_sha256 = ?, image_format = ?, image_bytes = ?, image_file = NULL,
                        remote_image_sha256 = ?, remote_image_url = ? WHERE id = ?
                    """).execute(arguments: [local.sha256, local.format.rawValue, local.byteCount, local.sha256, url, id])
            }
        }
        return changed
    }

    /// Keeps the forms of `theirs` (how the server's newest copy writes the same fields) for recipe `id`, so that the
    /// next push writes what the server has for every field nobody edited. Not a change of the recipe.
    static func writeForms(_ theirs: RecipeFields, to id: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE recipes SET property_forms = ? WHERE id = ? AND property_forms IS NOT ?")
            .execute(arguments: [theirs.received.forms.map(rawJSON), id, theirs.received.forms.map(rawJSON)])
    }

    /// Stamps recipe `id` as changed at `now`.
    static func touch(_ id: Int64, _ now: Date, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE recipes SET updated_at = ? WHERE id = ?").execute(arguments: [now.timeIntervalSince1970, id])
    }

    /// The recipe of `uuid` with its ingredients and steps, or nil when this device has none.
    public func recipe(uuid: UUID) throws(StoreError) -> Recipe? {
        try read { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM recipes WHERE uuid = ?", arguments: [uuid.lowercasedString])
            else { return nil }
            return try Self.fetchRecipe(db, id: id)
        }
    }
}
