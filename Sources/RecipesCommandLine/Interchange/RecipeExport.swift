import Foundation
import RecipeModels
import RecipeStore
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// `recipes export` and the REPL's `export`: recipes as schema.org JSON-LD, one array on standard output or one file
/// per recipe in a folder with the local image copied beside it — what `recipes import` reads back into the same
/// recipes.
struct RecipeExport {
    let store: RecipeStore

    /// The recipes to export: `ids` in that order, else every recipe not deleted, in id order.
    func recipes(_ ids: [Int64]) throws -> [Recipe] {
        let chosen = ids.isEmpty ? try store.recipes().filter { $0.sync.state != .deleting } : try store.recipes(ids: ids)
        return try chosen.map { recipe in
            if recipe.sync.state == .deleting { throw StoreError(.recipeDeleted(id: recipe.id)) }
            return try store.recipe(id: recipe.id)
        }
    }

    /// One JSON array of `recipes`; a local image is referred to by its media copy's `file:` URL, else the server's
    /// (or an imported page's) image URL.
    func array(_ recipes: [Recipe]) -> Data {
        RecipeJSONLD.encode(recipes.map { recipe in
            let image = localImagePath(recipe).map { URL(fileURLWithPath: $0).absoluteString } ?? recipe.sync.remoteImageURL
            return object(recipe, image: image)
        })
    }

    /// Writes one `<id>-<title>.json` per recipe into `folder` (created when missing), a local image beside it as
    /// `<id>-<title>.<ext>`; returns the paths of the JSON files.
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
            let path = folder + "/" + stem + ".json"
            do {
                try RecipeJSONLD.encode(object(recipe, image: image)).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw CommandLineError("cannot write \(path): \(error.localizedDescription); check free space and permissions")
            }
            return path
        }
    }

    private func object(_ recipe: Recipe, image: String?) -> [String: Any] {
        RecipeJSONLD.object(
            RecipeContent(recipe), identifier: recipe.uuid.lowercasedString,
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

    /// A file-name-safe form of a title: lower-case letters and digits joined by single dashes, at most 50.
    static func slug(_ title: String) -> String {
        var slug = ""
        for scalar in title.lowercased().unicodeScalars {
            if scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)) {
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
