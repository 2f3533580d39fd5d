import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeStore

@Suite("Migrations and the refusal of databases this binary cannot use")
struct MigrationTests {
    @Test("the embedded migrations are exactly the repository's migrations/ folder, in order")
    func embeddedEqualsFolder() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        let names: [String] = files.map { String($0.dropLast(4)) }
        #expect(names == Migration.embedded.map(\.identifier))
        for (file, migration) in zip(files, Migration.embedded) {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let normalized = text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
                .joined(separator: "\n").trimmingCharacters(in: .newlines)
            #expect(normalized == migration.sql, "run `make migrations`: \(file) differs from the embedded copy")
        }
    }

    @Test("a new home gets every migration once, and reopening applies nothing again")
    func appliesOnce() throws {
        let dir = TemporaryDirectory()
        let first = try RecipeStore(home: dir.home)
        #expect(try first.appliedMigrations() == Migration.embedded.map(\.identifier))
        let second = try RecipeStore(home: dir.home)
        #expect(try second.appliedMigrations() == Migration.embedded.map(\.identifier))
    }

    @Test("the database is in WAL mode with foreign keys on, so several processes can share it")
    func walMode() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let (journal, foreignKeys) = try store.pool.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA foreign_keys"))
        }
        #expect(journal == "wal")
        #expect(foreignKeys == 1)
    }

    @Test("commits are durable: the writer runs durable transactions with synchronous = FULL (2), not the NORMAL GRDB sets for WAL")
    func writerIsFullySynchronous() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let level = try store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(level == 2)
        // Every transaction that waits for the disk runs at FULL, also right after ones that do not (NORMAL), and
        // after one of those failed.
        let relaxed = try store.write(waitForDisk: false) { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(relaxed == 1)
        _ = try? store.write(waitForDisk: false) { db in try db.execute(sql: "INSERT INTO no_such_table VALUES (1)") }
        let durable = try store.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(durable == 2)
        _ = try store.write(waitForDisk: false) { db in try db.execute(sql: "CREATE TABLE scratch (x)") }
        _ = try store.write(waitForDisk: false) { db in try db.execute(sql: "INSERT INTO scratch VALUES (1)") }
        let durableAgain = try store.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(durableAgain == 2)
    }

    @Test("migrations apply in order, each in its own transaction with its bookkeeping row")
    func failedMigrationLeavesEarlierOnes() throws {
        let dir = TemporaryDirectory()
        let migrations = [
            Migration(identifier: "0001_a", sql: "CREATE TABLE a (x);"),
            Migration(identifier: "0002_b", sql: "CREATE TABLE b (x); INSERT INTO nowhere VALUES (1);"),
        ]
        #expect(throws: StoreError.self) { try RecipeStore(home: dir.home, migrations: migrations) }
        let queue = try DatabaseQueue(path: dir.home.databaseURL.path)
        let (applied, hasA, hasB) = try queue.read { db in
            (try String.fetchAll(db, sql: "SELECT identifier FROM schema_migrations"),
             try db.tableExists("a"), try db.tableExists("b"))
        }
        #expect(applied == ["0001_a"])
        #expect(hasA)
        #expect(!hasB, "the failed migration's table was rolled back with it")
    }

    @Test("a database migrated by a newer version is refused and left byte-for-byte untouched")
    func refusesNewerDatabase() throws {
        let dir = TemporaryDirectory()
        do {
            let store = try RecipeStore(home: dir.home)
            _ = try store.create(title: "Soup")
        }
        let path = dir.home.databaseURL.path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO schema_migrations VALUES ('9999_from_the_future', 0)")
        }
        try queue.close()
        let before = try #require(fileBytes(path))
        #expect {
            try RecipeStore(home: dir.home)
        } throws: { error in
            guard case .newerDatabase(_, let unknown) = (error as? StoreError)?.kind else { return false }
            return unknown == ["9999_from_the_future"]
        }
        #expect(fileBytes(path) == before)
        let message = StoreError(.newerDatabase(path: path, unknownMigrations: ["9999_x"])).errorDescription ?? ""
        #expect(message.contains("newer version") && message.contains("untouched"))
    }

    @Test("a file that is not SQLite is refused and left untouched, and its folder gains no recipes folders")
    func refusesNonSQLite() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(at: dir.home.url, withIntermediateDirectories: true)
        let path = dir.home.databaseURL.path
        let text = Data("these are my notes, not a database\n".utf8)
        _ = FileManager.default.createFile(atPath: path, contents: text)
        #expect {
            try RecipeStore(home: dir.home)
        } throws: { error in
            if case .notADatabase = (error as? StoreError)?.kind { return true }
            return false
        }
        #expect(fileBytes(path) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.home.url.path) == ["recipes.sqlite3"])
    }

    @Test("a SQLite database recipes did not create is refused and left untouched")
    func refusesForeignDatabase() throws {
        let dir = TemporaryDirectory()
        try dir.home.createDirectories()
        let path = dir.home.databaseURL.path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE accounts (id INTEGER)") }
        try queue.close()
        let before = try #require(fileBytes(path))
        #expect {
            try RecipeStore(home: dir.home)
        } throws: { error in
            if case .foreignDatabase = (error as? StoreError)?.kind { return true }
            return false
        }
        #expect(fileBytes(path) == before)
    }

    @Test("a damaged database is refused with a clear error and left untouched")
    func refusesCorruptDatabase() throws {
        let dir = TemporaryDirectory()
        do { _ = try RecipeStore(home: dir.home).create(title: "Soup") }
        let path = dir.home.databaseURL.path
        var bytes = try #require(fileBytes(path))
        for index in 100..<min(bytes.count, 4096) { bytes[index] = 0xA5 }
        _ = FileManager.default.createFile(atPath: path, contents: bytes)
        #expect(throws: StoreError.self) { try RecipeStore(home: dir.home) }
        #expect(fileBytes(path) == bytes)
    }
}
