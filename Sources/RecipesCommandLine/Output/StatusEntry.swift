import Foundation
import RecipeModels
import RecipeStore

/// One element of `recipes status --json`: exactly the keys the contract names, nulls included.
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

    init(_ recipe: Recipe, media: MediaLibrary, now: Date, timeZone: TimeZone) {
        id = recipe.id
        uuid = recipe.uuid.lowercasedString
        title = recipe.title
        state = recipe.sync.effectiveState(at: now).rawValue
        revision = recipe.sync.revision
        syncedRevision = recipe.sync.syncedRevision
        attempts = recipe.sync.attempts
        nextAttemptAt = recipe.sync.nextAttemptAt.map(ISO8601.string)
        lastError = recipe.sync.lastError
        blocked = BlockedReason.describe(recipe.sync, at: now, timeZone: timeZone)
        image = recipe.image?.localFileName.map(media.path(of:))
        remoteImage = recipe.sync.remoteImageURL
    }

    /// Writes the entry as one JSON object with exactly the contract's keys, nulls included.
    func write(to writer: inout JSONWriter) {
        writer.object([
            "id": .integer(id), "uuid": .string(uuid), "title": .string(title), "state": .string(state),
            "revision": .integer(revision), "syncedRevision": .integer(syncedRevision),
            "attempts": .integer(Int64(attempts)), "nextAttemptAt": .string(nextAttemptAt),
            "lastError": .string(lastError), "blocked": .string(blocked), "image": .string(image),
            "remoteImage": .string(remoteImage),
        ])
    }
}

/// ISO 8601 timestamps in UTC, e.g. `2026-11-20T10:00:00Z`.
enum ISO8601 {
    static func string(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon).timeZone(separator: .omitted))
    }
}
