import Archives
import Foundation
import RecipeModels

/// Paprika's export: a `.paprikarecipes` file is a zip archive of `.paprikarecipe` entries, each one recipe as a gzip'd
/// JSON object (read by `PaprikaRecipe`); a single `.paprikarecipe` is one such gzip'd recipe.
///
/// The archive is read in memory and every recipe is unpacked and read before anything is written; what it may
/// unpack to is bounded (each recipe, and all of them together), so that a zip bomb is refused with a message rather
/// than filling the memory.
enum PaprikaExport {
    /// The largest export read (Paprika's photos make a few thousand recipes a few hundred MiB).
    static let maxFileBytes = 1 << 30
    /// What one recipe (its JSON, photos included) may unpack to.
    static let maxRecipeBytes = 64 << 20
    /// What a whole export may unpack to.
    static let maxTotalBytes = 4 << 30

    /// Whether an input named `name` holding `data` is Paprika's: by its name, or by its first bytes (a zip archive or
    /// gzip data, which no JSON-LD file or page begins with).
    static func isExport(name: String, data: Data) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".paprikarecipes") || lower.hasSuffix(".paprikarecipe") || ZipArchive.looksLikeZip(data)
            || isGzip(data)
    }

    /// Whether `name` says it is an export, before it is read.
    static func isExportName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".paprikarecipes") || lower.hasSuffix(".paprikarecipe")
    }

    private static func isGzip(_ data: Data) -> Bool { data.starts(with: [0x1F, 0x8B]) }

    /// The recipes of an export (or of one `.paprikarecipe`), in the archive's order.
    static func recipes(in data: Data) throws(ImportError) -> [ImportedRecipe] {
        let again = "; export the recipes from Paprika again"
        if isGzip(data) {
            let json: Data
            do {
                json = try Inflate.gunzip(data, maxBytes: maxRecipeBytes)
            } catch {
                throw ImportError("not a readable Paprika recipe: \(error.message)\(again)")
            }
            return [try PaprikaRecipe.recipe(inJSON: json)]
        }
        guard ZipArchive.looksLikeZip(data) else {
            throw ImportError("not a Paprika export (neither a zip archive nor gzip data)\(again) (File > Export)")
        }
        let archive: ZipArchive
        do {
            archive = try ZipArchive(data, limits: ZipArchive.Limits(entryBytes: maxRecipeBytes, totalBytes: maxTotalBytes))
        } catch {
            throw ImportError("not a readable Paprika export: \(error.message)\(again)")
        }
        let entries = archive.entries.filter { entry in
            !entry.isFolder && entry.name.lowercased().hasSuffix(".paprikarecipe") && !entry.name.hasPrefix("__MACOSX/")
        }
        guard !entries.isEmpty else {
            throw ImportError("a zip archive without .paprikarecipe entries, so not a Paprika export\(again) (File > Export)")
        }
        var recipes: [ImportedRecipe] = []
        var unpacked = 0
        for entry in entries {
            let json: Data
            do throws(ArchiveError) {
                json = try Inflate.gunzip(try archive.contents(of: entry), maxBytes: min(maxRecipeBytes, maxTotalBytes - unpacked))
            } catch {
                throw ImportError("\(entry.name): \(error.message)\(again)")
            }
            unpacked += json.count
            do {
                recipes.append(try PaprikaRecipe.recipe(inJSON: json))
            } catch {
                throw ImportError("\(entry.name): \(error.message)")
            }
        }
        return recipes
    }
}
