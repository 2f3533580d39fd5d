import Foundation
import GRDB
import RecipeModels

/// A change of the server's feed that a pull went past without applying it (its image could not be fetched): the
/// recipes after it were applied; the cursor stays before it, so the next pull tries it again. `status` names it.
public struct PullToCome: Sendable, Equatable {
    /// The recipe.
    public var uuid: UUID
    /// The change's sequence number in the feed.
    public var seq: Int64
    /// The server's version of the recipe that change holds.
    public var version: Int64
    /// The recipe's title on the server.
    public var title: String
    /// Why it is not applied yet, in words ("its image did not download: …").
    public var reason: String
    /// When a pull first went past it.
    public var since: Date

    public init(uuid: UUID, seq: Int64, version: Int64, title: String, reason: String, since: Date) {
        self.uuid = uuid
        self.seq = seq
        self.version = version
        self.title = title
        self.reason = reason
        self.since = since
    }

    /// What `status` says of it: which recipe, why, and that the next sync tries again (the title as the server has
    /// it: the command line cleans it for a terminal).
    public var statusLine: String {
        "still to come from the server: \"\(title)\" (uuid \(uuid.lowercasedString.prefix(8))): \(reason); "
            + "the recipes after it are pulled, and the next sync tries it again"
    }
}

extension RecipeStore {
    /// The changes pulls went past without applying them, in the feed's order.
    public func pullsToCome() throws(StoreError) -> [PullToCome] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT uuid, seq, version, title, reason, since FROM pull_to_come ORDER BY seq")
                .compactMap { row in
                    guard let uuid = UUID(uuidString: row["uuid"]) else { return nil }
                    return PullToCome(
                        uuid: uuid, seq: row["seq"], version: row["version"], title: row["title"], reason: row["reason"],
                        since: Date(timeIntervalSince1970: row["since"]))
                }
        }
    }

    /// Inside `applyPage`'s transaction: the changes of `applied` are here now (each settles a record of its recipe at
    /// that version or an earlier one), and those of `toCome` are gone past (a record of the same recipe at a later
    /// version stays).
    static func recordPullsToCome(applied: [PulledChange], toCome: [PullToCome], _ db: Database) throws {
        let settle = try db.cachedStatement(sql: "DELETE FROM pull_to_come WHERE uuid = ? AND version <= ?")
        for change in applied {
            try settle.execute(arguments: [change.uuid.lowercasedString, change.copy.version])
        }
        let record = try db.cachedStatement(sql: """
            INSERT INTO pull_to_come (uuid, seq, version, title, reason, since) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (uuid) DO UPDATE SET seq = excluded.seq, version = excluded.version, title = excluded.title,
                reason = excluded.reason
            WHERE excluded.version >= pull_to_come.version
            """)
        for entry in toCome {
            try record.execute(arguments: [
                entry.uuid.lowercasedString, entry.seq, entry.version, entry.title, entry.reason,
                entry.since.timeIntervalSince1970,
            ])
        }
    }
}
