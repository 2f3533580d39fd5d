import Foundation
import GRDB
import RecipeModels

extension RecipeStore {
    /// What saving a recipe's edited content came to (`update(_:to:expectingRevision:)`).
    public enum ContentUpdate: Sendable, Equatable {
        /// The content equals the recipe's: nothing was written, the revision stays.
        case unchanged(Recipe)
        /// The changed fields were written in one transaction that bumped the revision and marked it for upload.
        case saved(Recipe)
        /// The recipe is no longer at the expected revision (changed elsewhere meanwhile): nothing was written.
        case changedMeanwhile(Recipe)
    }

    /// Writes `content` over recipe `id`'s fields, details, ingredients and steps in one transaction that bumps the
    /// revision and marks it for upload — only the parts that differ, and nothing at all when nothing differs. With
    /// `received`, the properties kept as they came are replaced too (a page imported again).
    ///
    /// What the content changes must pass the store's rules (`RecipeText`, `RecipeLimits`, a title that is not
    /// blank); what it leaves as the recipe has it is not checked again, so a recipe holding text those rules refuse
    /// (pulled before they applied to pulls) can still be edited elsewhere.
    ///
    /// With `expectingRevision`, the recipe must still be at that revision (checked inside the transaction), else
    /// nothing is written and the current recipe is returned for a merge.
    public func update(
        _ id: Int64, to content: RecipeContent, received: ReceivedProperties? = nil, expectingRevision: Int64? = nil
    ) throws(StoreError) -> ContentUpdate {
        enum Outcome { case unchanged, saved, changedMeanwhile }
        let outcome: Outcome = try edit { db in
            let row = try Self.editableRow(db, id: id)
            if let expectingRevision, (row["revision"] as Int64) != expectingRevision { return .changedMeanwhile }
            let sent = try SentDraft.beforeEdit(row, id: id, db)
            let before = try Self.conflictBeforeEdit(row, id: id, db)
            guard try Self.write(content, received: received, over: row, db) else { return .unchanged }
            try sent?.remember(id, db)
            try markChanged(id, settling: before, in: db)
            try Self.noteOrigin(.edit, command: "edit", of: id, db)
            return .saved
        }
        let recipe = try recipe(id: id)
        switch outcome {
        case .unchanged: return .unchanged(recipe)
        case .saved: return .saved(recipe)
        case .changedMeanwhile: return .changedMeanwhile(recipe)
        }
    }

    /// Writes `content` (checked by `checkedChanges`) and, when given, `received` over the recipe whose row is `row`,
    /// inside the caller's transaction, only what differs; whether anything did.
    static func write(_ content: RecipeContent, received: ReceivedProperties?, over row: Row, _ db: Database) throws -> Bool {
        let id: Int64 = row["id"]
        let content = try checkedChanges(content, over: RecipeContent(try fetchRecipe(db, id: id)))
        var changed = false
        for (column, value) in [("title", content.title), ("description", content.description),
                                ("recipe_yield", content.recipeYield), ("keywords", content.keywords)]
        where (row[column] as String) != value {
            try db.execute(sql: "UPDATE recipes SET \(column) = ? WHERE id = ?", arguments: [value, id])
            changed = true
        }
        changed = try replaceParts(of: id, in: "ingredients", with: content.ingredients, db) || changed
        changed = try replaceSteps(of: id, with: content.steps, db) || changed
        let kept = try received ?? storedRecipe(id, db)?.received ?? ReceivedProperties()
        changed = try writeDetails(content.details, kept, to: id, db) || changed
        return changed
    }

    /// A recipe to be created by `create(_:)`: its content, the properties it arrived with and, optionally, a staged
    /// image copy or the URL of an image elsewhere (kept as the recipe's remote image).
    public struct NewRecipe: Sendable, Equatable {
        /// The fields, details, ingredients and steps.
        public var content: RecipeContent
        /// The properties kept as they came (an imported page's).
        public var received: ReceivedProperties
        /// A copy staged in the media folder, attached when the recipe is created.
        public var image: StagedImage?
        /// An image on the web (an imported page's), kept as the recipe's remote image; never uploaded.
        public var remoteImageURL: String?

        /// Creates a new-recipe value.
        public init(
            content: RecipeContent, received: ReceivedProperties = ReceivedProperties(), image: StagedImage? = nil,
            remoteImageURL: String? = nil
        ) {
            self.content = content
            self.received = received
            self.image = image
            self.remoteImageURL = remoteImageURL
        }
    }

    /// Creates `recipes`, each with a fresh UUID at revision 1 and pending upload, all in one transaction (all or
    /// none); their staged images are moved into place under the media lock first. Returns them in order.
    ///
    /// A recipe without a title throws before anything is written; on any failure the staged copies of all of them
    /// are discarded.
    public func create(_ recipes: [NewRecipe]) throws(StoreError) -> [Recipe] {
        try importRecipes(recipes.map { ImportWrite(recipe: $0) }).map(\.recipe)
    }

    /// Throws the error that says which field of `content` `RecipeText` refuses, and why, or which list is longer
    /// than `RecipeLimits` allows.
    static func check(_ content: RecipeContent) throws(StoreError) {
        if let (field, problem) = RecipeText.problem(in: content) {
            throw StoreError(.invalidText(field: field, problem: problem))
        }
        if let (what, count) = RecipeLimits.overLimit(ingredients: content.ingredients.count, steps: content.steps.count) {
            throw StoreError(.tooManyParts(what: what, count: count))
        }
    }

    /// `content` as `update` writes it over `current`, checked: a changed title trimmed and not empty, every changed
    /// text passing `RecipeText`, and no list grown past `RecipeLimits`. Values equal to the current ones pass as
    /// they are.
    static func checkedChanges(_ content: RecipeContent, over current: RecipeContent) throws(StoreError) -> RecipeContent {
        var content = content
        if content.title != current.title {
            content.title = content.title.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !content.title.isEmpty else { throw StoreError(.emptyTitle) }
        }
        var texts: [(TextField, String, String)] = [
            (.title, content.title, current.title), (.description, content.description, current.description),
            (.yield, content.recipeYield, current.recipeYield), (.keywords, content.keywords, current.keywords),
        ]
        let kept = (ingredients: Set(current.ingredients), steps: Set(current.steps))
        texts += content.ingredients.filter { !kept.ingredients.contains($0) }.map { (.ingredient, $0, "") }
        texts += content.steps.filter { !kept.steps.contains($0) }.flatMap { [(.step, $0.text, ""), (.section, $0.section, "")] }
        if content.details != current.details {
            let details = RecipeContent(title: "", details: content.details)
            if let (field, problem) = RecipeText.problem(in: details) {
                throw StoreError(.invalidText(field: field, problem: problem))
            }
        }
        for (field, text, was) in texts where text != was {
            try check(text, as: field)
        }
        if let (what, count) = RecipeLimits.overLimit(ingredients: content.ingredients.count, steps: content.steps.count),
           count > (what == "ingredients" ? current.ingredients.count : current.steps.count) {
            throw StoreError(.tooManyParts(what: what, count: count))
        }
        return content
    }

    /// Inserts one new recipe with its parts; returns its id.
    static func insert(_ new: NewRecipe, stamp: Double, _ db: Database) throws -> Int64 {
        let content = new.content
        // The details in the row as it is inserted: one search-index entry written, not one per column.
        try db.cachedStatement(sql: """
            INSERT INTO recipes (uuid, title, description, recipe_yield, keywords, image_sha256, image_format,
                image_bytes, image_file, remote_image_url, revision, state, created_at, updated_at, \(detailColumns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: StatementArguments([
                UUID().lowercasedString, content.title.trimmingCharacters(in: .whitespacesAndNewlines),
                content.description, content.recipeYield, content.keywords, new.image?.sha256,
                new.image?.format.rawValue, new.image?.byteCount, new.image?.fileName, new.remoteImageURL, stamp, stamp,
            ] as [(any DatabaseValueConvertible)?] + values(of: content.details, new.received)))
        let id = db.lastInsertedRowID
        for (index, text) in content.ingredients.enumerated() {
            try db.cachedStatement(sql: "INSERT INTO ingredients (recipe_id, position, text) VALUES (?, ?, ?)")
                .execute(arguments: [id, index + 1, text])
        }
        for (index, step) in content.steps.enumerated() {
            try db.cachedStatement(sql: "INSERT INTO steps (recipe_id, position, text, section) VALUES (?, ?, ?, ?)")
                .execute(arguments: [id, index + 1, step.text, step.section])
        }
        return id
    }

    /// Makes recipe `id`'s ingredients or steps read `texts`, writing only the places that differ: a changed text is
    /// updated where it stands, extra places are appended or removed at the end. Whether anything changed.
    static func replaceParts(of id: Int64, in table: String, with texts: [String], _ db: Database) throws -> Bool {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT id, position, text FROM \(table) WHERE recipe_id = ? ORDER BY position, id"),
            arguments: [id])
        var changed = false
        for (index, row) in rows.enumerated() {
            if index < texts.count {
                guard (row[2] as String) != texts[index] else { continue }
                try db.cachedStatement(sql: "UPDATE \(table) SET text = ? WHERE id = ?").execute(arguments: [texts[index], row[0] as Int64])
            } else {
                try db.cachedStatement(sql: "DELETE FROM \(table) WHERE id = ?").execute(arguments: [row[0] as Int64])
            }
            changed = true
        }
        let lastPosition: Int64 = rows.last?[1] ?? 0
        for (offset, text) in texts.dropFirst(rows.count).enumerated() {
            try db.cachedStatement(sql: "INSERT INTO \(table) (recipe_id, position, text) VALUES (?, ?, ?)")
                .execute(arguments: [id, lastPosition + Int64(offset) + 1, text])
            changed = true
        }
        return changed
    }
}
