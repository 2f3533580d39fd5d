import Foundation
import GRDB

/// The server's SQLite database (GRDB, WAL) at `DIR/server.sqlite3`: stored recipes and the index of stored images.
///
/// The statements every upload runs are prepared once per connection (`cachedStatement`), not parsed per request.
public final class ServerDatabase: Sendable {
    /// A stored recipe as listed by `GET /v1/recipes`.
    public struct RecipeSummary: Codable, Sendable, Equatable {
        /// The recipe UUID as the client wrote it.
        public var identifier: String
        /// The stored version.
        public var version: Int
        /// The recipe's name.
        public var name: String
        /// `dateModified` of the stored document, if it had one.
        public var dateModified: String?
    }

    /// What a recipe PUT did.
    public enum RecipeWrite: Sendable, Equatable {
        /// First time this identifier is stored.
        case created
        /// Replaced an older or equal version.
        case updated
        /// The stored version is newer; nothing changed.
        case stale(storedVersion: Int)
        /// The `image` the recipe points to is not stored here; nothing changed.
        case unknownImage(String)
    }

    /// A stored image's metadata.
    public struct ImageInfo: Sendable, Equatable {
        /// Its media type.
        public var contentType: String
        /// Its size in bytes.
        public var bytes: Int64
    }

    private let pool: DatabasePool

    /// Opens (creating and migrating) the database at `path`.
    public init(path: String) throws(ServerSetupError) {
        do {
            pool = try DatabasePool(path: path)
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
            try migrator.migrate(pool)
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

    /// The stored image's metadata, or nil.
    public func image(sha256: String) async throws -> ImageInfo? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT contentType, bytes FROM image WHERE sha256 = ?"), arguments: [sha256])
                .map { ImageInfo(contentType: $0["contentType"], bytes: $0["bytes"]) }
        }
    }

    /// Stores a recipe unless a newer version is stored or its image is unknown, in one transaction.
    public func putRecipe(_ recipe: RecipeDocument, document: Data) async throws -> RecipeWrite {
        try await pool.write { db in
            if let sha = recipe.imageSHA256,
               try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM image WHERE sha256 = ?"), arguments: [sha]) == nil {
                return .unknownImage(sha)
            }
            let key = recipe.identifier.lowercased()
            let stored = try Int.fetchOne(db.cachedStatement(sql: "SELECT version FROM recipe WHERE key = ?"), arguments: [key])
            if let stored, stored > recipe.version { return .stale(storedVersion: stored) }
            try db.cachedStatement(sql: """
                INSERT INTO recipe (key, identifier, version, name, dateModified, document, updatedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET identifier = excluded.identifier, version = excluded.version,
                    name = excluded.name, dateModified = excluded.dateModified, document = excluded.document,
                    updatedAt = excluded.updatedAt
                """).execute(arguments: [key, recipe.identifier, recipe.version, recipe.name, recipe.dateModified, document, Date().ISO8601Format()])
            return stored == nil ? .created : .updated
        }
    }

    /// The stored document of a recipe, or nil.
    public func recipeDocument(identifier: String) async throws -> Data? {
        try await pool.read { db in
            try Data.fetchOne(db, sql: "SELECT document FROM recipe WHERE key = ?", arguments: [identifier.lowercased()])
        }
    }

    /// Every stored recipe, ordered by identifier.
    public func recipes() async throws -> [RecipeSummary] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT identifier, version, name, dateModified FROM recipe ORDER BY key").map {
                RecipeSummary(identifier: $0["identifier"], version: $0["version"], name: $0["name"], dateModified: $0["dateModified"])
            }
        }
    }

    /// Deletes a recipe; returns whether one was stored.
    @discardableResult
    public func deleteRecipe(identifier: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM recipe WHERE key = ?", arguments: [identifier.lowercased()])
            return db.changesCount > 0
        }
    }
}
