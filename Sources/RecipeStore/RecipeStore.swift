import Foundation
import GRDB
import Locking
import RecipeModels

/// The local store of recipe drafts: one SQLite database in WAL mode, shared safely by several processes.
///
/// Opening checks the file before writing anything: a file that is not SQLite, a SQLite database recipes did not
/// create, or one migrated by a newer version is refused and left byte-for-byte untouched. Then the embedded
/// migrations are applied in order, each once, each in one `BEGIN IMMEDIATE` transaction with its bookkeeping row.
public final class RecipeStore: Sendable {
    /// The home the store belongs to.
    public let home: RecipesHome
    /// The database connections (GRDB's pool: one writer, concurrent readers, WAL).
    let pool: DatabasePool
    /// The local image copies.
    public let media: MediaLibrary
    /// The clock edits are stamped with.
    let now: @Sendable () -> Date
    /// Whether the writer connection is at `synchronous = FULL` (else NORMAL); read and changed only on the writer's
    /// connection, inside GRDB's serialized writer access (the lock adds nothing there but is cheap).
    private let writerWaitsForDisk = Locked(true)

    /// How long a statement waits for another process's write lock before failing.
    public static let busyTimeout: TimeInterval = 10

    /// Opens (creating when missing) the store of `home`, applying `migrations`.
    public init(
        home: RecipesHome, migrations: [Migration] = Migration.embedded,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(StoreError) {
        let path = home.databaseURL.path
        let applied = try Self.preflight(path: path, known: migrations.map(\.identifier))
        try home.createDirectories()  // after the check: a refused home is left as it was, without new folders
        do {
            pool = try DatabasePool(path: path, configuration: Self.connectionConfiguration())
            // Every commit reaches the disk before it returns, so an edit the user saw succeed survives a power
            // cut. Set on the writer after the pool is open: GRDB turns WAL connections to NORMAL while opening
            // them, after `prepareDatabase` has run, and NORMAL may lose the last commits on a power cut.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw Self.translate(error, path: path)
        }
        self.home = home
        self.media = MediaLibrary(directory: home.mediaURL)
        self.now = now
        // Only a home that lacks a migration takes the write lock; everyday commands open it read-mostly.
        if applied != migrations.map(\.identifier) { try migrate(migrations) }
    }

    /// The identifiers of the migrations recorded in the database, in the order they were applied.
    public func appliedMigrations() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT identifier FROM schema_migrations ORDER BY rowid") }
    }

    // MARK: Opening

    /// Whether a sync of every due recipe would find nothing at all to do in `home`: no recipe pending, waiting,
    /// deleting or uploading, no migration missing, and no file at all in `media/` or `outbox/` (a cancelled or
    /// failed recipe's kept copy, or anything a sync might collect, leaves the answer to the sync itself: false).
    ///
    /// Answered without opening the store, which writes on every open (GRDB makes sure a WAL file exists by creating
    /// and dropping a table when there is none; closing checkpoints and removes it again): most of cron's runs find
    /// nothing to do and should cost next to nothing. It changes no recipe and writes nothing of its own. A home
    /// without its folders or database is not known to be idle (false); a database file `init` refuses is refused
    /// here alike, by the same read-only check.
    public static func hasNothingToSync(home: RecipesHome, migrations: [Migration] = Migration.embedded) throws(StoreError) -> Bool {
        func holdsNothing(_ folder: URL, besides ignored: String? = nil) -> Bool {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return false }
            return names.allSatisfy { $0 == ignored }
        }
        guard holdsNothing(home.mediaURL, besides: MediaLibrary.lockFileName), holdsNothing(home.outboxURL) else {
            return false
        }
        let path = home.databaseURL.path
        let known = migrations.map(\.identifier)
        let applied = try preflight(path: path, known: known)
        guard !applied.isEmpty, applied == known else { return false }  // new, or to migrate: the store's open does it
        // A connection that may write: as the last one to close it removes the -wal and -shm files, which the
        // read-only check created and a read-only connection leaves behind (and, like any last connection, it
        // checkpoints what a process that died left in the WAL).
        do {
            let queue = try DatabaseQueue(path: path, configuration: connectionConfiguration())
            defer { try? queue.close() }
            return try queue.read { db in
                // The file replaced since the check (SQLite creates an empty one when it is gone): not idle.
                guard try db.tableExists("recipes") else { return false }
                return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE state IN \(unsyncedStates))") == false
            }
        } catch {
            throw translate(error, path: path)
        }
    }

    /// The settings of every connection: a wait of `busyTimeout` for another process's lock, foreign keys on.
    static func connectionConfiguration(readonly: Bool = false) -> Configuration {
        var config = Configuration()
        config.readonly = readonly
        config.busyMode = .timeout(busyTimeout)
        config.foreignKeysEnabled = true
        return config
    }

    /// Refuses, without writing to it, a file that is not a recipes database this binary can use; returns the
    /// migrations it has applied, in order (none for a new or empty file).
    static func preflight(path: String, known: [String]) throws(StoreError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        if isDirectory.boolValue { throw StoreError(.notADatabase(path: path)) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError(.cannotOpen(path: path, detail: "permission denied"))
        }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        if header.isEmpty { return [] }  // an empty file is an empty database
        guard header == Data("SQLite format 3\0".utf8) else { throw StoreError(.notADatabase(path: path)) }

        do {
            let queue = try DatabaseQueue(path: path, configuration: connectionConfiguration(readonly: true))
            defer { try? queue.close() }
            return try queue.read { db in
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                if tables.isEmpty { return [] }
                guard tables.contains("schema_migrations") else { throw StoreError(.foreignDatabase(path: path)) }
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM schema_migrations ORDER BY rowid")
                let unknown = applied.filter { !known.contains($0) }
                if !unknown.isEmpty { throw StoreError(.newerDatabase(path: path, unknownMigrations: unknown)) }
                return applied
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw translate(error, path: path)
        }
    }

    /// Applies every migration not yet recorded, each in one immediate transaction with its bookkeeping row.
    ///
    /// The check happens inside the transaction, so two processes opening a new home at once apply each step once.
    func migrate(_ migrations: [Migration]) throws(StoreError) {
        let known = migrations.map(\.identifier)
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
            throw Self.translate(error, path: home.databaseURL.path)
        }
    }

    // MARK: Access

    /// Runs `body` in a read transaction, translating SQLite errors.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.translate(error, path: home.databaseURL.path)
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
            throw Self.translate(error, path: home.databaseURL.path)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction, committed when it returns and rolled back when it throws.
    ///
    /// The commit is on disk when this returns, unless `waitForDisk` is false: then it is written to the WAL without
    /// a sync (`synchronous = NORMAL` for this one transaction), and reaches the disk with the next synced commit or
    /// checkpoint. Only for bookkeeping that a power cut may lose without harm (see `finishChains`).
    func write<T>(waitForDisk: Bool = true, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                try setWaitsForDisk(waitForDisk, db)
                // Cached statements: compiling BEGIN and COMMIT anew for every transaction was a twentieth of a
                // 1,000-recipe sync's CPU.
                try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
                do {
                    let result = try body(db)
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
            throw Self.translate(error, path: home.databaseURL.path)
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

    /// Turns a GRDB/SQLite error into a store error that says what to do.
    static func translate(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let db = error as? DatabaseError {
            switch db.resultCode {
            case .SQLITE_NOTADB: return StoreError(.notADatabase(path: path))
            case .SQLITE_CORRUPT: return StoreError(.corruptDatabase(path: path, detail: db.message ?? "corrupt"))
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
