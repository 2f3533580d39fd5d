import Foundation
import GRDB
import Locking
import RecipeModels

/// The local store of recipe drafts: one SQLite database in WAL mode, shared safely by several processes.
///
/// Opening checks the file before writing anything: a file that is not SQLite, a SQLite database recipes did not
/// create, or one migrated by a newer version is refused and left byte-for-byte untouched. Then the embedded
/// migrations are applied in order, each once, each in one `BEGIN IMMEDIATE` transaction with its bookkeeping row.
///
/// A store opened `.readOnly` (what `list`, `show` and `status` use) never writes to the database file (see
/// `init`). Once SQLite reports the file damaged, a store writes nothing more to it: every later change is refused,
/// and the WAL is not checkpointed into it when the store closes.
public final class RecipeStore: Sendable {
    /// How a store may use the database file.
    public enum Access: Sendable, Equatable {
        /// Reads and writes (edits, syncs, cancels): the home's folders are created, migrations applied.
        case readWrite
        /// Reads only: nothing is created or written (see `init`).
        case readOnly
    }

    /// The home the store belongs to.
    public let home: RecipesHome
    /// The database connections: GRDB's pool (one writer, concurrent readers, WAL), or for a read-only store one
    /// read-only connection (an empty in-memory database when the home has none yet).
    let pool: any DatabaseWriter
    /// The local image copies.
    public let media: MediaLibrary
    /// The images of synced recipes.
    public let images: ImageLibrary
    /// The clock edits are stamped with.
    let now: @Sendable () -> Date
    /// How this store uses the database file.
    public let access: Access
    /// Whether the writer connection is at `synchronous = FULL` (else NORMAL); read and changed only on the writer's
    /// connection, inside GRDB's serialized writer access (the lock adds nothing there but is cheap).
    private let writerWaitsForDisk = Locked(true)
    /// What SQLite said when it found the file damaged, once it did: from then on nothing more is written.
    private let damage = Locked<String?>(nil)
    /// Whether the read-only connection created the `-wal` and `-shm` files it needs (removed again when it closes).
    private let createdWALFiles: Bool
    /// Whether the schema has the search index's stale marks (migration 0007), which every change clears before it
    /// commits (`refreshSearch`); false only for a store opened with an older list of migrations (tests of upgrades).
    private let refreshesSearch: Bool
    /// Whether the schema keeps each recipe's revisions (migration 0010), which every change records before it commits
    /// (`recordHistory`).
    private let recordsHistory: Bool

    /// How long a statement waits for another process's write lock before failing.
    public static let busyTimeout: TimeInterval = 10

    /// Opens the store of `home`: `.readWrite` creates the home, its folders and the database when missing and
    /// applies `migrations`; `.readOnly` creates and writes nothing.
    ///
    /// Read-only: a home without a database reads as empty; the connection is opened read-only (SQLite's `-wal` and
    /// `-shm` files, which it needs beside the database, are removed again when the store closes if it created
    /// them); in a folder that cannot be written, where SQLite cannot create those files, the database is read as
    /// an immutable file. A database that lacks a migration this binary has is migrated first, through a read-write
    /// open: the one write a reading command makes, once, after an upgrade.
    public init(
        home: RecipesHome, migrations: [Migration] = Migration.embedded,
        now: @escaping @Sendable () -> Date = { Date() }, access: Access = .readWrite
    ) throws(StoreError) {
        let path = home.databaseURL.path
        let known = migrations.map(\.identifier)
        self.home = home
        self.media = MediaLibrary(directory: home.mediaURL)
        self.images = ImageLibrary(directory: home.imagesURL)
        self.now = now
        self.access = access
        self.refreshesSearch = known.contains(Self.searchRefreshMigration)
        self.recordsHistory = known.contains(Self.historyMigration)
        if access == .readOnly {
            // A home that is a file is refused as the read-write open refuses it (reading it as empty would hide it).
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: home.url.path, isDirectory: &isFolder), !isFolder.boolValue {
                throw StoreError(.notAFolder(path: home.url.path))
            }
            let walExisted = FileManager.default.fileExists(atPath: path + "-wal")
            let opened = try Self.preflight(path: path, known: known, keepOpen: true)
            if let queue = opened.queue, opened.applied == known {
                pool = queue
                createdWALFiles = !walExisted && FileManager.default.fileExists(atPath: path + "-wal")
                return
            }
            try? opened.queue?.close()
            if opened.applied.isEmpty {
                // No recipes database yet: an empty one in memory, so that reading commands create nothing.
                do { pool = try DatabaseQueue(configuration: Self.connectionConfiguration()) } catch {
                    throw Self.translate(error, path: path)
                }
                createdWALFiles = false
                try migrate(migrations)
                return
            }
            _ = try RecipeStore(home: home, migrations: migrations, now: now, access: .readWrite)  // the upgrade
            let upgraded = try Self.preflight(path: path, known: known, keepOpen: true)
            guard let queue = upgraded.queue else { throw StoreError(.cannotOpen(path: path, detail: "it disappeared")) }
            pool = queue
            createdWALFiles = false
            return
        }
        let applied = try Self.preflight(path: path, known: known).applied
        try home.createDirectories()  // after the check: a refused home is left as it was, without new folders
        createdWALFiles = false
        do {
            pool = try Self.openPool(path: path)
            // Every commit reaches the disk before it returns, so an edit the user saw succeed survives a power
            // cut. Set on the writer after the pool is open: GRDB turns WAL connections to NORMAL while opening
            // them, after `prepareDatabase` has run, and NORMAL may lose the last commits on a power cut.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw Self.translate(error, path: path)
        }
        // Only a home that lacks a migration takes the write lock; everyday commands open it read-mostly.
        if applied != known { try migrate(migrations) }
    }

    /// GRDB's pool for the database at `path`.
    ///
    /// Opening it, GRDB looks at the `-wal` file's size after checking that it exists (to make sure a non-empty WAL
    /// exists); another process that closes the database as its last user removes that file, and in between the
    /// look fails with Foundation's "no such file". The open is tried again then: the WAL is simply made anew.
    private static func openPool(path: String) throws -> DatabasePool {
        var attempts = 1
        while true {
            do {
                return try DatabasePool(path: path, configuration: connectionConfiguration())
            } catch let error as CocoaError where error.code == .fileReadNoSuchFile && attempts < 5 {
                attempts += 1
            }
        }
    }

    deinit {
        // A read-only connection cannot remove the `-wal` and `-shm` files it made SQLite create; a read-write one
        // opened and closed after it does, as the last connection, when the WAL is still empty (nothing to copy
        // into the database) and no damage was seen. Another process's open connection keeps them, as it should.
        guard createdWALFiles, let queue = pool as? DatabaseQueue else { return }
        try? queue.close()
        let path = home.databaseURL.path
        guard damage.withLock({ $0 == nil }),
            let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int, size == 0,
            let cleaner = try? DatabaseQueue(path: path, configuration: Self.connectionConfiguration())
        else { return }
        try? cleaner.close()
    }

    /// The identifiers of the migrations recorded in the database, in the order they were applied.
    public func appliedMigrations() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT identifier FROM schema_migrations ORDER BY rowid") }
    }

    /// Applies every migration not yet recorded, each in one immediate transaction with its bookkeeping row.
    ///
    /// The check happens inside the transaction, so two processes opening a new home at once apply each step once.
    func migrate(_ migrations: [Migration]) throws(StoreError) {
        let known = migrations.map(\.identifier)
        try refuseIfDamaged()
        do {
            try pool.writeWithoutTransaction { db in
                try setWaitsForDisk(true, db)
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        identifier TEXT PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)
                    """)
                for migration in migrations {
                    try db.inTransaction(.immediate) {
                        let applied = try String.fetchSet(db, sql: "SELECT identifier FROM schema_migrations")
                        if let unknown = applied.first(where: { !known.contains($0) }) {
                            throw StoreError(.newerDatabase(path: home.databaseURL.path, unknownMigrations: [unknown]))
                        }
                        if applied.contains(migration.identifier) { return .commit }
                        try db.execute(sql: migration.sql)
                        if migration.identifier == Self.historyMigration { try Self.seedHistory(db, now: now()) }
                        if try db.tableExists("recipe_history_due") { try Self.recordHistory(db, now: now()) }
                        if try db.tableExists("recipe_search_stale") { try Self.refreshSearch(db) }
                        try db.execute(
                            sql: "INSERT INTO schema_migrations (identifier, applied_at) VALUES (?, ?)",
                            arguments: [migration.identifier, now().timeIntervalSince1970])
                        return .commit
                    }
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw failure(error, inChange: true)
        }
    }

    // MARK: Access

    /// Whether SQLite reported the database file damaged to this store (which then writes nothing more to it).
    public var isDamaged: Bool { damage.withLock { $0 != nil } }

    /// Runs `body` in a read transaction, translating SQLite errors.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw failure(error, inChange: false)
        }
    }

    /// Runs `body` on the writer's connection outside any transaction, each statement seeing the latest commit: for a
    /// one-row check on the hot path of a sync, where a pooled read (a reader connection, `BEGIN`, `COMMIT`) cost
    /// about as much as a write. Reads only: the connection may be at `synchronous = NORMAL` (see `write`).
    func peek<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.writeWithoutTransaction(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw failure(error, inChange: false)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction, committed when it returns and rolled back when it throws;
    /// the search index and the history take the transaction's changes just before the commit (`refreshSearch`,
    /// `recordHistory`).
    ///
    /// The commit is on disk when this returns, unless `waitForDisk` is false: then it is written to the WAL without
    /// a sync (`synchronous = NORMAL` for this one transaction), and reaches the disk with the next synced commit or
    /// checkpoint. Only for bookkeeping that a power cut may lose without harm (see `finishChains`). Refused without
    /// touching the file once it was found damaged, and on a read-only store.
    func write<T>(waitForDisk: Bool = true, _ body: (Database) throws -> T) throws(StoreError) -> T {
        try refuseIfDamaged()
        guard access == .readWrite else {
            throw StoreError(.database(detail: "this command opened the database read-only and cannot change it"))
        }
        do {
            return try pool.writeWithoutTransaction { db in
                try setWaitsForDisk(waitForDisk, db)
                // Cached statements: compiling BEGIN and COMMIT anew for every transaction was a twentieth of a
                // 1,000-recipe sync's CPU.
                try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
                do {
                    let result = try body(db)
                    if recordsHistory { try Self.recordHistory(db, now: now()) }
                    if refreshesSearch { try Self.refreshSearch(db) }
                    try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                    return result
                } catch {
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                    throw error
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw failure(error, inChange: true)
        }
    }

    /// Puts the writer connection at `synchronous = FULL` (`waitForDisk`) or NORMAL, running the pragma only when
    /// it is at the other level: SQLite compiles a pragma anew on every run, and setting NORMAL before and FULL after
    /// each chain's end was a fortieth of a 1,000-recipe sync's CPU. A sync switches only around its claims.
    /// Called on the writer's connection, outside a transaction (SQLite refuses the change inside one).
    private func setWaitsForDisk(_ waitForDisk: Bool, _ db: Database) throws {
        try writerWaitsForDisk.withLock { current in
            guard current != waitForDisk else { return }
            try db.execute(sql: waitForDisk ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            current = waitForDisk
        }
    }

    // MARK: Damage

    /// Throws the damage found earlier, without touching the file: a change after it is refused.
    private func refuseIfDamaged() throws(StoreError) {
        guard let detail = damage.withLock({ $0 }) else { return }
        throw StoreError(.corruptDatabase(path: home.databaseURL.path, detail: detail, changeDiscarded: true))
    }

    /// The store error for `error`, met reading or inside a change (`inChange`: rolled back); when SQLite found the
    /// file damaged, this store stops writing to it first.
    private func failure(_ error: any Error, inChange: Bool) -> StoreError {
        let translated = Self.translate(error, path: home.databaseURL.path, inChange: inChange)
        if case .corruptDatabase(_, let detail, _) = translated.kind { stopWriting(detail) }
        return translated
    }

    /// Records the damage (later changes are refused) and keeps the writer from checkpointing the WAL into the file
    /// when it closes: what the WAL holds stays beside the file, for `recipes doctor` to read.
    private func stopWriting(_ detail: String) {
        let first = damage.withLock { recorded in
            defer { if recorded == nil { recorded = detail } }
            return recorded == nil
        }
        // A read-only connection cannot checkpoint; the writer of a pool can.
        guard first, pool is DatabasePool else { return }
        pool.writeWithoutTransaction { db in Self.stopCheckpoints(db) }
    }

    /// Turns a GRDB/SQLite error into a store error that says what to do; `inChange` when it was met inside a change,
    /// which was rolled back.
    static func translate(
        _ error: any Error, path: String, inChange: Bool = false, freeBytes: (String) -> Int64? = freeBytes(near:)
    ) -> StoreError {
        if let error = error as? StoreError { return error }
        if let db = error as? DatabaseError {
            if let full = diskFull(db.resultCode, path: path, inChange: inChange, freeBytes: freeBytes) { return full }
            switch db.resultCode {
            case .SQLITE_NOTADB: return StoreError(.notADatabase(path: path))
            case .SQLITE_CORRUPT:
                return StoreError(.corruptDatabase(path: path, detail: db.message ?? "corrupt", changeDiscarded: inChange))
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
                return StoreError(.cannotOpen(path: path, detail: db.message ?? "\(db.resultCode)"))
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return StoreError(.database(detail: "the database stayed locked by another recipes process for over \(Int(busyTimeout)) s; try again"))
            default:
                return StoreError(.database(detail: db.message ?? "\(db.resultCode)"))
            }
        }
        return StoreError(.database(detail: "\(error)"))
    }
}
