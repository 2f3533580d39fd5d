import CSQLite
import Foundation
import GRDB
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

extension RecipeStore {
    /// Whether a sync of every due recipe would find nothing at all to do in `home`: no recipe pending, waiting,
    /// deleting or uploading, none a new server's interrupted first pass still owes an upload, no migration missing, and no file recipes wrote in `media/` or `outbox/` (a cancelled or
    /// failed recipe's kept copy, or anything a sync might collect, leaves the answer to the sync itself: false).
    ///
    /// Answered without opening the store, which writes on every open (GRDB makes sure a WAL file exists by creating
    /// and dropping a table when there is none; closing checkpoints and removes it again): most of cron's runs find
    /// nothing to do and should cost next to nothing. It changes no recipe and writes nothing of its own. A home
    /// without its folders or database is not known to be idle (false); a database file `init` refuses is refused
    /// here alike, by the same read-only check.
    public static func hasNothingToSync(home: RecipesHome, migrations: [Migration] = Migration.embedded) throws(StoreError) -> Bool {
        try idleFeedCursor(home: home, migrations: migrations) != nil
    }

    /// The feed cursor of `home` when it has nothing to push (see `hasNothingToSync`), read by the same look; nil when
    /// it may have something. What an idle cron run needs to ask the server whether anything changed there.
    public static func idleFeedCursor(home: RecipesHome, migrations: [Migration] = Migration.embedded) throws(StoreError) -> FeedCursor? {
        // Entries recipes did not write are left alone by a sync, so they do not count; a missing folder, or one
        // that is a link (which the sync refuses, saying why), is not known to be idle.
        func holdsNothing(_ folder: URL, _ isOwn: (HomeFolder.Entry) -> Bool) -> Bool {
            guard let opened = try? HomeFolder.open(folder.path), let entries = try? opened.entries() else { return false }
            return !entries.contains(where: isOwn)
        }
        guard holdsNothing(home.mediaURL, MediaLibrary.isOwnFile), holdsNothing(home.outboxURL, Outbox.isOwnFile) else {
            return nil
        }
        let path = home.databaseURL.path
        let known = migrations.map(\.identifier)
        let applied = try preflight(path: path, known: known).applied
        guard !applied.isEmpty, applied == known else { return nil }  // new, or to migrate: the store's open does it
        // A connection that may write: as the last one to close it removes the -wal and -shm files, which the
        // read-only check created and a read-only connection leaves behind (and, like any last connection, it
        // checkpoints what a process that died left in the WAL) — unless SQLite found the file damaged.
        do {
            let queue = try DatabaseQueue(path: path, configuration: connectionConfiguration())
            defer { try? queue.close() }
            do {
                return try queue.read { db in
                    // The file replaced since the check (SQLite creates an empty one when it is gone): not idle.
                    guard try db.tableExists("recipes"),
                        try Bool.fetchOne(db, sql: """
                            SELECT EXISTS (SELECT 1 FROM recipes WHERE state IN \(unsyncedStates) OR \(owedToNewServer))
                            """) == false,
                        let row = try Row.fetchOne(db, sql: "SELECT server_id, seq FROM sync_cursor WHERE id = 1")
                    else { return nil }
                    return FeedCursor(server: row["server_id"], seq: row["seq"])
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
                queue.writeWithoutTransaction { db in stopCheckpoints(db) }
                throw error
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
    /// migrations it has applied, in order (none for a new or empty file), and with `keepOpen` the read-only
    /// connection it checked them through (nil for a missing or empty file).
    static func preflight(
        path: String, known: [String], keepOpen: Bool = false
    ) throws(StoreError) -> (queue: DatabaseQueue?, applied: [String]) {
        // Only SQLite opens the file: closing any other descriptor of it would drop every POSIX lock this process
        // holds on it (another connection's, as in the REPL, which reopens the database to write), and another
        // process would then take itself for the last user and remove the WAL under it
        // (https://www.sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_).
        // `stat` opens nothing; a file that is not SQLite is refused by SQLite's own first read (SQLITE_NOTADB).
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return (nil, []) }
            throw StoreError(.cannotOpen(path: path, detail: ErrnoError(errno, .inspect, path: path).reason))
        }
        try refuseSecondName(path, info)
        if info.st_mode & S_IFMT == S_IFDIR { throw StoreError(.notADatabase(path: path)) }
        if info.st_size == 0 { return (nil, []) }  // an empty file is an empty database

        var opened: DatabaseQueue?
        do {
            let queue = try openReadOnly(path: path)
            opened = queue
            let applied = try queue.read { db in
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                if tables.isEmpty { return [String]() }
                guard tables.contains("schema_migrations") else { throw StoreError(.foreignDatabase(path: path)) }
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM schema_migrations ORDER BY rowid")
                let unknown = applied.filter { !known.contains($0) }
                if !unknown.isEmpty { throw StoreError(.newerDatabase(path: path, unknownMigrations: unknown)) }
                return applied
            }
            if keepOpen { return (queue, applied) }
            try? queue.close()
            return (nil, applied)
        } catch {
            try? opened?.close()
            throw translate(error, path: path)
        }
    }

    /// Refuses a database file (`info`, from `lstat`) that has another name: a symbolic link (to another home's
    /// database, say: two homes would then write one file, each believing it is its own) or a file with several
    /// hard links. SQLite keeps a `-wal` and a `-shm` file beside each name, so two names of one database make two
    /// logs of one file, and a change committed through one is lost or corrupts the file through the other
    /// (https://www.sqlite.org/howtocorrupt.html#_multiple_links_to_the_same_file).
    static func refuseSecondName(_ path: String, _ info: stat) throws(StoreError) {
        if info.st_mode & S_IFMT == S_IFLNK {
            let destination = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "another file"
            throw StoreError(.linkedDatabase(path: path, detail: "a symbolic link to \(destination)"))
        }
        if info.st_mode & S_IFMT == S_IFREG, info.st_nlink > 1 {
            throw StoreError(.linkedDatabase(path: path, detail: "one of \(info.st_nlink) names (hard links) of one file"))
        }
    }

    /// A read-only connection to the database at `path`, checked with a first read.
    ///
    /// SQLite reads a WAL database through its `-wal` and `-shm` files, creating them when missing; in a folder it
    /// cannot write (a read-only home) it cannot, and the file is then opened immutable: nobody can write a WAL
    /// database there either. That is refused when a `-wal` file holds changes not yet in the database, which an
    /// immutable open would not see. See https://www.sqlite.org/wal.html#readonly.
    static func openReadOnly(path: String) throws -> DatabaseQueue {
        do {
            let queue = try DatabaseQueue(path: path, configuration: connectionConfiguration(readonly: true))
            do {
                _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
                return queue
            } catch {
                try? queue.close()
                throw error
            }
        } catch let error as DatabaseError where [.SQLITE_CANTOPEN, .SQLITE_READONLY].contains(error.resultCode) {
            // SQLite says "unable to open" or "attempt to write a readonly database" (it could not create `-shm`).
            let folder = (path as NSString).deletingLastPathComponent
            guard Glibc.access(folder, W_OK) != 0 else { throw error }
            let wal = path + "-wal"
            if let size = (try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int, size > 0 {
                throw StoreError(.cannotOpen(
                    path: path,
                    detail: "its folder cannot be written and \(wal) holds changes not yet in the database; "
                        + "make the folder writable (chmod u+w \(folder)) so that SQLite can read them"))
            }
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            let queue = try DatabaseQueue(
                path: "file:\(encoded)?immutable=1", configuration: connectionConfiguration(readonly: true))
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return queue
        }
    }

    /// Keeps `db` from checkpointing the WAL into the database file when it closes (what a connection does once
    /// SQLite found the file damaged). See https://www.sqlite.org/c3ref/c_dbconfig_defensive.html.
    static func stopCheckpoints(_ db: Database) {
        guard let connection = db.sqliteConnection else { return }
        _ = recipes_sqlite3_no_checkpoint_on_close(connection)
    }
}
