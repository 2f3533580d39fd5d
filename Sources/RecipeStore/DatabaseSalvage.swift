import Foundation
import GRDB

/// A recipe `recipes doctor` copied out of a damaged database.
public struct SalvagedRecipe: Sendable, Equatable {
    /// Its local id, kept in the new database.
    public var id: Int64
    /// Its title.
    public var title: String
    /// The tables whose rows for this recipe could not all be read (e.g. `ingredients`); empty when whole.
    public var unreadableParts: [String]
}

/// A recipe `recipes doctor` could not read at all.
public struct LostRecipe: Sendable, Equatable {
    /// Its local id.
    public var id: Int64
    /// Its UUID, when an index still names it.
    public var uuid: String?
}

/// What one salvage copied: the recipes it saved, those it could not, and the other tables' rows.
struct SalvageResult: Sendable, Equatable {
    var saved: [SalvagedRecipe] = []
    var lost: [LostRecipe] = []
    /// Tables other than `recipes` and its parts whose rows could not all be read.
    var unreadableTables: [String] = []
}

/// Copies every readable row of a damaged recipes database into a new one with the same migrations: each recipe
/// read on its own (by id, so that a damaged page costs only the recipes stored on it), then its parts (rows of
/// every table with a `recipe_id` column), then the rows of any other table that can be read.
///
/// A recipe some of whose parts could not be read is saved with what could, and marked `failed` with a message
/// saying which, so that no sync sends it until a person has looked at it.
struct DatabaseSalvage {
    /// The damaged database, opened read-only.
    let source: DatabaseQueue
    /// The new database, written by the salvage.
    let target: DatabaseQueue
    /// The migrations the damaged database has applied, in order (the new one gets the same).
    let migrations: [Migration]

    /// The largest id range probed one by one when only `sqlite_sequence` says how far ids went.
    static let sequenceProbeLimit: Int64 = 1_000_000

    /// Runs the salvage in one transaction of the new database; throws only when that cannot be written.
    func run() throws -> SalvageResult {
        try target.inDatabase { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")  // parts may arrive before, or without, what they refer to
            var result = SalvageResult()
            try db.inTransaction {
                result = try copy(into: db)
                return .commit
            }
            return result
        }
    }

    /// The salvage's body, inside the new database's transaction.
    private func copy(into db: Database) throws -> SalvageResult {
        try db.execute(sql: "CREATE TABLE schema_migrations (identifier TEXT PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)")
        for migration in migrations {
            try db.execute(sql: migration.sql)
            try db.execute(sql: "INSERT INTO schema_migrations (identifier, applied_at) VALUES (?, ?)",
                arguments: [migration.identifier, Date().timeIntervalSince1970])
        }
        // A virtual table (the search index), its shadow tables and its stale marks are not copied: the new
        // database's triggers build its index from the rows copied.
        let tables = (try? source.read { db in
            try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master AS t WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name NOT IN ('schema_migrations', 'recipes', 'recipe_search_stale')
                    AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL TABLE%'
                    AND NOT EXISTS (SELECT 1 FROM sqlite_master AS v WHERE v.type = 'table'
                        AND v.sql LIKE 'CREATE VIRTUAL TABLE%' AND t.name LIKE v.name || '\\_%' ESCAPE '\\')
                ORDER BY name
                """)
        }) ?? []
        let parts = tables.filter { columns(of: $0).contains("recipe_id") }
        var result = SalvageResult()
        let (uuids, indexIsWhole) = readableUUIDs()
        for id in candidateIDs(knownUUIDs: uuids) {
            guard let found = readRow(sql: "SELECT * FROM recipes WHERE id = ?", id: id) else {
                // An unreadable id the whole index does not name belonged to no recipe (one deleted long ago).
                if !indexIsWhole || uuids[id] != nil { result.lost.append(LostRecipe(id: id, uuid: uuids[id])) }
                continue
            }
            guard let row = found else { continue }  // no recipe has this id
            try insert(row, into: "recipes", db)
            var unreadable: [String] = []
            for table in parts {
                let (rows, complete) = readRows(sql: "SELECT * FROM \(quoted(table)) WHERE recipe_id = ?", arguments: [id])
                for part in rows { try insert(part, into: table, db) }
                if !complete { unreadable.append(table) }
            }
            if !unreadable.isEmpty { try markIncomplete(id, unreadable, db) }
            result.saved.append(SalvagedRecipe(id: id, title: (row["title"] as String?) ?? "", unreadableParts: unreadable))
        }
        for table in tables where !parts.contains(table) {
            let (rows, complete) = readRows(sql: "SELECT * FROM \(quoted(table))", arguments: [])
            for row in rows { try insert(row, into: table, db) }
            if !complete { result.unreadableTables.append(table) }
        }
        try finish(savedIDs: result.saved.map(\.id), db)
        return result
    }

    /// Every id a recipe may have had: those a scan of the table (from either end) or of the UUID index reaches
    /// before a damaged page, and every id up to the highest `AUTOINCREMENT` gave out, when that is readable.
    func candidateIDs(knownUUIDs: [Int64: String]) -> [Int64] {
        var ids = Set(knownUUIDs.keys)
        ids.formUnion(readIDs(sql: "SELECT id FROM recipes ORDER BY id"))
        ids.formUnion(readIDs(sql: "SELECT id FROM recipes ORDER BY id DESC"))
        let sequence = (try? source.read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'recipes'")
        }) ?? nil
        if let sequence, sequence > 0, sequence <= Self.sequenceProbeLimit { ids.formUnion(1...sequence) }
        return ids.sorted()
    }

    /// The UUID of each recipe id, as far as the `uuid` column's unique index can be read (without the table), and
    /// whether all of it could.
    func readableUUIDs() -> (uuids: [Int64: String], whole: Bool) {
        var uuids: [Int64: String] = [:]
        do {
            try source.read { db in
                let index = try String.fetchOne(db, sql: """
                    SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'recipes' AND sql IS NULL
                    """)
                guard let index else { throw DatabaseError(resultCode: .SQLITE_NOTFOUND) }
                let rows = try Row.fetchCursor(db, sql: "SELECT id, uuid FROM recipes INDEXED BY \(quoted(index))")
                while let row = try rows.next() { uuids[row[0]] = row[1] }
            }
            return (uuids, true)
        } catch {
            return (uuids, false)
        }
    }

    /// The ids a query returns until it meets a damaged page.
    func readIDs(sql: String) -> [Int64] {
        var ids: [Int64] = []
        try? source.read { db in
            let cursor = try Int64.fetchCursor(db, sql: sql)
            while let id = try cursor.next() { ids.append(id) }
        }
        return ids
    }

    /// The one row `sql` selects for `id`: `.some(nil)` when there is none, nil when it cannot be read.
    func readRow(sql: String, id: Int64) -> Row?? {
        do {
            return .some(try source.read { db in try Row.fetchOne(db, sql: sql, arguments: [id]) })
        } catch {
            return nil
        }
    }

    /// The rows `sql` returns until it meets a damaged page, and whether it returned them all.
    func readRows(sql: String, arguments: StatementArguments) -> (rows: [Row], complete: Bool) {
        var rows: [Row] = []
        do {
            try source.read { db in
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                while let row = try cursor.next() { rows.append(row.copy()) }
            }
            return (rows, true)
        } catch {
            return (rows, false)
        }
    }

    /// The column names of `table` in the damaged database (read from its schema).
    func columns(of table: String) -> [String] {
        (try? source.read { db in try db.columns(in: table).map(\.name) }) ?? []
    }

    /// Inserts `row` into `table` of the new database, column for column.
    func insert(_ row: Row, into table: String, _ db: Database) throws {
        let names = Array(row.columnNames)
        let sql = "INSERT OR IGNORE INTO \(quoted(table)) (\(names.map(quoted).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(names.map { row[$0] as DatabaseValue }))
    }

    /// Marks a recipe saved without some of its parts `failed`, saying which, so that no sync sends it unchecked.
    func markIncomplete(_ id: Int64, _ tables: [String], _ db: Database) throws {
        let message = "recipes doctor could not read all of its \(tables.joined(separator: " and ")) from the damaged "
            + "database; check it, then run `recipes sync \(id)`"
        try db.execute(
            sql: "UPDATE recipes SET state = 'failed', next_attempt_at = NULL, last_error = ? WHERE id = ?",
            arguments: [message, id])
    }

    /// Releases every lease (no process uploads from the new file yet), brings the search index up to date with the
    /// parts copied, and keeps `AUTOINCREMENT` past every id the damaged file gave out, so that no id is handed out
    /// twice.
    func finish(savedIDs: [Int64], _ db: Database) throws {
        let sequence = (try? source.read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'recipes'")
        }) ?? nil
        let highest = max(sequence ?? 0, savedIDs.max() ?? 0)
        try db.execute(sql: "UPDATE recipes SET lease_owner = NULL, lease_expires_at = NULL, cancel_requested = 0")
        if try db.tableExists("recipe_search_stale") { try RecipeStore.refreshSearch(db) }
        try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'recipes'")
        if highest > 0 {
            try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('recipes', ?)", arguments: [highest])
        }
    }

    /// `name` as a quoted SQL identifier.
    func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
