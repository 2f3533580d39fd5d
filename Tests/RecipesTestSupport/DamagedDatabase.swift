import Foundation
import GRDB
import RecipeStore

/// Fills `home` (created by a first store open) with `count` recipes, each with one ingredient and one step long
/// enough that the three tables spread over many pages, in one transaction (a store edit per row would wait for the
/// disk a thousand times). Titles are `Recipe <id>`.
public func fillHome(_ home: RecipesHome, count: Int) throws {
    do { _ = try RecipeStore(home: home) }
    let queue = try DatabaseQueue(path: home.databaseURL.path)
    try queue.write { db in
        for number in 1...count {
            try db.execute(
                sql: """
                    INSERT INTO recipes (id, uuid, title, revision, synced_revision, state, created_at, updated_at)
                    VALUES (?, ?, ?, 3, 2, 'pending', 0, 0)
                    """,
                arguments: [number, UUID().uuidString.lowercased(), "Recipe \(number)"])
            try db.execute(sql: "INSERT INTO ingredients (recipe_id, position, text) VALUES (?, 1, ?)",
                           arguments: [number, "ingredient \(number) " + String(repeating: "x", count: 200)])
            try db.execute(sql: "INSERT INTO steps (recipe_id, position, text) VALUES (?, 1, ?)",
                           arguments: [number, "step \(number) " + String(repeating: "y", count: 300)])
        }
    }
    try queue.close()
}

/// Overwrites, with a fixed garbage pattern, a leaf page in the middle of the `recipes` table and `pages - 1` leaf pages
/// in the middle of the `ingredients` table of the SQLite file at `path` (chosen through SQLite's `dbstat`, so that
/// whatever else the file holds — a search index, say — some recipes lose their row and some only their parts), as a
/// failing disk might; returns the file's bytes afterwards.
@discardableResult
public func damageMiddlePages(ofDatabaseAt path: String, pages: Int = 3) throws -> Data {
    let queue = try DatabaseQueue(path: path)
    let leaves = try queue.read { db in
        try Row.fetchAll(db, sql: "SELECT name, pageno FROM dbstat WHERE pagetype = 'leaf' AND name IN ('recipes', 'ingredients') ORDER BY pageno")
    }
    try queue.close()
    func middle(_ table: String, _ count: Int) -> [Int] {
        let numbers: [Int] = leaves.filter { $0["name"] == table }.map { $0["pageno"] }
        let start = max(0, numbers.count / 2 - count / 2)
        return Array(numbers.dropFirst(start).prefix(count))
    }
    let chosen = middle("recipes", 1) + middle("ingredients", max(0, pages - 1))
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    guard bytes.count >= 100 else {  // the header's 100 bytes hold the page size at offset 16
        throw DamageFailure(description: "\(path) has \(bytes.count) bytes, fewer than an SQLite header: there is no database to damage")
    }
    let declared = Int(bytes[16]) << 8 | Int(bytes[17])
    let pageSize = declared == 1 ? 65_536 : declared
    for page in chosen where (page - 1) * pageSize < bytes.count {  // numbered from 1
        for offset in ((page - 1) * pageSize)..<min(bytes.count, page * pageSize) {
            bytes[offset] = UInt8(truncatingIfNeeded: offset &* 31 &+ 0xA5)
        }
    }
    try bytes.write(to: URL(fileURLWithPath: path))
    return bytes
}

/// A database file that was not there to damage as `damageMiddlePages` needs.
public struct DamageFailure: Error, CustomStringConvertible {
    /// What was found instead.
    public var description: String
}

/// How each recipe of a damaged home reads through a read-only store: whole, its row but not its parts, or not at
/// all.
public struct DamageMap {
    public var whole: [Int64] = []
    public var partsUnreadable: [Int64] = []
    public var rowUnreadable: [Int64] = []

    /// Reads ids `1...count` of `home` one by one.
    public init(home: RecipesHome, count: Int) throws {
        let store = try RecipeStore(home: home, access: .readOnly)
        for id in Int64(1)...Int64(count) {
            if (try? store.recipe(id: id)) != nil {
                whole.append(id)
            } else if (try? store.recipes(ids: [id])) != nil {
                partsUnreadable.append(id)
            } else {
                rowUnreadable.append(id)
            }
        }
    }
}
