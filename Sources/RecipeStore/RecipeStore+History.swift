import Foundation
import GRDB
import RecipeModels

/// How the store keeps each recipe's revisions (migration `0010_history`): the triggers on `recipes` mark every recipe
/// a transaction gave a new revision (or removed); just before the commit, `recordHistory` turns each mark into a row
/// of `recipe_history` holding the recipe's whole content. Every writer (an edit, an import, a pull, a merge, a
/// resolution, an undo) keeps the history in its own transaction without knowing how; the writers that know where a
/// change came from say so with `noteOrigin`.
extension RecipeStore {
    /// The migration that adds the history.
    static let historyMigration = "0010_history"

    /// How many revisions of each recipe are kept (the oldest go first).
    public static let historyLimit = 50

    /// How many deleted recipes keep their history for `undo` (those deleted longest ago go first).
    public static let deletedHistoryLimit = 200

    /// Says where the new revision of recipe `id` in this transaction comes from (before or after the change; the
    /// last word counts), and for a deletion the server has, its tombstone's version. Does nothing in a schema without
    /// history (a store opened with an older list of migrations).
    static func noteOrigin(
        _ origin: RevisionOrigin, command: String? = nil, restores: Int64? = nil, tombstone: Int64? = nil,
        of id: Int64, _ db: Database
    ) throws {
        guard try db.tableExists("recipe_history_due") else { return }
        try db.cachedStatement(sql: """
            INSERT INTO recipe_history_due (recipe_id, origin, command, restores, tombstone) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (recipe_id) DO UPDATE SET origin = excluded.origin, command = excluded.command,
                restores = excluded.restores, tombstone = coalesce(excluded.tombstone, recipe_history_due.tombstone)
            """).execute(arguments: [id, origin.rawValue, command, restores, tombstone])
    }

    /// Writes a history row for every recipe the transaction marked, then clears the marks; called inside every
    /// change's transaction just before it commits. A mark whose recipe kept its revision (a note for an edit that
    /// changed nothing) writes nothing; a removed recipe gets a deletion row (or, when its newest row is the deletion
    /// already, that row learns the tombstone's version). Each recipe keeps its newest `historyLimit` rows, and the
    /// `deletedHistoryLimit` recipes deleted last keep theirs.
    static func recordHistory(_ db: Database, now: Date) throws {
        let marks = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT recipe_id, uuid, origin, command, restores, gone, tombstone FROM recipe_history_due
            """))
        guard !marks.isEmpty else { return }
        var removed = false
        for mark in marks {
            let id: Int64 = mark["recipe_id"]
            let newest = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT seq, revision, deleted, fields FROM recipe_history WHERE recipe_id = ? ORDER BY seq DESC LIMIT 1
                """), arguments: [id])
            let origin: String? = mark["origin"]
            if (mark["gone"] as Int64) != 0 {
                removed = true
                guard let newest, let uuid: String = mark["uuid"] else { continue }
                if (newest["deleted"] as Int64) != 0 {
                    try db.cachedStatement(sql: "UPDATE recipe_history SET tombstone = coalesce(?, tombstone) WHERE seq = ?")
                        .execute(arguments: [mark["tombstone"] as Int64?, newest["seq"] as Int64])
                    continue
                }
                try insertEntry(
                    id: id, uuid: uuid, revision: (newest["revision"] as Int64) + 1, at: now,
                    origin: origin ?? RevisionOrigin.delete.rawValue, command: nil, deleted: true,
                    fields: newest["fields"], restores: nil, tombstone: mark["tombstone"], db)
            } else {
                // A mark that writes no row (a pull's conflict, a merge that changed nothing) is told from the row's
                // revision alone, before the recipe is read whole.
                guard let current = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT revision, deleted FROM recipes WHERE id = ?"), arguments: [id])
                else { continue }
                if let newest, (newest["revision"] as Int64) == (current["revision"] as Int64),
                   (newest["deleted"] as Int64) == (current["deleted"] as Int64)
                {
                    continue
                }
                guard let recipe = try? fetchRecipe(db, id: id) else { continue }
                try insertEntry(
                    id: id, uuid: recipe.uuid.lowercasedString, revision: recipe.sync.revision, at: now,
                    origin: origin ?? (recipe.sync.deleted ? RevisionOrigin.delete : .edit).rawValue,
                    command: mark["command"], deleted: recipe.sync.deleted, fields: RecipeFields(recipe).storedJSON,
                    restores: mark["restores"], tombstone: nil, db)
            }
            guard newest != nil else { continue }  // a first row: nothing to keep within the limit
            try db.cachedStatement(sql: """
                DELETE FROM recipe_history WHERE recipe_id = ? AND seq <= (
                    SELECT seq FROM recipe_history WHERE recipe_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)
                """).execute(arguments: [id, id, historyLimit])
        }
        if removed {
            try db.cachedStatement(sql: """
                DELETE FROM recipe_history WHERE recipe_id IN (
                    SELECT recipe_id FROM recipe_history WHERE recipe_id NOT IN (SELECT id FROM recipes)
                    GROUP BY recipe_id ORDER BY max(seq) DESC LIMIT -1 OFFSET ?)
                """).execute(arguments: [deletedHistoryLimit])
        }
        try db.cachedStatement(sql: "DELETE FROM recipe_history_due").execute()
    }

    /// Inserts one history row.
    private static func insertEntry(
        id: Int64, uuid: String, revision: Int64, at: Date, origin: String, command: String?, deleted: Bool,
        fields: String, restores: Int64?, tombstone: Int64?, _ db: Database
    ) throws {
        try db.cachedStatement(sql: """
            INSERT INTO recipe_history (recipe_id, uuid, revision, at, origin, command, deleted, fields, restores, tombstone)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                id, uuid, revision, at.timeIntervalSince1970, origin, command, deleted, fields, restores, tombstone,
            ])
    }

    /// Writes the first history row of every recipe of a home that had none (the migration that adds history): each
    /// recipe as it is, `earlier`, so that its next change can be undone.
    static func seedHistory(_ db: Database, now: Date) throws {
        let ids = try Int64.fetchAll(db, sql: "SELECT id FROM recipes ORDER BY id")
        for id in ids {
            let recipe = try fetchRecipe(db, id: id)
            try insertEntry(
                id: id, uuid: recipe.uuid.lowercasedString, revision: recipe.sync.revision, at: now,
                origin: RevisionOrigin.earlier.rawValue, command: nil, deleted: recipe.sync.deleted,
                fields: RecipeFields(recipe).storedJSON, restores: nil, tombstone: nil, db)
        }
    }

    /// Where an applied server copy came from, noted for the history: taken as it was, merged, or deleted on the
    /// server (at the copy's version, the tombstone's). Called inside the pull's transaction.
    static func noteServerOrigin(_ outcome: ServerCopyOutcome, copy: ServerCopy, id: Int64?, _ db: Database) throws {
        switch outcome {
        case .added, .replaced:
            if let id { try noteOrigin(.pull, of: id, db) }
        case .merged, .conflict:
            if let id { try noteOrigin(.merge, of: id, db) }
        case .removed(let formerID, _):
            try noteOrigin(.removed, tombstone: copy.version, of: formerID, db)
        case .unchanged, .acknowledged, .refused:
            break
        }
    }
}

extension RecipeChange {
    /// The command that makes this change, as `recipes history` names it (`ingredient add`, `title`).
    var commandName: String {
        switch self {
        case .title: "title"
        case .description: "description"
        case .yield: "yield"
        case .keywords: "keywords"
        case .addIngredient: "ingredient add"
        case .removeIngredient: "ingredient rm"
        case .setIngredient: "ingredient set"
        case .insertIngredient: "ingredient insert"
        case .moveIngredient: "ingredient move"
        case .addStep: "step add"
        case .removeStep: "step rm"
        case .setStep: "step set"
        case .insertStep: "step insert"
        case .moveStep: "step move"
        case .stepSection: "step section"
        case .setImage: "image set"
        case .clearImage: "image clear"
        case .detail(let detail, _):
            switch detail {
            case .prepTime: "preptime"
            case .cookTime: "cooktime"
            case .totalTime: "totaltime"
            case .author: "author"
            case .url: "url"
            }
        case .detailList(let list, _):
            switch list {
            case .recipeCategory: "category"
            case .recipeCuisine: "cuisine"
            case .tool: "tools"
            case .suitableForDiet: "diets"
            }
        case .nutrition: "nutrition"
        }
    }
}
