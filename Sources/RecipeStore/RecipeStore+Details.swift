import Foundation
import GRDB
import RecipeModels

/// How the store keeps a recipe's details and the properties kept as they came (migration 0008): the times, author
/// and url as texts, the lists as JSON arrays, nutrition as a JSON object of texts, the other properties and the forms
/// as JSON objects whose values are the properties' JSON texts exactly as they came.
extension RecipeStore {
    /// The text columns of the details, with where each is kept.
    static let detailTextColumns: [(column: String, path: any WritableKeyPath<RecipeDetails, String> & Sendable)] = [
        ("prep_time", \.prepTime), ("cook_time", \.cookTime), ("total_time", \.totalTime), ("author", \.author),
        ("url", \.url),
    ]

    /// The list columns of the details, with where each is kept.
    static let detailListColumns: [(column: String, path: any WritableKeyPath<RecipeDetails, [String]> & Sendable)] = [
        ("recipe_category", \.recipeCategory), ("recipe_cuisine", \.recipeCuisine), ("tool", \.tool),
        ("suitable_for_diet", \.suitableForDiet),
    ]

    /// The columns of the details and the kept properties, in the order `details(from:at:)` reads them.
    static let detailColumns = (detailTextColumns.map(\.column) + detailListColumns.map(\.column)
        + ["nutrition", "other_properties", "property_forms"]).joined(separator: ", ")

    /// The details and kept properties of a row whose `detailColumns` start at `start`.
    static func details(from row: Row, at start: Int) -> (RecipeDetails, ReceivedProperties) {
        var details = RecipeDetails()
        var index = start
        for (_, path) in detailTextColumns {
            details[keyPath: path] = row[index] ?? ""
            index += 1
        }
        for (_, path) in detailListColumns {
            details[keyPath: path] = list(fromJSON: row[index])
            index += 1
        }
        details.nutrition = texts(fromJSON: row[index])
        let other = raw(fromJSON: row[index + 1]) ?? [:]
        let forms = raw(fromJSON: row[index + 2])
        return (details, ReceivedProperties(other: other, forms: forms))
    }

    /// The column values of `details` and `received`, in `detailColumns` order.
    static func values(of details: RecipeDetails, _ received: ReceivedProperties) -> [String?] {
        detailTextColumns.map { details[keyPath: $0.path] } + detailListColumns.map { json(details[keyPath: $0.path]) }
            + [json(details.nutrition), rawJSON(received.other), received.forms.map(rawJSON)]
    }

    // MARK: JSON columns

    /// A list as a JSON array.
    static func json(_ list: [String]) -> String {
        var bytes: [UInt8] = []
        JSONBytes.appendStrings(list, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Texts by key as a JSON object with sorted keys.
    static func json(_ texts: [String: String]) -> String {
        rawJSON(texts.mapValues { text in
            var bytes: [UInt8] = []
            JSONBytes.appendString(text, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        })
    }

    /// JSON texts by key as one JSON object with sorted keys, each value spliced in as it is.
    static func rawJSON(_ values: [String: String]) -> String {
        var bytes: [UInt8] = []
        JSONBytes.appendObject(values.sorted { JSONBytes.precedes($0.key, $1.key) }.map { ($0.key, Array($0.value.utf8)) }, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON array of texts; empty when the column holds none (or something else).
    static func list(fromJSON text: String?) -> [String] {
        guard let text, text != "[]" else { return [] }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    /// A JSON object of texts; empty when the column holds none.
    static func texts(fromJSON text: String?) -> [String: String] {
        guard let text, text != "{}" else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    /// A JSON object's members as JSON texts; nil for a NULL column.
    static func raw(fromJSON text: String?) -> [String: String]? {
        guard let text else { return nil }
        guard text != "{}" else { return [:] }
        let members = JSONScanner.members(of: text) ?? []
        return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    // MARK: Writing

    /// Makes recipe `id`'s details and kept properties these, writing only the columns that differ; whether any did.
    static func writeDetails(_ details: RecipeDetails, _ received: ReceivedProperties, to id: Int64, _ db: Database) throws -> Bool {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(detailColumns) FROM recipes WHERE id = ?"), arguments: [id])
        guard let row else { throw StoreError(.unknownRecipe(id: id)) }
        let columns = detailTextColumns.map(\.column) + detailListColumns.map(\.column)
            + ["nutrition", "other_properties", "property_forms"]
        var changed = false
        for (index, value) in values(of: details, received).enumerated() where (row[index] as String?) != value {
            try db.cachedStatement(sql: "UPDATE recipes SET \(columns[index]) = ? WHERE id = ?").execute(arguments: [value, id])
            // The forms say how the properties were written, not what they say: a change of them alone is none.
            if columns[index] != "property_forms" { changed = true }
        }
        return changed
    }

    /// Makes recipe `id`'s steps read `steps` (text and section), writing only the places that differ; whether
    /// anything changed.
    static func replaceSteps(of id: Int64, with steps: [Step], _ db: Database) throws -> Bool {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT id, position, text, section FROM steps WHERE recipe_id = ? ORDER BY position, id"),
            arguments: [id])
        var changed = false
        for (index, row) in rows.enumerated() {
            if index < steps.count {
                guard (row[2] as String) != steps[index].text || (row[3] as String) != steps[index].section else { continue }
                try db.cachedStatement(sql: "UPDATE steps SET text = ?, section = ? WHERE id = ?")
                    .execute(arguments: [steps[index].text, steps[index].section, row[0] as Int64])
            } else {
                try db.cachedStatement(sql: "DELETE FROM steps WHERE id = ?").execute(arguments: [row[0] as Int64])
            }
            changed = true
        }
        let lastPosition: Int64 = rows.last?[1] ?? 0
        for (offset, step) in steps.dropFirst(rows.count).enumerated() {
            try db.cachedStatement(sql: "INSERT INTO steps (recipe_id, position, text, section) VALUES (?, ?, ?, ?)")
                .execute(arguments: [id, lastPosition + Int64(offset) + 1, step.text, step.section])
            changed = true
        }
        return changed
    }

    /// The steps of recipe `id`, in order.
    static func fetchSteps(_ id: Int64, _ db: Database) throws -> [Step] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT text, section FROM steps WHERE recipe_id = ? ORDER BY position"), arguments: [id]
        ).map { Step(text: $0[0], section: $0[1]) }
    }

    /// The recipes (not deleted) that came from Paprika, by the `uid` kept in their `paprika` property, each uid's ids
    /// in id order: the recipes a Paprika export imported again updates. One reading of the recipes for a whole
    /// export (the uid is inside a JSON text no index reaches).
    public func recipeIDsByPaprikaUID() throws(StoreError) -> [String: [Int64]] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, uid FROM (
                    SELECT id, CASE WHEN json_valid(other_properties)
                        THEN json_extract(other_properties, '$.paprika.uid') END AS uid
                    FROM recipes WHERE deleted = 0 AND other_properties LIKE '%"paprika"%')
                WHERE uid IS NOT NULL AND uid != '' ORDER BY id
                """)
            var ids: [String: [Int64]] = [:]
            for row in rows { ids[row["uid"] as String, default: []].append(row["id"]) }
            return ids
        }
    }

    /// The ids of the recipes (not deleted) whose `url` is `url`, in id order: the recipes a page imported again
    /// updates.
    public func recipeIDs(withURL url: String) throws(StoreError) -> [Int64] {
        guard !url.isEmpty else { return [] }
        return try read { db in
            try Int64.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM recipes WHERE url = ? AND url != '' AND deleted = 0 ORDER BY id"),
                arguments: [url])
        }
    }
}
