import Foundation
import RecipeModels
import RecipeStore

/// One element of `recipes status --json`: exactly the keys the contract names (section 6's `serverVersion` and
/// `conflicts` among them), nulls included.
struct StatusEntry {
    var id: Int64
    var uuid: String
    var title: String
    var state: String
    var revision: Int64
    var syncedRevision: Int64
    var attempts: Int
    var nextAttemptAt: String?
    var lastError: String?
    var blocked: String?
    var image: String?
    var remoteImage: String?
    var serverVersion: Int64?
    var conflicts: [ConflictEntry]

    /// The entry of `recipe`; `image` is where this home keeps its image's bytes (see `RecipeFormatter.imagePath`).
    init(_ recipe: Recipe, image: String?, now: Date, timeZone: TimeZone, hasServer: Bool = true) {
        id = recipe.id
        uuid = recipe.uuid.lowercasedString
        title = recipe.title
        state = recipe.sync.effectiveState(at: now).rawValue
        revision = recipe.sync.revision
        syncedRevision = recipe.sync.syncedRevision
        attempts = recipe.sync.attempts
        nextAttemptAt = recipe.sync.nextAttemptAt.map(ISO8601.string)
        lastError = recipe.sync.lastError
        blocked = BlockedReason.describe(recipe.sync, id: recipe.id, at: now, timeZone: timeZone, hasServer: hasServer)
        self.image = image
        remoteImage = recipe.sync.remoteImageURL
        serverVersion = recipe.sync.serverVersion
        conflicts = recipe.sync.conflict?.statusEntries ?? []
    }

    /// Writes the entry as one JSON object with exactly the contract's keys, nulls included.
    func write(to writer: inout JSONWriter) {
        writer.object([
            "id": .integer(id), "uuid": .string(uuid), "title": .string(title), "state": .string(state),
            "revision": .integer(revision), "syncedRevision": .integer(syncedRevision),
            "attempts": .integer(Int64(attempts)), "nextAttemptAt": .string(nextAttemptAt),
            "lastError": .string(lastError), "blocked": .string(blocked), "image": .string(image),
            "remoteImage": .string(remoteImage), "serverVersion": .integer(serverVersion),
            "conflicts": .raw(Self.json(conflicts)),
        ])
    }

    /// The JSON array of `entries`: `[{"field","mine","theirs"}, …]`, each value a string, an array of strings or null.
    static func json(_ entries: [ConflictEntry]) -> String {
        var writer = JSONWriter()
        writer.array(entries) { writer, entry in
            writer.object(["field": .string(entry.field), "mine": .raw(json(entry.mine)), "theirs": .raw(json(entry.theirs))])
        }
        return writer.text
    }

    /// The JSON of one conflict value.
    private static func json(_ value: ConflictEntry.Value) -> String {
        switch value {
        case .null: "null"
        case .text(let text): JSONWriter.quoted(text)
        case .list(let list): RecipeFormatter.stringArray(list)
        }
    }
}

/// ISO 8601 timestamps in UTC, e.g. `2026-11-20T10:00:00Z`.
enum ISO8601 {
    static func string(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon).timeZone(separator: .omitted))
    }
}
