import Foundation
import GRDB

/// The server's SQLite database (GRDB, WAL) at `DIR/server.sqlite3`: recipes and their tombstones, the changes feed,
/// the index of stored images and the server id.
///
/// The statements every upload runs are prepared once per connection (`cachedStatement`), not parsed per request.
public final class ServerDatabase: Sendable {
    /// A stored image's metadata.
    public struct ImageInfo: Sendable, Equatable {
        /// Its media type.
        public var contentType: String
        /// Its size in bytes.
        public var bytes: Int64
    }

    let pool: DatabasePool
    /// The random id made once for this data directory (`GET /v1/health`, every changes page).
    public let serverID: String
    /// The highest sequence number the changes feed has given out when the database was opened.
    let lastSequenceAtOpen: Int64

    /// Opens (creating and migrating) the database at `path`.
    public init(path: String) throws(ServerSetupError) {
        do {
            pool = try DatabasePool(path: path)
            try ServerSchema.migrator.migrate(pool)
            // Read on the writer connection the migrations opened (opening a reader here would cost a second connection).
            (serverID, lastSequenceAtOpen) = try pool.writeWithoutTransaction { db in
                let id = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'serverId'") ?? ""
                let last = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'change'") ?? 0
                return (id, last)
            }
        } catch {
            throw ServerSetupError("Cannot open the server database \(path): \(error). Check --data points to a writable directory of this server.")
        }
    }

    /// Records a stored image; returns true when it was not recorded before.
    public func recordImage(sha256: String, contentType: String, bytes: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO image (sha256, contentType, bytes, storedAt) VALUES (?, ?, ?, ?)")
                .execute(arguments: [sha256, contentType, bytes, Date().ISO8601Format()])
            return db.changesCount > 0
        }
    }

    /// Which of `names` are stored images (one query for up to 1000 names).
    public func storedImages(among names: [String]) async throws -> Set<String> {
        guard !names.isEmpty else { return [] }
        return try await pool.read { db in
            let marks = Array(repeating: "?", count: names.count).joined(separator: ",")
            return Set(try String.fetchAll(db, sql: "SELECT sha256 FROM image WHERE sha256 IN (\(marks))", arguments: StatementArguments(names)))
        }
    }

    /// The stored image's metadata, or nil.
    public func image(sha256: String) async throws -> ImageInfo? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT contentType, bytes FROM image WHERE sha256 = ?"), arguments: [sha256])
                .map { ImageInfo(contentType: $0["contentType"], bytes: $0["bytes"]) }
        }
    }
}

/// The server database's schema, one GRDB migration per version, each applied once in its own transaction.
enum ServerSchema {
    /// Every migration, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE image (
                    sha256 TEXT PRIMARY KEY NOT NULL,
                    contentType TEXT NOT NULL,
                    bytes INTEGER NOT NULL,
                    storedAt TEXT NOT NULL
                );
                CREATE TABLE recipe (
                    key TEXT PRIMARY KEY NOT NULL,
                    identifier TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    dateModified TEXT,
                    document BLOB NOT NULL,
                    updatedAt TEXT NOT NULL
                );
                """)
        }
        // Two-way sync (issue 17): tombstones, the changes feed and the server id. A recipe stored before this
        // migration keeps its version and gets a feed row, in the order the recipes were last written.
        migrator.registerMigration("v2-changes") { db in
            try db.execute(sql: """
                ALTER TABLE recipe ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE change (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    key TEXT NOT NULL UNIQUE REFERENCES recipe(key)
                );
                CREATE TABLE meta (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                );
                INSERT INTO change (key) SELECT key FROM recipe ORDER BY updatedAt, key;
                """)
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('serverId', ?)", arguments: [UUID().uuidString.lowercased()])
        }
        // Resumable images (issue 28): the partial uploads kept under DIR/uploads/, one per image.
        migrator.registerMigration("v3-partial-uploads") { db in
            try db.execute(sql: """
                CREATE TABLE partialUpload (
                    sha256 TEXT PRIMARY KEY NOT NULL,
                    contentType TEXT NOT NULL,
                    length INTEGER NOT NULL,
                    startedAt REAL NOT NULL
                );
                """)
        }
        return migrator
    }
}
