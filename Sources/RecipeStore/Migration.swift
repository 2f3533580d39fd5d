/// One schema step from the repository's `migrations/NNNN_name.sql`, embedded in the binary.
public struct Migration: Sendable, Equatable {
    /// The file's base name, e.g. `0001_initial`; recorded in `schema_migrations` once applied.
    public var identifier: String
    /// The SQL the file holds.
    public var sql: String

    /// Creates a migration.
    public init(identifier: String, sql: String) {
        self.identifier = identifier
        self.sql = sql
    }
}
