import Foundation
import GRDB
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// What `recipes doctor` found and did.
public struct DoctorReport: Sendable, Equatable {
    /// What the check found.
    public enum Verdict: Sendable, Equatable {
        /// The home has no database yet.
        case noDatabase
        /// SQLite's `integrity_check` found nothing wrong; the database holds `recipes` recipes.
        case healthy(recipes: Int)
        /// The database is damaged (see `problems`).
        case damaged
    }

    /// What the check found.
    public var verdict: Verdict
    /// The first problems `integrity_check` listed (or why it could not run), when damaged.
    public var problems: [String] = []
    /// The recipes copied into the new database.
    public var saved: [SalvagedRecipe] = []
    /// The recipes that could not be read at all.
    public var lost: [LostRecipe] = []
    /// Other tables whose rows could not all be read.
    public var unreadableTables: [String] = []
    /// Where the salvaged database was written (nil when nothing could be salvaged).
    public var salvagedPath: String?
    /// Where the damaged file (with its `-wal` and `-shm` files) was kept, once the salvaged one took its place.
    public var keptDamagedPath: String?
    /// Why the salvaged database did not take the damaged one's place, when it did not.
    public var notSwappedBecause: String?
}

/// `recipes doctor`: checks the database with SQLite's `integrity_check` and, when it is damaged, salvages every
/// readable recipe into a new database beside it, which then takes the damaged file's place; the damaged file is
/// kept under another name. Nothing is ever written to the damaged file.
///
/// The new database is written as `recipes.sqlite3.salvaged-<time>`, checked, and renamed to `recipes.sqlite3` only
/// when no other process has the damaged one open and nothing wrote to it while it was read; the damaged file is
/// first linked as `recipes.sqlite3.damaged-<time>` and its `-wal` and `-shm` files renamed beside it, so that they
/// are never taken for the new database's.
public enum DatabaseDoctor {
    /// How many of `integrity_check`'s findings are kept.
    static let problemsKept = 20

    /// Examines the database of `home` and salvages it when damaged; `now` names the files written.
    public static func examine(
        home: RecipesHome, now: Date = Date(), migrations: [Migration] = Migration.embedded
    ) throws(StoreError) -> DoctorReport {
        let path = home.databaseURL.path
        guard FileManager.default.fileExists(atPath: path) else { return DoctorReport(verdict: .noDatabase) }
        let opened: (queue: DatabaseQueue?, applied: [String])
        do {
            opened = try RecipeStore.preflight(path: path, known: migrations.map(\.identifier), keepOpen: true)
        } catch {
            guard case .corruptDatabase(_, let detail, _) = error.kind else { throw error }
            return DoctorReport(verdict: .damaged, problems: ["its list of tables cannot be read: \(detail)"])
        }
        guard let source = opened.queue else { return DoctorReport(verdict: .healthy(recipes: 0)) }
        defer { try? source.close() }

        let problems: [String]
        do {
            problems = try source.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check(\(problemsKept))") }
        } catch {
            problems = ["integrity_check stopped: \((error as? DatabaseError)?.message ?? "\(error)")"]
        }
        if problems == ["ok"] {
            let count = (try? source.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recipes") }) ?? nil
            return DoctorReport(verdict: .healthy(recipes: count ?? 0))
        }
        var report = DoctorReport(verdict: .damaged, problems: problems)
        let stamp = timestamp(now)
        let salvagedPath = path + ".salvaged-" + stamp
        do {
            let dataVersion = try source.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
            let result = try salvage(source, applied: opened.applied, migrations: migrations, to: salvagedPath)
            report.saved = result.saved
            report.lost = result.lost
            report.unreadableTables = result.unreadableTables
            report.salvagedPath = salvagedPath
            let changed = try source.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") } != dataVersion
            try source.close()
            if changed {
                report.notSwappedBecause = "another recipes process wrote to the damaged database while it was read"
            } else if isInUse(path) {
                report.notSwappedBecause = "another process (a sync started by cron?) has the damaged database open"
            } else {
                report.keptDamagedPath = try swap(damaged: path, salvaged: salvagedPath, keptAs: path + ".damaged-" + stamp)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.fileSystem(path: salvagedPath, detail: RecipeStore.translate(error, path: salvagedPath).errorDescription ?? "\(error)"))
        }
        return report
    }

    /// `yyyyMMdd-HHmmss` in UTC: names that sort by time.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: date)
    }

    /// Writes the salvaged database at `target` (with the damaged file's permissions) and checks it.
    static func salvage(
        _ source: DatabaseQueue, applied: [String], migrations: [Migration], to target: String
    ) throws -> SalvageResult {
        guard !FileManager.default.fileExists(atPath: target) else {
            throw StoreError(.fileSystem(path: target, detail: "it exists already; move it aside"))
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: target, configuration: configuration)
        var written = false
        defer {
            try? queue.close()
            if !written { unlink(target) }  // a salvage that failed leaves no half-made file
        }
        let steps = applied.compactMap { identifier in migrations.first { $0.identifier == identifier } }
        let result = try DatabaseSalvage(source: source, target: queue, migrations: steps).run()
        let check = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        guard check == ["ok"] else {
            throw StoreError(.database(detail: "the salvaged database failed its own check: \(check.joined(separator: "; "))"))
        }
        try queue.close()
        written = true
        var info = stat()
        if stat(source.path, &info) == 0 { chmod(target, info.st_mode & 0o777) }
        return result
    }

    /// Whether another process has the database at `path` open, as SQLite's own locks say: the shared lock every
    /// connection holds on the `-shm` file, and the locks on the database file's lock bytes.
    /// See https://www.sqlite.org/lockingv3.html and https://www.sqlite.org/walformat.html.
    ///
    /// The one place recipes opens the database files itself (see `DatabaseFiles`): only once this process's own
    /// connection is closed, so that it holds no lock the `close` could drop.
    static func isInUse(_ path: String) -> Bool {
        func locked(_ file: String, start: off_t, length: off_t) -> Bool {
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = start
            lock.l_len = length
            guard fcntl(fd, F_GETLK, &lock) == 0 else { return true }  // cannot tell: assume it is
            return lock.l_type != Int16(F_UNLCK)
        }
        let pendingByte: off_t = 0x4000_0000  // SQLite's lock bytes: pending, reserved, then 510 shared
        return locked(path, start: pendingByte, length: 512) || locked(path + "-shm", start: 120, length: 9)
    }

    /// Puts the salvaged database in the damaged one's place, keeping the damaged file (and its `-wal` and `-shm`,
    /// moved first so that SQLite never reads them as the new file's) under `keptAs`; returns `keptAs`.
    static func swap(damaged path: String, salvaged: String, keptAs kept: String) throws(StoreError) -> String {
        guard link(path, kept) == 0 else { throw StoreError(ErrnoError(errno, .link(from: path), path: kept)) }
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            guard rename(path + suffix, kept + suffix) == 0 else {
                throw StoreError(ErrnoError(errno, .rename(from: path + suffix), path: kept + suffix))
            }
        }
        guard rename(salvaged, path) == 0 else { throw StoreError(ErrnoError(errno, .rename(from: salvaged), path: path)) }
        try? AtomicFile.flushFolder(containing: path)  // the swap is done; a crash may only bring back the old names
        return kept
    }
}
