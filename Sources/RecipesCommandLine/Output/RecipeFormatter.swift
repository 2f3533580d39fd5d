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
    /// The kind of server the recipes sync with, whose versions the text shows in its words
    /// (`DestinationVersionWords`); the JSON always keeps the numbers.
    var server: ServerKind = .http
    /// Whether a server is set (server.url): without one, what is still to send says to set one first.
    var hasServer = true

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

    /// The words of `version` of the server (`server`'s kind).
    func versionWords(_ version: Int64) -> DestinationVersionWords {
        DestinationVersionWords(version: version, kind: server)
    }

    /// Why `recipe` is not on the server now (`BlockedReason`), in the text's words; nil when it is.
    func blocked(_ recipe: Recipe) -> String? {
        BlockedReason.describe(recipe.sync, id: recipe.id, at: now, timeZone: timeZone, dialect: dialect, hasServer: hasServer) {
            versionWords($0).serversCopy
        }
    }

    /// `recipe` with its lease dropped when the process holding it is gone.
    func withoutDeadLease(_ recipe: Recipe) -> Recipe {
        var recipe = recipe
        recipe.sync = recipe.sync.droppingLease(unless: isLeaseOwnerAlive)
        return recipe
    }

    // MARK: Text

    /// What `list` and `status` say of a home without recipes, in the words of where it is read.
    var noRecipes: String {
        "no recipes yet; create one with " + (dialect == .shell ? "`recipes new <title>`" : "`new <title>`") + "\n"
    }

    /// `list`: a header and one row per recipe (id, state, revision, title); without `revisions` (on a terminal, where
    /// a person reads it) no revision column: it is sync bookkeeping, which `status` shows.
    public func list(_ recipes: [Recipe], revisions: Bool = true) -> String {
        let recipes = recipes.map(withoutDeadLease)
        guard !recipes.isEmpty else { return noRecipes }
        let rows = recipes.map { recipe in
            [String(recipe.id), recipe.sync.effectiveState(at: now).rawValue]
                + (revisions ? [String(recipe.sync.revision)] : []) + [recipe.title]
        }
        return Self.table(header: ["ID", "STATE"] + (revisions ? ["REV"] : []) + ["TITLE"], rows: rows)
    }

    /// `status`: a header and one row per recipe: its id, the start of its uuid (the name every device shares), its
    /// state, its local revision, the server's version its draft is based on (`-` when the server has never had it),
    /// its title and why it is not on the server yet.
    public func status(_ recipes: [Recipe]) -> String {
        let recipes = recipes.map(withoutDeadLease)
        guard !recipes.isEmpty else { return noRecipes }
        let rows = recipes.map { recipe in
            [
                String(recipe.id), Self.shortUUID(recipe.uuid), recipe.sync.effectiveState(at: now).rawValue,
                String(recipe.sync.revision), recipe.sync.serverVersion.map { versionWords($0).value } ?? "-", recipe.title,
                blocked(recipe) ?? "",
            ]
        }
        return Self.table(header: ["ID", "UUID", "STATE", "REV", "SERVER", "TITLE", "WHY NOT SYNCED"], rows: rows)
    }

    /// The first 8 hexadecimal digits of `uuid`: what `status` shows, and enough to name the recipe on any device
    /// (a command given a prefix two recipes share says so and lists them).
    static func shortUUID(_ uuid: UUID) -> String { String(uuid.lowercasedString.prefix(8)) }

    /// The details `show` prints, those that are set, as (name, value): times as `1h 30m`, lists joined by ", ",
    /// diets by their names.
    static func detailLines(_ details: RecipeDetails) -> [(String, String)] {
        var lines: [(String, String)] = []
        for (name, time) in [("prep time", details.prepTime), ("cook time", details.cookTime), ("total time", details.totalTime)]
        where !time.isEmpty {
            lines.append((name, RecipeDuration.display(time)))
        }
        for (name, list) in [("category", details.recipeCategory), ("cuisine", details.recipeCuisine)] where !list.isEmpty {
            lines.append((name, list.joined(separator: ", ")))
        }
        if !details.author.isEmpty { lines.append(("author", details.author)) }
        if !details.url.isEmpty { lines.append(("url", details.url)) }
        if !details.tool.isEmpty { lines.append(("tools", details.tool.joined(separator: ", "))) }
        if !details.suitableForDiet.isEmpty {
            lines.append(("diets", details.suitableForDiet.map(DietName.display).joined(separator: ", ")))
        }
        return lines
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
            StatusEntry(recipe, image: imagePath(of: recipe.image), now: now, timeZone: timeZone, hasServer: hasServer)
                .write(to: &writer)
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

    /// `show --json`: every field of one recipe (the details under their schema.org names, `stepSections` the section
    /// of each step, `properties` the other properties as they came), with its status entry under `sync` (whose
    /// `conflicts` hold both values of each conflicting field); with `scale`, the ingredients and yield scaled and
    /// `scale` the factor.
    public func showJSON(_ recipe: Recipe, scale: Double? = nil, units: UnitSystem? = nil) -> String {
        let recipe = withoutDeadLease(recipe)
        let content = RecipeContent(recipe).shown(scaledBy: scale, in: units)
        var image = JSONWriter()
        if let reference = recipe.image {
            image.object([
                "sha256": .string(reference.sha256), "format": .string(reference.format.rawValue),
                "bytes": .integer(reference.byteCount), "path": .string(imagePath(of: reference)),
            ])
        }
        var sync = JSONWriter()
        StatusEntry(recipe, image: imagePath(of: recipe.image), now: now, timeZone: timeZone, hasServer: hasServer)
            .write(to: &sync)
        var pairs: [(key: String, value: JSONWriter.Value)] = [
            ("id", .integer(recipe.id)), ("uuid", .string(recipe.uuid.lowercasedString)),
            ("title", .string(recipe.title)), ("description", .string(recipe.description)),
            ("recipeYield", .string(content.recipeYield)), ("keywords", .string(recipe.keywords)),
            ("ingredients", .raw(Self.stringArray(content.ingredients))),
            ("steps", .raw(Self.stringArray(content.steps.map(\.text)))),
            ("stepSections", .raw(Self.stringArray(recipe.steps.map(\.section)))),
            ("prepTime", .string(recipe.details.prepTime)), ("cookTime", .string(recipe.details.cookTime)),
            ("totalTime", .string(recipe.details.totalTime)),
            ("recipeCategory", .raw(Self.stringArray(recipe.details.recipeCategory))),
            ("recipeCuisine", .raw(Self.stringArray(recipe.details.recipeCuisine))),
            ("author", .string(recipe.details.author)), ("url", .string(recipe.details.url)),
            ("nutrition", .raw(Self.stringObject(recipe.details.nutrition))),
            ("tool", .raw(Self.stringArray(recipe.details.tool))),
            ("suitableForDiet", .raw(Self.stringArray(recipe.details.suitableForDiet))),
            ("properties", .raw(Self.rawObject(recipe.received.other))),
            ("image", .raw(recipe.image == nil ? "null" : image.text)),
            ("dateModified", .string(ISO8601.string(recipe.dateModified))), ("sync", .raw(sync.text)),
        ]
        if let scale { pairs.append(("scale", .double(scale))) }
        if let units { pairs.append(("units", .string(units.rawValue))) }
        var writer = JSONWriter()
        writer.object(ordered: pairs)
        return writer.text + "\n"
    }

    /// The `measures:` line of `show --units`.
    static func measuresLine(_ units: UnitSystem) -> String {
        (units == .metric ? "metric (grams, millilitres, °C)" : "US (cups, spoons, ounces, pounds, °F)")
            + ": volumes as volumes, weights as weights, oven temperatures too"
    }

    static func stringArray(_ strings: [String]) -> String {
        "[" + strings.map(JSONWriter.quoted).joined(separator: ",") + "]"
    }

    /// Texts by key as a JSON object with sorted keys.
    static func stringObject(_ texts: [String: String]) -> String {
        "{" + texts.sorted { $0.key < $1.key }.map { JSONWriter.quoted($0.key) + ":" + JSONWriter.quoted($0.value) }
            .joined(separator: ",") + "}"
    }

    /// JSON texts by key as one JSON object with sorted keys, each value as it is.
    static func rawObject(_ values: [String: String]) -> String {
        "{" + values.sorted { $0.key < $1.key }.map { JSONWriter.quoted($0.key) + ":" + $0.value }.joined(separator: ",") + "}"
    }
}
