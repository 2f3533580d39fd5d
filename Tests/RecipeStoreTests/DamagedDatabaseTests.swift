import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeStore

@Suite("A damaged database: reading writes nothing, a change that meets the damage is rolled back, nothing is written after")
struct DamagedDatabaseTests {
    static let count = 240

    /// A home of `count` recipes with a few pages in the middle of its database overwritten; its bytes and how each
    /// recipe reads.
    func damagedHome() throws -> (dir: TemporaryDirectory, bytes: Data, map: DamageMap) {
        let dir = TemporaryDirectory()
        try fillHome(dir.home, count: Self.count)
        let bytes = try damageMiddlePages(ofDatabaseAt: dir.home.databaseURL.path)
        let map = try DamageMap(home: dir.home, count: Self.count)
        #expect(!map.rowUnreadable.isEmpty, "\(map)")
        try #require(!map.whole.isEmpty && !map.partsUnreadable.isEmpty, "\(map)")  // the tests read the first of each
        return (dir, bytes, map)
    }

    func isDamage(_ error: any Error, changeDiscarded: Bool) -> Bool {
        guard case .corruptDatabase(_, _, let discarded) = (error as? StoreError)?.kind else { return false }
        return discarded == changeDiscarded
    }

    @Test("a read-only store reads what it can and leaves the damaged file byte for byte")
    func readOnlyStoreWritesNothing() throws {
        let (dir, bytes, map) = try damagedHome()
        let path = dir.home.databaseURL.path
        do {
            let store = try RecipeStore(home: dir.home, access: .readOnly)
            #expect(try store.recipe(id: map.whole[0]).title == "Recipe \(map.whole[0])")
            #expect { try store.recipes() } throws: { isDamage($0, changeDiscarded: false) }
            #expect(store.isDamaged)
        }
        #expect(fileBytes(path) == bytes)
    }

    @Test("a change whose recipe cannot be read back is rolled back; after it, every change is refused and the file is left byte for byte")
    func changeMeetingDamageIsRolledBack() throws {
        let (dir, bytes, map) = try damagedHome()
        let path = dir.home.databaseURL.path
        let victim = map.partsUnreadable[0], healthy = map.whole[0]
        do {
            let store = try RecipeStore(home: dir.home)
            #expect { try store.apply(.title("New"), to: victim) } throws: { isDamage($0, changeDiscarded: true) }
            #expect { try store.apply(.title("New"), to: healthy) } throws: { isDamage($0, changeDiscarded: true) }
            #expect { try store.create(title: "Another") } throws: { isDamage($0, changeDiscarded: true) }
            let message = StoreError(.corruptDatabase(path: path, detail: "x", changeDiscarded: true)).errorDescription ?? ""
            #expect(message == "\(path) is damaged (x); this change was not saved, and recipes writes nothing more to it: "
                + "run `recipes doctor` to check it and save every readable recipe into a new database")
        }
        #expect(fileBytes(path) == bytes, "closing did not checkpoint into the damaged file")
        let reader = try RecipeStore(home: dir.home, access: .readOnly)
        let rows = try reader.recipes(ids: [victim, healthy])
        #expect(rows.map(\.title) == ["Recipe \(victim)", "Recipe \(healthy)"])
        #expect(rows.map(\.sync.revision) == [3, 3])
    }

    @Test("a read-only store of a healthy home changes no byte and leaves no -wal or -shm file; of a missing home creates nothing")
    func readOnlyStoreLeavesNothing() throws {
        let dir = TemporaryDirectory()
        try fillHome(dir.home, count: 3)
        let path = dir.home.databaseURL.path
        let before = try #require(fileBytes(path))
        let listing = Set(try FileManager.default.contentsOfDirectory(atPath: dir.home.url.path))
        do {
            let store = try RecipeStore(home: dir.home, access: .readOnly)
            #expect(try store.recipes().count == 3)
            #expect { try store.create(title: "No") } throws: { _ in true }
        }
        #expect(fileBytes(path) == before)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.home.url.path)) == listing)

        let empty = TemporaryDirectory()
        #expect(try RecipeStore(home: empty.home, access: .readOnly).recipes().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: empty.home.url.path))
    }

    @Test("a read-only store of a database that lacks a migration applies it first (a reading command's one write), then reads")
    func readOnlyStoreUpgrades() throws {
        let dir = TemporaryDirectory()
        do { _ = try RecipeStore(home: dir.home, migrations: Array(Migration.embedded.dropLast())) }
        let queue = try DatabaseQueue(path: dir.home.databaseURL.path)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO recipes (uuid, title, revision, state, created_at, updated_at)
                VALUES ('0f8fad5b-d9cb-469f-a165-70867728950e', 'Old', 1, 'pending', 0, 0)
                """)
        }
        try queue.close()
        let store = try RecipeStore(home: dir.home, access: .readOnly)
        #expect(try store.recipes().map(\.title) == ["Old"])
        #expect(try store.appliedMigrations() == Migration.embedded.map(\.identifier))
    }

    @Test("a read-only store reads a database it may not write whose folder it may not write (immutable open)")
    func immutableOpen() throws {
        let dir = TemporaryDirectory()
        try fillHome(dir.home, count: 2)
        // As root every folder can be written, so the fallback is asked for directly: the same open `init` uses
        // when SQLite cannot create the -shm file.
        let path = dir.home.databaseURL.path
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        let queue = try DatabaseQueue(
            path: "file:\(encoded)?immutable=1", configuration: RecipeStore.connectionConfiguration(readonly: true))
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recipes") } == 2)
        try queue.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"), "an immutable open makes no -shm file")
    }

    @Test("doctor: a healthy database is reported healthy and left byte for byte")
    func doctorHealthy() throws {
        let dir = TemporaryDirectory()
        try fillHome(dir.home, count: 5)
        let path = dir.home.databaseURL.path
        let before = try #require(fileBytes(path))
        #expect(try DatabaseDoctor.examine(home: dir.home).verdict == .healthy(recipes: 5))
        #expect(fileBytes(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.home.url.path).filter { $0.contains(".sqlite3.") }.isEmpty)
        #expect(try DatabaseDoctor.examine(home: TemporaryDirectory().home).verdict == .noDatabase)
    }

    @Test("doctor: a damaged database is salvaged into a new one that takes its place; the damaged file is kept byte for byte; it says what it saved and what not")
    func doctorSalvages() throws {
        let (dir, bytes, map) = try damagedHome()
        let path = dir.home.databaseURL.path
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let report = try DatabaseDoctor.examine(home: dir.home, now: now)
        #expect(report.verdict == .damaged)
        #expect(!report.problems.isEmpty && report.problems != ["ok"])
        #expect(report.saved.map(\.id) == (map.whole + map.partsUnreadable).sorted())
        #expect(report.saved.filter { !$0.unreadableParts.isEmpty }.map(\.id) == map.partsUnreadable)
        #expect(report.lost.map(\.id) == map.rowUnreadable)
        let kept = path + ".damaged-20270115-080000"
        #expect(report.keptDamagedPath == kept)
        #expect(report.salvagedPath == path + ".salvaged-20270115-080000")
        #expect(fileBytes(kept) == bytes, "the damaged file is kept as it was")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "its -wal went with it, not to the new file")

        // The new database is a recipes database with everything that was readable.
        let store = try RecipeStore(home: dir.home)
        #expect(try store.recipes().map(\.id) == report.saved.map(\.id))
        let whole = try store.recipe(id: map.whole[0])
        #expect(whole.title == "Recipe \(map.whole[0])")
        #expect(whole.ingredients.map(\.text) == ["ingredient \(map.whole[0]) " + String(repeating: "x", count: 200)])
        #expect(whole.steps.count == 1 && whole.sync.revision == 3 && whole.sync.syncedRevision == 2)
        #expect(whole.sync.state == .pending)
        let partial = try store.recipe(id: map.partsUnreadable[0])
        #expect(partial.sync.state == .failed)
        #expect(partial.sync.lastError?.contains("recipes doctor could not read all of its") == true)
        #expect(try store.create(title: "New").id > Int64(Self.count), "no id is handed out twice")
        #expect(try DatabaseDoctor.examine(home: dir.home).verdict == .healthy(recipes: report.saved.count + 1))
    }

    @Test("doctor leaves the salvaged database beside a damaged one another process has open, and says why")
    func doctorWhileInUse() throws {
        let (dir, bytes, _) = try damagedHome()
        let path = dir.home.databaseURL.path
        // Another process (python3's sqlite3) holding a connection, as a sync cron started would.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", """
            import sqlite3, sys
            connection = sqlite3.connect(sys.argv[1])
            connection.execute("SELECT count(*) FROM sqlite_master").fetchall()
            print("open", flush=True)
            sys.stdin.read()
            """, path]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        var said = ""  // read up to its line: the connection is open and holds SQLite's locks
        while !said.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        #expect(said == "open\n")

        let report = try DatabaseDoctor.examine(home: dir.home)
        #expect(report.verdict == .damaged)
        #expect(report.keptDamagedPath == nil)
        #expect(report.notSwappedBecause == "another process (a sync started by cron?) has the damaged database open")
        #expect(fileBytes(path) == bytes)
        #expect(FileManager.default.fileExists(atPath: try #require(report.salvagedPath)))
    }
}
