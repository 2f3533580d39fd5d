import Foundation
import RecipeModels
import RecipeStore
import RecipeSync

/// Renders recipes for `list`, `show` and `status`, as text for people and as JSON for programs.
///
/// The text shows every value through `TerminalText.clean`: a title, an ingredient or a server's message can hold
/// anything that was typed or received, and an escape sequence in one must not reach the terminal. The JSON is exact.
public struct RecipeFormatter: Sendable {
    /// The media folder, to show local image paths.
    var media: MediaLibrary
    /// The images folder, where the images of synced recipes are.
    var images: ImageLibrary
    /// The present moment, which decides derived states such as a lapsed backoff.
    var now: Date
    /// The zone clock times are shown in.
    var timeZone: TimeZone

    /// Whether the process named by a lease owner still runs: a lease of a process that is gone (`kill -9`) is not
    /// shown as uploading, even before it lapses.
    var isLeaseOwnerAlive: @Sendable (String) -> Bool
    /// The words of the commands the text advises (`recipes sync 3` at a shell, `sync 3` in the REPL); the JSON
    /// always speaks a shell's.
    var dialect: CommandDialect = .shell

    /// Creates a formatter.
    public init(
        media: MediaLibrary, images: ImageLibrary, now: Date, timeZone: TimeZone = .current,
        isLeaseOwnerAlive: @escaping @Sendable (String) -> Bool = LeaseOwner.isAlive
    ) {
        self.media = media
        self.images = images
        self.now = now
        self.timeZone = timeZone
        self.isLeaseOwnerAlive = isLeaseOwnerAlive
    }

    /// Creates the formatter of `store`'s home.
    public init(store: RecipeStore, now: Date) {
        self.init(media: store.media, images: store.images, now: now)
    }

    /// Where this home keeps the bytes of `image`: its media copy when it has one, else its file in `images/` when
    /// that exists; nil otherwise.
    func imagePath(of image: ImageReference?) -> String? {
        Self.imagePath(of: image, media: media, images: images)
    }

    /// Where the home of `media` and `images` keeps the bytes of `image` (see the instance method).
    static func imagePath(of image: ImageReference?, media: MediaLibrary, images: ImageLibrary) -> String? {
        guard let image else { return nil }
        if let file = image.localFileName { return media.path(of: file) }
        let path = images.path(of: ImageReference.fileName(sha256: image.sha256, format: image.format))
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// `recipe` with its lease dropped when the process holding it is gone.
    func withoutDeadLease(_ recipe: Recipe) -> Recipe {
        var recipe = recipe
        recipe.sync = recipe.sync.droppingLease(unless: isLeaseOwnerAlive)
        return recipe
    }

    // MARK: Text

    /// `list`: a header and one row per recipe (id, state, revision, title).
    public func list(_ recipes: [Recipe]) -> String {
        let recipes = recipes.map(withoutDeadLease)
        guard !recipes.isEmpty else { return "no recipes yet; create one with `new <title>`\n" }
        let rows = recipes.map { recipe in
            [String(recipe.id), recipe.sync.effectiveState(at: now).rawValue, String(recipe.sync.revision), recipe.title]
        }
        return Self.table(header: ["ID", "STATE", "REV", "TITLE"], rows: rows)
    }

    /// `status`: a header and one row per recipe: its id, the start of its uuid (the name every device shares), its
    /// state, its local revision, the server's version its draft is based on (`-` when the server has never had it),
    /// its title and why it is not on the server yet.
    public func status(_ recipes: [Recipe]) -> String {
        let recipes = recipes.map(withoutDeadLease)
        guard !recipes.isEmpty else { return "no recipes yet; create one with `new <title>`\n" }
        let rows = recipes.map { recipe in
            [
                String(recipe.id), Self.shortUUID(recipe.uuid), recipe.sync.effectiveState(at: now).rawValue,
                String(recipe.sync.revision), recipe.sync.serverVersion.map(String.init) ?? "-", recipe.title,
                BlockedReason.describe(recipe.sync, id: recipe.id, at: now, timeZone: timeZone, dialect: dialect) ?? "",
            ]
        }
        return Self.table(header: ["ID", "UUID", "STATE", "REV", "SERVER", "TITLE", "WHY NOT SYNCED"], rows: rows)
    }

    /// The first 8 hexadecimal digits of `uuid`: what `status` shows, and enough to name the recipe on any device
    /// (a command given a prefix two recipes share says so and lists them).
    static func shortUUID(_ uuid: UUID) -> String { String(uuid.lowercasedString.prefix(8)) }

    /// `show`: every field, the image and the sync state.
    public func show(_ recipe: Recipe) -> String {
        let recipe = withoutDeadLease(recipe)
        var lines: [String] = []
        let indent = String(repeating: " ", count: 14)
        func field(_ name: String, _ value: String) {
            lines.append((name + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + TerminalText.clean(value))
        }
        // The lines of a value that may hold several (a description, a step), each cleaned.
        func textLines(_ text: String) -> [String] {
            text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { TerminalText.clean(String($0)) }
        }
        field("id", String(recipe.id))
        field("uuid", recipe.uuid.lowercasedString)
        field("title", recipe.title)
        let description = textLines(recipe.description)
        field("description", description[0])
        for line in description.dropFirst() { lines.append(indent + line) }
        field("yield", recipe.recipeYield)
        field("keywords", recipe.keywords)
        if let image = recipe.image {
            field("image", "\(image.format.rawValue), \(image.byteCount) bytes, sha256 \(image.sha256)")
            if let path = imagePath(of: image) { lines.append(indent + TerminalText.clean(path)) }
        } else {
            field("image", "none")
        }
        field("ingredients", recipe.ingredients.isEmpty ? "none" : "")
        for (index, ingredient) in recipe.ingredients.enumerated() {
            lines.append("  \(index + 1). \(TerminalText.clean(ingredient.text))")
        }
        field("steps", recipe.steps.isEmpty ? "none" : "")
        for (index, step) in recipe.steps.enumerated() {
            let number = "  \(index + 1). "
            let text = textLines(step.text)
            lines.append(number + text[0])
            for line in text.dropFirst() { lines.append(String(repeating: " ", count: number.count) + line) }
        }
        field("state", recipe.sync.effectiveState(at: now).rawValue)
        field("revision", "\(recipe.sync.revision) (on this device)")
        field("server", recipe.sync.serverVersion.map { "version \($0)" } ?? "none yet")
        field("attempts", String(recipe.sync.attempts))
        if let next = recipe.sync.nextAttemptAt { field("next attempt", ISO8601.string(next)) }
        if let error = recipe.sync.lastError { field("last error", error) }
        if let remote = recipe.sync.remoteImageURL { field("server image", remote) }
        field("modified", ISO8601.string(recipe.dateModified))
        if let blocked = BlockedReason.describe(recipe.sync, id: recipe.id, at: now, timeZone: timeZone, dialect: dialect) {
            field("blocked", blocked)
        }
        if let conflict = recipe.sync.conflict {
            field("conflicts", conflict.summary)
            for line in ConflictText.lines(conflict) { lines.append("  " + line) }
        }
        return lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n") + "\n"
    }

    /// Left-aligned columns separated by two spaces, each cell cleaned and measured in terminal columns; the last
    /// column is not padded.
    static func table(header: [String], rows: [[String]]) -> String {
        TextTable.render(header: header, rows: rows.map { $0.map(TableCell.init) })
    }

    // MARK: JSON

    /// `status --json`: an array of objects with exactly the contract's keys.
    public func statusJSON(_ recipes: [Recipe]) -> String {
        let recipes = recipes.map(withoutDeadLease)
        var writer = JSONWriter()
        writer.array(recipes) { writer, recipe in
            StatusEntry(recipe, image: imagePath(of: recipe.image), now: now, timeZone: timeZone).write(to: &writer)
        }
        return writer.text + "\n"
    }

    /// `list --json`: an array of `{id, uuid, title, state, revision}`.
    public func listJSON(_ recipes: [Recipe]) -> String {
        let recipes = recipes.map(withoutDeadLease)
        var writer = JSONWriter()
        writer.array(recipes) { writer, recipe in
            writer.object([
                "id": .integer(recipe.id), "uuid": .string(recipe.uuid.lowercasedString),
                "title": .string(recipe.title), "state": .string(recipe.sync.effectiveState(at: now).rawValue),
                "revision": .integer(recipe.sync.revision),
            ])
        }
        return writer.text + "\n"
    }

    /// `show --json`: every field of one recipe, with its status entry under `sync` (whose `conflicts` hold both
    /// values of each conflicting field).
    public func showJSON(_ recipe: Recipe) -> String {
        let recipe = withoutDeadLease(recipe)
        var image = JSONWriter()
        if let reference = recipe.image {
            image.object([
                "sha256": .string(reference.sha256), "format": .string(reference.format.rawValue),
                "bytes": .integer(reference.byteCount), "path": .string(imagePath(of: reference)),
            ])
        }
        var sync = JSONWriter()
        StatusEntry(recipe, image: imagePath(of: recipe.image), now: now, timeZone: timeZone).write(to: &sync)
        var writer = JSONWriter()
        writer.object([
            "id": .integer(recipe.id), "uuid": .string(recipe.uuid.lowercasedString),
            "title": .string(recipe.title), "description": .string(recipe.description),
            "recipeYield": .string(recipe.recipeYield), "keywords": .string(recipe.keywords),
            "ingredients": .raw(Self.stringArray(recipe.ingredients.map(\.text))),
            "steps": .raw(Self.stringArray(recipe.steps.map(\.text))),
            "image": .raw(recipe.image == nil ? "null" : image.text),
            "dateModified": .string(ISO8601.string(recipe.dateModified)), "sync": .raw(sync.text),
        ])
        return writer.text + "\n"
    }

    static func stringArray(_ strings: [String]) -> String {
        "[" + strings.map(JSONWriter.quoted).joined(separator: ",") + "]"
    }
}
