import Foundation
import GRDB

extension ServerDatabase {
    /// A partial image upload kept for resumption: what its interrupted `PUT` announced, and when it began.
    public struct PartialUploadRow: Sendable, Equatable {
        /// The image's SHA-256 (the path of its `PUT`).
        public var sha256: String
        /// The `Content-Type` of its `PUT`, the type the image gets once whole.
        public var contentType: String
        /// The image's whole length (the `Content-Length` of its `PUT`).
        public var length: Int64
        /// When its `PUT` was interrupted and the partial first kept.
        public var startedAt: Date
    }

    /// The partial upload of an image, if one is recorded.
    func partialUpload(sha256: String) async throws -> PartialUploadRow? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT sha256, contentType, length, startedAt FROM partialUpload WHERE sha256 = ?"),
                             arguments: [sha256]).map(Self.partialUpload)
        }
    }

    /// Records (or replaces) the partial upload of an image.
    func recordPartialUpload(_ row: PartialUploadRow) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO partialUpload (sha256, contentType, length, startedAt) VALUES (?, ?, ?, ?)")
                .execute(arguments: [row.sha256, row.contentType, row.length, row.startedAt.timeIntervalSince1970])
        }
    }

    /// Forgets the partial upload of an image.
    func removePartialUpload(sha256: String) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: "DELETE FROM partialUpload WHERE sha256 = ?").execute(arguments: [sha256])
        }
    }

    /// Every recorded partial upload.
    func partialUploads() async throws -> [PartialUploadRow] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT sha256, contentType, length, startedAt FROM partialUpload ORDER BY sha256").map(Self.partialUpload)
        }
    }

    private static func partialUpload(_ row: Row) -> PartialUploadRow {
        PartialUploadRow(sha256: row["sha256"], contentType: row["contentType"], length: row["length"],
                         startedAt: Date(timeIntervalSince1970: row["startedAt"]))
    }
}

extension ServerDatabase {
    /// At start-up: forgets the partial uploads begun before `cutoff` and answers the images of those that remain.
    func collectPartialUploads(startedBefore cutoff: Date) throws -> Set<String> {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM partialUpload WHERE startedAt <= ?", arguments: [cutoff.timeIntervalSince1970])
            return Set(try String.fetchAll(db, sql: "SELECT sha256 FROM partialUpload"))
        }
    }

    /// At start-up: forgets the partial upload of an image whose file is gone.
    func forgetPartialUpload(sha256: String) throws {
        try pool.write { db in try db.execute(sql: "DELETE FROM partialUpload WHERE sha256 = ?", arguments: [sha256]) }
    }
}
