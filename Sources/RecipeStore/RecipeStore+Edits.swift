import Foundation
import GRDB
import RecipeModels

extension RecipeStore {
    /// Creates a recipe with a fresh UUID at revision 1, pending upload; returns it.
    ///
    /// The title must pass `RecipeText` (no NUL or other control character, one line). Every change reads its result
    /// back inside its own transaction: a change whose result cannot be read (a damaged page) is rolled back, so a
    /// failed command has changed nothing.
    public func create(title: String, uuid: UUID = UUID()) throws(StoreError) -> Recipe {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw StoreError(.emptyTitle) }
        try Self.check(title, as: .title)
        let stamp = now().timeIntervalSince1970
        return try edit(creating: uuid) { db in
            try db.execute(
                sql: """
                    INSERT INTO recipes (uuid, title, revision, state, created_at, updated_at)
                    VALUES (?, ?, 1, 'pending', ?, ?)
                    """,
                arguments: [uuid.lowercasedString, title, stamp, stamp])
            let id = db.lastInsertedRowID
            try Self.noteOrigin(.new, of: id, db)
            return try Self.fetchRecipe(db, id: id)
        }
    }

    /// Applies `change` to recipe `id` and, in the same transaction, bumps its revision and marks it for upload;
    /// returns the recipe as it is now (see `edit(_:of:)`).
    @discardableResult
    public func apply(_ change: RecipeChange, to id: Int64) throws(StoreError) -> Recipe {
        try edit(change, of: id).recipe
    }

    /// Applies `change` to recipe `id` and, in the same transaction, bumps its revision and marks it for upload.
    ///
    /// A change that leaves every field as it was (a title set to the title it has, an ingredient moved to where it
    /// is, the image it already shows) changes nothing: no revision, nothing to upload, `changed` false. Only a
    /// recipe in conflict takes such an edit, which settles the conflict of the field it sets with the value it has.
    /// A change that fails (unknown id, deleted recipe, index out of range, text `RecipeText` refuses, a damaged
    /// database) changes nothing.
    public func edit(_ change: RecipeChange, of id: Int64) throws(StoreError) -> EditOutcome {
        for given in RecipeText.texts(of: change) { try Self.check(given.text, as: given.field) }
        var unneededCopy: String?
        func apply(keeping kept: String?) -> (Database) throws -> EditOutcome {
            { db in
                let current = try Self.editableRow(db, id: id)
                let sent = try SentDraft.beforeEdit(current, id: id, db)
                let before = try Self.conflictBeforeEdit(current, id: id, db)
                let fieldsBefore = before == nil ? RecipeFields(try Self.fetchRecipe(db, id: id)) : nil
                try db.execute(sql: "SAVEPOINT edit")
                try Self.perform(change, on: id, in: db)
                if let fieldsBefore, RecipeFields(try Self.fetchRecipe(db, id: id)) == fieldsBefore {
                    // Undone to the byte (a second copy of the image it shows is not attached either).
                    try db.execute(sql: "ROLLBACK TO edit")
                    try db.execute(sql: "RELEASE edit")
                    if let kept { unneededCopy = try Self.unreferencedCopy(kept, keeping: nil, db) }
                    return EditOutcome(recipe: try Self.fetchRecipe(db, id: id), changed: false)
                }
                try db.execute(sql: "RELEASE edit")
                try sent?.remember(id, db)
                try self.markChanged(id, settling: before, in: db)
                try Self.noteOrigin(.edit, command: change.commandName, of: id, db)
                if kept != nil || change == .clearImage {
                    unneededCopy = try Self.unreferencedCopy(current["image_file"], keeping: kept, db)
                }
                return EditOutcome(recipe: try Self.fetchRecipe(db, id: id), changed: true)
            }
        }
        switch change {
        case .setImage(let staged):
            // Holding the media lock from the rename to the commit keeps garbage collection in other processes
            // from removing the new copy before a row refers to it.
            return try media.withExclusiveAccess { () throws(StoreError) -> EditOutcome in
                try media.install(staged)
                let outcome = try edit(apply(keeping: staged.fileName))
                if let unneededCopy { media.remove(unneededCopy) }
                return outcome
            }
        case .clearImage:
            // Without a copy to let go (no image, or an unknown id: the change fails) the media lock is not taken,
            // so that a failed command creates nothing; a copy attached meanwhile elsewhere is left to collection.
            guard try currentCopy(of: id) != nil else { return try edit(apply(keeping: nil)) }
            return try media.withExclusiveAccess { () throws(StoreError) -> EditOutcome in
                let outcome = try edit(apply(keeping: nil))
                if let unneededCopy { media.remove(unneededCopy) }
                return outcome
            }
        default:
            return try edit(apply(keeping: nil))
        }
    }

    /// Deletes recipe `id`: removed at once when the server never saw it, else kept as `deleting` until the
    /// server confirms the DELETE. Answers whether it was removed at once (false: its deletion waits for a sync).
    @discardableResult
    public func delete(_ id: Int64) throws(StoreError) -> Bool {
        var removed = false
        let change = { (db: Database) throws -> String? in
            let row = try Self.editableRow(db, id: id)
            try SentDraft.beforeEdit(row, id: id, db)?.remember(id, db)
            try Self.noteOrigin(.delete, of: id, db)
            // Removed at once when the server never saw it, else `deleting` (RecipeSyncMachine decides).
            let transition = try Self.apply(.deleted, to: id, db)
            removed = transition?.effects.contains(.removeRecipe) == true
            if !removed {
                try db.execute(sql: "UPDATE recipes SET updated_at = ? WHERE id = ?", arguments: [self.now().timeIntervalSince1970, id])
            }
            return try Self.unreferencedCopy(row["image_file"], keeping: nil, db)
        }
        // As for `clearImage`: the media lock only when there is a copy to let go.
        guard try currentCopy(of: id) != nil else {
            _ = try edit(change)
            return removed
        }
        try media.withExclusiveAccess { () throws(StoreError) in
            if let unneededCopy = try edit(change) { media.remove(unneededCopy) }
        }
        return removed
    }

    /// The media copy recipe `id` refers to now, if any: whether a change that may let it go takes the media lock.
    func currentCopy(of id: Int64) throws(StoreError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT image_file FROM recipes WHERE id = ?", arguments: [id]) }
    }

    // MARK: Internals

    /// Throws the error that says what is wrong with `text` as the value of `field`, if anything.
    static func check(_ text: String, as field: TextField) throws(StoreError) {
        if let problem = RecipeText.problem(in: text, field: field) {
            throw StoreError(.invalidText(field: field, problem: problem))
        }
    }

    /// Runs an edit in one write transaction (see `write`), turning a constraint of the schema that refuses it into
    /// an error in the recipe's words: SQLite's own message (`CHECK constraint failed: …`) never reaches a person.
    /// `uuid` names the recipe an edit creates.
    ///
    /// Every edit of every command goes through here: once an edit that changed a row has committed, it wakes the
    /// home's `recipes sync --watch` (`EditSignal`).
    func edit<T>(creating uuid: UUID? = nil, _ body: (Database) throws -> T) throws(StoreError) -> T {
        var changed = false
        let result = try write { db in
            let before = db.totalChangesCount
            do {
                let result = try body(db)
                changed = db.totalChangesCount != before
                return result
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StoreError.refusedChange(constraintMessage: error.message, uuid: uuid?.lowercasedString)
            }
        }
        if changed { EditSignal.send(to: home) }
        return result
    }

    /// The row of a recipe that may be edited: it exists and is not deleted.
    static func editableRow(_ db: Database, id: Int64) throws -> Row {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM recipes WHERE id = ?", arguments: [id]) else {
            throw StoreError(.unknownRecipe(id: id))
        }
        if (row["deleted"] as Int64) != 0 { throw StoreError(.recipeDeleted(id: id)) }
        return row
    }

    /// Bumps the revision and marks the recipe due for upload; always inside the edit's transaction. A recipe that
    /// was in conflict (`before`: its conflict and fields before the edit) keeps only the conflicts the edit did not
    /// settle.
    func markChanged(
        _ id: Int64, settling before: (conflict: RecipeConflict, fields: RecipeFields)? = nil, in db: Database
    ) throws {
        try Self.apply(try Self.editEvent(id, settling: before, db), to: id, db)
        try db.execute(sql: "UPDATE recipes SET updated_at = ? WHERE id = ?", arguments: [now().timeIntervalSince1970, id])
    }

    static func perform(_ change: RecipeChange, on id: Int64, in db: Database) throws {
        func setColumn(_ column: String, _ value: String) throws {
            try db.execute(sql: "UPDATE recipes SET \(column) = ? WHERE id = ?", arguments: [value, id])
        }
        switch change {
        case .title(let text):
            let title = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !title.isEmpty else { throw StoreError(.emptyTitle) }
            try setColumn("title", title)
        case .description(let text): try setColumn("description", text)
        case .yield(let text): try setColumn("recipe_yield", text)
        case .keywords(let text): try setColumn("keywords", normalizeKeywords(text))
        case .addIngredient(let text): try append(text, to: "ingredients", recipe: id, db)
        case .removeIngredient(let n): try remove(n, from: "ingredients", what: "ingredient", recipe: id, db)
        case .addStep(let text): try appendStep(text, recipe: id, db)
        case .removeStep(let n): try remove(n, from: "steps", what: "step", recipe: id, db)
        case .setIngredient(let n, let text): try set(n, text, in: "ingredients", what: "ingredient", recipe: id, db)
        case .insertIngredient(let n, let text): try insert(text, at: n, into: "ingredients", what: "ingredient", recipe: id, db)
        case .moveIngredient(let from, let to): try move(from, to: to, in: "ingredients", what: "ingredient", recipe: id, db)
        case .setStep(let n, let text): try set(n, text, in: "steps", what: "step", recipe: id, db)
        case .insertStep(let n, let text): try insertStep(text, at: n, recipe: id, db)
        case .moveStep(let from, let to): try move(from, to: to, in: "steps", what: "step", recipe: id, db)
        case .setImage(let staged):
            try db.execute(
                sql: "UPDATE recipes SET image_sha256 = ?, image_format = ?, image_bytes = ?, image_file = ? WHERE id = ?",
                arguments: [staged.sha256, staged.format.rawValue, staged.byteCount, staged.fileName, id])
        case .clearImage:
            let sha: String? = try String.fetchOne(db, sql: "SELECT image_sha256 FROM recipes WHERE id = ?", arguments: [id])
            guard sha != nil else { throw StoreError(.noImage(id: id)) }
            try db.execute(
                sql: """
                    UPDATE recipes SET image_sha256 = NULL, image_format = NULL, image_bytes = NULL, image_file = NULL
                    WHERE id = ?
                    """,
                arguments: [id])
        case .detail, .detailList, .nutrition, .stepSection:
            try performDetail(change, on: id, in: db)
        }
    }

    /// Keywords as the user typed them, with blanks around commas and empty entries removed.
    static func normalizeKeywords(_ text: String) -> String {
        text.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: ",")
    }

    static func append(_ text: String, to table: String, recipe id: Int64, _ db: Database) throws {
        try checkRoom(in: table, recipe: id, db)
        try db.execute(
            sql: """
                INSERT INTO \(table) (recipe_id, position, text)
                VALUES (?, (SELECT coalesce(max(position), 0) + 1 FROM \(table) WHERE recipe_id = ?), ?)
                """,
            arguments: [id, id, text])
    }

    static func remove(_ n: Int, from table: String, what: String, recipe id: Int64, _ db: Database) throws {
        let rows = try Int64.fetchAll(
            db, sql: "SELECT id FROM \(table) WHERE recipe_id = ? ORDER BY position", arguments: [id])
        guard n >= 1, n <= rows.count else {
            throw StoreError(.indexOutOfRange(what: what, index: n, count: rows.count, id: id))
        }
        try db.execute(sql: "DELETE FROM \(table) WHERE id = ?", arguments: [rows[n - 1]])
    }

    /// Throws when recipe `id`'s `table` (ingredients or steps) is full (`RecipeLimits`): one more would be too many.
    static func checkRoom(in table: String, recipe id: Int64, _ db: Database) throws {
        let count = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT count(*) FROM \(table) WHERE recipe_id = ?"), arguments: [id]) ?? 0
        if count >= RecipeLimits.listLength { throw StoreError(.tooManyParts(what: table, count: count + 1)) }
    }

    /// `fileName` when it is a media copy no recipe refers to any more (other than `kept`), read inside the change's
    /// transaction; the caller deletes it after the commit, holding the media lock throughout.
    static func unreferencedCopy(_ fileName: String?, keeping kept: String?, _ db: Database) throws -> String? {
        guard let fileName, fileName != kept else { return nil }
        let referenced = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE image_file = ?)"),
            arguments: [fileName]) ?? false
        if referenced { return nil }
        return try historyNames(file: fileName, db) ? nil : fileName
    }

    /// The row ids of a recipe's ingredients or steps, in order, and the n-th of them (1-based) or a clear error.
    static func part(
        _ n: Int, of table: String, what: String, recipe id: Int64, allowingEnd: Bool = false, _ db: Database
    ) throws -> (rows: [(id: Int64, position: Int64)], index: Int) {
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, position FROM \(table) WHERE recipe_id = ? ORDER BY position, id", arguments: [id]
        ).map { (id: $0[0] as Int64, position: $0[1] as Int64) }
        let last = allowingEnd ? rows.count + 1 : rows.count
        guard n >= 1, n <= last else {
            throw StoreError(.indexOutOfRange(what: what, index: n, count: rows.count, id: id, allowingEnd: allowingEnd))
        }
        return (rows, n - 1)
    }

    static func set(_ n: Int, _ text: String, in table: String, what: String, recipe id: Int64, _ db: Database) throws {
        let (rows, index) = try part(n, of: table, what: what, recipe: id, db)
        try db.execute(sql: "UPDATE \(table) SET text = ? WHERE id = ?", arguments: [text, rows[index].id])
    }

    /// Inserts `text` as the n-th part: the parts from the n-th on move one place down.
    static func insert(_ text: String, at n: Int, into table: String, what: String, recipe id: Int64, _ db: Database) throws {
        let (rows, index) = try part(n, of: table, what: what, recipe: id, allowingEnd: true, db)
        if rows.count >= RecipeLimits.listLength { throw StoreError(.tooManyParts(what: table, count: rows.count + 1)) }
        try renumber(rows.map(\.id), in: table, from: rows, skipping: index, db)
        try db.execute(
            sql: "INSERT INTO \(table) (recipe_id, position, text) VALUES (?, ?, ?)", arguments: [id, index + 1, text])
    }

    /// Moves the part at `from` to place `to`; the parts between shift by one.
    static func move(_ from: Int, to: Int, in table: String, what: String, recipe id: Int64, _ db: Database) throws {
        let (rows, source) = try part(from, of: table, what: what, recipe: id, db)
        _ = try part(to, of: table, what: what, recipe: id, db)
        var order = rows.map(\.id)
        order.insert(order.remove(at: source), at: to - 1)
        try renumber(order, in: table, from: rows, db)
    }

    /// Gives the parts in `order` the positions 1, 2, … (leaving a gap at `skipping`, 0-based), writing only the
    /// rows whose position changes.
    static func renumber(
        _ order: [Int64], in table: String, from rows: [(id: Int64, position: Int64)], skipping gap: Int? = nil,
        _ db: Database
    ) throws {
        let current = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.position) })
        for (index, rowID) in order.enumerated() {
            let position = Int64(index + 1 + (gap.map { index >= $0 ? 1 : 0 } ?? 0))
            guard current[rowID] != position else { continue }
            try db.execute(sql: "UPDATE \(table) SET position = ? WHERE id = ?", arguments: [position, rowID])
        }
    }
}
