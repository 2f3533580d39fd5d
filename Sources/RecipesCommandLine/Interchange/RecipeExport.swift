import Foundation
import RecipeModels
import RecipeStore
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// What `recipes export` writes.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// schema.org JSON-LD, what `recipes import` reads back.
    case jsonld
    /// A readable Markdown page per recipe.
    case markdown

    /// The extension of a file of this format.
    var fileExtension: String { self == .jsonld ? "json" : "md" }
}

/// `recipes export` and the REPL's `export`: recipes as schema.org JSON-LD (one array on standard output, or one file
/// per recipe in a folder with the local image copied beside it — what `recipes import` reads back into the same
/// recipes, every property kept) or as Markdown pages (`--format markdown`).
struct RecipeExport {
    let store: RecipeStore
    var format: ExportFormat = .jsonld
    /// The quantities scaled (`--servings`, `--scale`), or as kept.
    var request: ScaleRequest?
    /// The measures in this system (`--units`), or as kept.
    var units: UnitSystem?

    /// `recipe`'s fields as exported: its ingredients, yield and steps scaled and converted when asked.
    func fields(_ recipe: Recipe) throws -> RecipeFields {
        var fields = RecipeFields(recipe)
        guard request != nil || units != nil else { return fields }
        let factor = try request.map { request throws in try ScaleOptions.factor(request, of: recipe) }
        let content = fields.content.shown(scaledBy: factor, in: units)
        fields.ingredients = content.ingredients
        fields.recipeYield = content.recipeYield
        fields.steps = content.steps
        return fields
    }

    /// The recipes to export: `ids` in that order, else every recipe not deleted, in id order.
    func recipes(_ ids: [Int64]) throws -> [Recipe] {
        let chosen = ids.isEmpty ? try store.recipes().filter { $0.sync.state != .deleting } : try store.recipes(ids: ids)
        return try chosen.map { recipe in
            if recipe.sync.state == .deleting { throw StoreError(.recipeDeleted(id: recipe.id)) }
            return try store.recipe(id: recipe.id)
        }
    }

    /// `recipes` for standard output: one JSON array, or the Markdown pages one after another separated by a rule; a
    /// local image is referred to by its media copy's `file:` URL, else the server's (or an imported page's) image URL.
    func array(_ recipes: [Recipe]) throws -> Data {
        let images = recipes.map { recipe in
            localImagePath(recipe).map { URL(fileURLWithPath: $0).absoluteString } ?? recipe.sync.remoteImageURL
        }
        if format == .markdown {
            let pages = try zip(recipes, images).map { RecipeMarkdown.page(try fields($0).content, image: $1) }
            return Data(pages.joined(separator: "\n---\n\n").utf8)
        }
        return RecipeJSONLD.encode(try zip(recipes, images).map { try document($0, image: $1) })
    }

    /// Writes one `<id>-<title>.json` (or `.md`) per recipe into `folder` (created when missing), a local image beside
    /// it as `<id>-<title>.<ext>`; returns the paths of the files written.
    func write(_ recipes: [Recipe], to folder: String) throws -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CommandLineError("cannot create \(folder): \(error.localizedDescription); check the path")
        }
        return try recipes.map { recipe in
            let stem = "\(recipe.id)-\(Self.slug(recipe.title))"
            var image = recipe.sync.remoteImageURL
            if let source = localImagePath(recipe), let format = recipe.image?.format {
                let name = stem + "." + format.fileExtension
                try copy(source, to: folder + "/" + name)
                image = name
            }
            let path = folder + "/" + stem + "." + format.fileExtension
            let data = format == .markdown
                ? Data(RecipeMarkdown.page(try fields(recipe).content, image: image).utf8)
                : RecipeJSONLD.encode(try document(recipe, image: image))
            do {
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw CommandLineError("cannot write \(path): \(error.localizedDescription); check free space and permissions")
            }
            return path
        }
    }

    /// The JSON-LD document of `recipe`: every field and every property it arrived with (see `RecipeJSONLD.document`).
    private func document(_ recipe: Recipe, image: String?) throws -> [JSONMember] {
        RecipeJSONLD.document(
            try fields(recipe), identifier: recipe.uuid.lowercasedString,
            dateModified: ISO8601.string(recipe.dateModified), image: image)
    }

    /// Where this home keeps the bytes of `recipe`'s image, when it has them: the media copy, else the file in
    /// `images/` (see `RecipeFormatter.imagePath`).
    private func localImagePath(_ recipe: Recipe) -> String? {
        let path = RecipeFormatter.imagePath(of: recipe.image, media: store.media, images: store.images)
        return path.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
    }

    private func copy(_ source: String, to destination: String) throws {
        let temporary = destination + ".tmp-\(getpid())"
        do {
            try? FileManager.default.removeItem(atPath: temporary)
            try FileManager.default.copyItem(atPath: source, toPath: temporary)
            guard rename(temporary, destination) == 0 else {
                throw CommandLineError(ErrnoError.describe(errno))
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CommandLineError("cannot write \(destination): \(error.localizedDescription); check free space and permissions")
        }
    }

    /// A file-name-safe form of a title: lower-case letters (accents folded: `Crème brûlée` is `creme-brulee`; letters
    /// of other scripts kept) and digits joined by single dashes, at most 50.
    static func slug(_ title: String) -> String {
        var slug = ""
        let folded = title.folding(options: .diacriticInsensitive, locale: nil).lowercased()
        for scalar in folded.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar), scalar.properties.generalCategory != .nonspacingMark {
                slug.unicodeScalars.append(scalar)
            } else if !slug.hasSuffix("-") {
                slug += "-"
            }
            if slug.count >= 50 { break }
        }
        let trimmed = slug.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return trimmed.isEmpty ? "recipe" : trimmed
    }
}
