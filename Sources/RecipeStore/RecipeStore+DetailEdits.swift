import Foundation
import GRDB
import RecipeModels

/// The edits of the details (times, author, url, the lists, nutrition) and of the steps' sections.
extension RecipeStore {
    /// Applies a change of a detail or of steps' sections inside the caller's transaction.
    static func performDetail(_ change: RecipeChange, on id: Int64, in db: Database) throws {
        switch change {
        case .detail(let detail, let text):
            try db.execute(sql: "UPDATE recipes SET \(detail.column) = ? WHERE id = ?", arguments: [text, id])
        case .detailList(let list, let texts):
            let entries = texts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            try db.execute(sql: "UPDATE recipes SET \(list.column) = ? WHERE id = ?", arguments: [json(entries), id])
        case .nutrition(let key, let value):
            let current = try String.fetchOne(db, sql: "SELECT nutrition FROM recipes WHERE id = ?", arguments: [id])
            var nutrition = texts(fromJSON: current)
            if value.isEmpty {
                guard nutrition.removeValue(forKey: key) != nil else {
                    throw StoreError(.noNutrition(key: key, id: id, present: nutrition.keys.sorted()))
                }
            } else {
                nutrition[key] = value
            }
            try db.execute(sql: "UPDATE recipes SET nutrition = ? WHERE id = ?", arguments: [json(nutrition), id])
        case .stepSection(let from, let to, let name):
            let (rows, first) = try part(from, of: "steps", what: "step", recipe: id, db)
            let (_, last) = try part(to, of: "steps", what: "step", recipe: id, db)
            guard first <= last else {
                throw StoreError(.indexOutOfRange(what: "step", index: to, count: rows.count, id: id))
            }
            for row in rows[first...last] {
                try db.execute(sql: "UPDATE steps SET section = ? WHERE id = ?", arguments: [name, row.id])
            }
        default:
            break
        }
    }

    /// Appends a step to recipe `id`, in the section of its last step.
    static func appendStep(_ text: String, recipe id: Int64, _ db: Database) throws {
        try checkRoom(in: "steps", recipe: id, db)
        try db.execute(
            sql: """
                INSERT INTO steps (recipe_id, position, text, section)
                VALUES (?, (SELECT coalesce(max(position), 0) + 1 FROM steps WHERE recipe_id = ?), ?,
                    coalesce((SELECT section FROM steps WHERE recipe_id = ? ORDER BY position DESC LIMIT 1), ''))
                """,
            arguments: [id, id, text, id])
    }

    /// Inserts a step as the n-th of recipe `id`, in the section of the step it goes before (the last one's when it
    /// goes at the end).
    static func insertStep(_ text: String, at n: Int, recipe id: Int64, _ db: Database) throws {
        let (rows, index) = try part(n, of: "steps", what: "step", recipe: id, allowingEnd: true, db)
        if rows.count >= RecipeLimits.listLength { throw StoreError(.tooManyParts(what: "steps", count: rows.count + 1)) }
        let neighbour = index < rows.count ? rows[index].id : rows.last?.id
        let section = try neighbour.flatMap { try String.fetchOne(db, sql: "SELECT section FROM steps WHERE id = ?", arguments: [$0]) } ?? ""
        try renumber(rows.map(\.id), in: "steps", from: rows, skipping: index, db)
        try db.execute(
            sql: "INSERT INTO steps (recipe_id, position, text, section) VALUES (?, ?, ?, ?)",
            arguments: [id, index + 1, text, section])
    }
}
