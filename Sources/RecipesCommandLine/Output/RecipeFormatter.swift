import Foundation
import RecipeModels
import RecipeStore

/// Renders recipes for `list`, `show` and `status`, as text for people and as JSON for programs.
public struct RecipeFormatter: Sendable {
    /// The media folder, to show local image paths.
    var media: MediaLibrary
    /// The present moment, which decides derived states such as a lapsed backoff.
    var now: Date
    /// The zone clock times are shown in.
    var timeZone: TimeZone

    /// Creates a formatter.
    public init(media: MediaLibrary, now: Date, timeZone: TimeZone = .current) {
        self.media = media
        self.now = now
        self.timeZone = timeZone
    }

    // MARK: Text

    /// `list`: a header and one row per recipe (id, state, revision, title).
    public func list(_ recipes: [Recipe]) -> String {
        guard !recipes.isEmpty else { return "no recipes yet; create one with `new <title>`\n" }
        let rows = recipes.map { recipe in
            [String(recipe.id), recipe.sync.effectiveState(at: now).rawValue, String(recipe.sync.revision), recipe.title]
        }
        return Self.table(header: ["ID", "STATE", "REV", "TITLE"], rows: rows)
    }

    /// `status`: a header and one row per recipe with the revision the server has and why it is not there yet.
    public func status(_ recipes: [Recipe]) -> String {
        guard !recipes.isEmpty else { return "no recipes yet; create one with `new <title>`\n" }
        let rows = recipes.map { recipe in
            [
                String(recipe.id), recipe.sync.effectiveState(at: now).rawValue, String(recipe.sync.revision),
                String(recipe.sync.syncedRevision), recipe.title,
                BlockedReason.describe(recipe.sync, at: now, timeZone: timeZone) ?? "",
            ]
        }
        return Self.table(header: ["ID", "STATE", "REV", "SERVER", "TITLE", "WHY NOT SYNCED"], rows: rows)
    }

    /// `show`: every field, the image and the sync state.
    public func show(_ recipe: Recipe) -> String {
        var lines: [String] = []
        func field(_ name: String, _ value: String) {
            lines.append((name + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + value)
        }
        field("id", String(recipe.id))
        field("uuid", recipe.uuid.uuidString.lowercased())
        field("title", recipe.title)
        field("description", recipe.description)
        field("yield", recipe.recipeYield)
        field("keywords", recipe.keywords)
        if let image = recipe.image {
            var text = "\(image.format.rawValue), \(image.byteCount) bytes, sha256 \(image.sha256)"
            if let file = image.localFileName { text += "\n" + String(repeating: " ", count: 14) + media.path(of: file) }
            field("image", text)
        } else {
            field("image", "none")
        }
        field("ingredients", recipe.ingredients.isEmpty ? "none" : "")
        for (index, ingredient) in recipe.ingredients.enumerated() { lines.append("  \(index + 1). \(ingredient.text)") }
        field("steps", recipe.steps.isEmpty ? "none" : "")
        for (index, step) in recipe.steps.enumerated() { lines.append("  \(index + 1). \(step.text)") }
        field("state", recipe.sync.effectiveState(at: now).rawValue)
        field("revision", "\(recipe.sync.revision) (server has \(recipe.sync.syncedRevision))")
        field("attempts", String(recipe.sync.attempts))
        if let next = recipe.sync.nextAttemptAt { field("next attempt", ISO8601.string(next)) }
        if let error = recipe.sync.lastError { field("last error", error) }
        if let remote = recipe.sync.remoteImageURL { field("server image", remote) }
        field("modified", ISO8601.string(recipe.dateModified))
        if let blocked = BlockedReason.describe(recipe.sync, at: now, timeZone: timeZone) { field("blocked", blocked) }
        return lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n") + "\n"
    }

    /// Left-aligned columns separated by two spaces; the last column is not padded.
    static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        var output = ""
        for row in all {
            var line = ""
            for (index, cell) in row.enumerated() {
                if index == row.count - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[index] - cell.count + 2)
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            output += line + "\n"
        }
        return output
    }

    // MARK: JSON

    /// `status --json`: an array of objects with exactly the contract's keys.
    public func statusJSON(_ recipes: [Recipe]) -> String {
        Self.encode(recipes.map { StatusEntry($0, media: media, now: now, timeZone: timeZone) })
    }

    /// `list --json`: an array of `{id, uuid, title, state, revision}`.
    public func listJSON(_ recipes: [Recipe]) -> String {
        struct Row: Encodable { var id: Int64; var uuid: String; var title: String; var state: String; var revision: Int64 }
        return Self.encode(recipes.map {
            Row(id: $0.id, uuid: $0.uuid.uuidString.lowercased(), title: $0.title,
                state: $0.sync.effectiveState(at: now).rawValue, revision: $0.sync.revision)
        })
    }

    /// `show --json`: every field of one recipe, with its status entry under `sync`.
    public func showJSON(_ recipe: Recipe) -> String {
        struct Image: Encodable { var sha256: String; var format: String; var bytes: Int64; var path: String? }
        struct Full: Encodable {
            var id: Int64, uuid: String, title: String, description: String, recipeYield: String, keywords: String
            var ingredients: [String], steps: [String], image: Image?, dateModified: String, sync: StatusEntry
            func encode(to encoder: any Encoder) throws {
                enum Key: String, CodingKey {
                    case id, uuid, title, description, recipeYield, keywords, ingredients, steps, image, dateModified, sync
                }
                var c = encoder.container(keyedBy: Key.self)
                try c.encode(id, forKey: .id)
                try c.encode(uuid, forKey: .uuid)
                try c.encode(title, forKey: .title)
                try c.encode(description, forKey: .description)
                try c.encode(recipeYield, forKey: .recipeYield)
                try c.encode(keywords, forKey: .keywords)
                try c.encode(ingredients, forKey: .ingredients)
                try c.encode(steps, forKey: .steps)
                try c.encode(image, forKey: .image)
                try c.encode(dateModified, forKey: .dateModified)
                try c.encode(sync, forKey: .sync)
            }
        }
        let image = recipe.image.map {
            Image(sha256: $0.sha256, format: $0.format.rawValue, bytes: $0.byteCount,
                  path: $0.localFileName.map(media.path(of:)))
        }
        return Self.encode(Full(
            id: recipe.id, uuid: recipe.uuid.uuidString.lowercased(), title: recipe.title,
            description: recipe.description, recipeYield: recipe.recipeYield, keywords: recipe.keywords,
            ingredients: recipe.ingredients.map(\.text), steps: recipe.steps.map(\.text), image: image,
            dateModified: ISO8601.string(recipe.dateModified),
            sync: StatusEntry(recipe, media: media, now: now, timeZone: timeZone)))
    }

    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and numbers cannot fail.
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
