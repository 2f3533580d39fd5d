import Foundation
import GRDB

extension ServerDatabase {
    /// A live recipe as listed by `GET /v1/recipes`.
    public struct RecipeSummary: Sendable, Equatable {
        /// The recipe UUID as the client wrote it.
        public var identifier: String
        /// The stored version.
        public var version: Int
        /// The recipe's name.
        public var name: String
        /// `dateModified` of the stored document, if it had one.
        public var dateModified: String?
    }

    /// One entry of the changes feed: the latest write of a recipe.
    public struct Change: Sendable, Equatable {
        /// Its sequence number.
        public var sequence: Int64
        /// The recipe UUID as the client wrote it.
        public var identifier: String
        /// The version the write made.
        public var version: Int
        /// The stored document, or nil for a tombstone.
        public var document: [UInt8]?
    }

    /// What a conditional write did.
    public enum WriteOutcome: Sendable, Equatable {
        /// The decision was carried out (a write when it calls for one, with its feed row at `sequence`).
        case decided(RecipePutDecision, sequence: Int64?)
        /// The recipe's `image` is not stored here; nothing changed.
        case unknownImage(String)
    }

    /// Decides and carries out a conditional PUT in one transaction: the recipe row and its feed row, or nothing.
    public func putRecipe(_ recipe: RecipeDocument, document: Data, precondition: WritePrecondition) async throws -> WriteOutcome {
        let bytes = [UInt8](document)
        return try await pool.write { db in
            let key = recipe.identifier.lowercased()
            let decision = RecipePutDecision.decide(precondition, bodyVersion: recipe.version, document: bytes, stored: try Self.stored(db, key: key))
            switch decision {
            case .create, .update, .recreate:
                if let sha = recipe.imageSHA256,
                   try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM image WHERE sha256 = ?"), arguments: [sha]) == nil {
                    return .unknownImage(sha)
                }
                try db.cachedStatement(sql: """
                    INSERT INTO recipe (key, identifier, version, name, dateModified, document, updatedAt, deleted)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 0)
                    ON CONFLICT(key) DO UPDATE SET identifier = excluded.identifier, version = excluded.version,
                        name = excluded.name, dateModified = excluded.dateModified, document = excluded.document,
                        updatedAt = excluded.updatedAt, deleted = 0
                    """).execute(arguments: [key, recipe.identifier, recipe.version, recipe.name, recipe.dateModified, document,
                                             Date().ISO8601Format()])
                return .decided(decision, sequence: try Self.recordChange(db, key: key))
            case .alreadyStored, .stale, .preconditionRequired, .wrongVersion:
                return .decided(decision, sequence: nil)
            }
        }
    }

    /// Decides and carries out a conditional DELETE in one transaction: the tombstone and its feed row, or nothing.
    public func deleteRecipe(identifier: String, precondition: WritePrecondition) async throws -> (RecipeDeleteDecision, sequence: Int64?) {
        try await pool.write { db in
            let key = identifier.lowercased()
            let decision = RecipeDeleteDecision.decide(precondition, stored: try Self.stored(db, key: key))
            guard case .tombstone(let version) = decision else { return (decision, nil) }
            try db.cachedStatement(sql: """
                UPDATE recipe SET version = ?, deleted = 1, document = X'', updatedAt = ? WHERE key = ?
                """).execute(arguments: [version, Date().ISO8601Format(), key])
            return (decision, try Self.recordChange(db, key: key))
        }
    }

    /// What is stored for a recipe: live, a tombstone, or nothing.
    public func recipe(identifier: String) async throws -> StoredRecipe? {
        try await pool.read { db in try Self.stored(db, key: identifier.lowercased()) }
    }

    /// Up to `limit` live recipes whose UUID sorts after `after` (case-insensitively), in UUID order, and whether more follow.
    public func recipes(after: String?, limit: Int) async throws -> (recipes: [RecipeSummary], more: Bool) {
        try await pool.read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT identifier, version, name, dateModified FROM recipe WHERE deleted = 0 AND key > ? ORDER BY key LIMIT ?
                """), arguments: [after?.lowercased() ?? "", limit + 1])
            let recipes = rows.prefix(limit).map {
                RecipeSummary(identifier: $0["identifier"], version: $0["version"], name: $0["name"], dateModified: $0["dateModified"])
            }
            return (recipes, rows.count > limit)
        }
    }

    /// The changes after `since` in sequence order: at most `limit`, and no more documents than about `maxBytes`
    /// (at least one change), and whether more follow.
    public func changes(since: Int64, limit: Int, maxBytes: Int) async throws -> (changes: [Change], more: Bool) {
        try await pool.read { db in
            let cursor = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT change.seq, recipe.identifier, recipe.version, recipe.deleted, recipe.document
                FROM change JOIN recipe ON recipe.key = change.key WHERE change.seq > ? ORDER BY change.seq LIMIT ?
                """), arguments: [since, limit + 1])
            var changes: [Change] = []
            var bytes = 0
            while let row = try cursor.next() {
                guard changes.count < limit, changes.isEmpty || bytes < maxBytes else { return (changes, true) }
                let deleted: Bool = row["deleted"]
                let document: [UInt8]? = deleted ? nil : [UInt8](row["document"] as Data)
                bytes += document?.count ?? 0
                changes.append(Change(sequence: row["seq"], identifier: row["identifier"], version: row["version"], document: document))
            }
            return (changes, false)
        }
    }

    /// The stored state of the recipe with this lower-cased key.
    private static func stored(_ db: Database, key: String) throws -> StoredRecipe? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT version, deleted, document FROM recipe WHERE key = ?"),
                                         arguments: [key]) else { return nil }
        let version: Int = row["version"]
        let deleted: Bool = row["deleted"]
        return deleted ? .tombstone(version: version) : .live(version: version, document: [UInt8](row["document"] as Data))
    }

    /// Gives the recipe's latest write the next sequence number (its earlier feed row, now superseded, goes).
    private static func recordChange(_ db: Database, key: String) throws -> Int64 {
        try db.cachedStatement(sql: "DELETE FROM change WHERE key = ?").execute(arguments: [key])
        try db.cachedStatement(sql: "INSERT INTO change (key) VALUES (?)").execute(arguments: [key])
        return db.lastInsertedRowID
    }
}
