import Foundation
import RecipeModels
import RecipeStore

/// `recipes import` and the REPL's `import`: schema.org JSON-LD files and saved recipe pages become new recipes.
///
/// Each file is all or nothing: it is read and checked, the images it refers to on this machine are copied into the
/// media folder, and its recipes are created in one transaction; a file that fails is reported by name with the reason
/// and leaves no trace, and the next file is imported all the same.
struct RecipeImport {
    let store: RecipeStore
    let maxImageBytes: Int64
    /// Where relative paths of standard input's images are taken from.
    let workingDirectory: String
    /// Reads standard input, for the file `-`.
    let readStandardInput: () -> Data

    /// Files larger than this are refused rather than read (a recipe page is rarely over a few MiB).
    static let maxFileBytes = 64 << 20

    /// What became of one file.
    enum Outcome {
        /// Its recipes were created (or, with `--dry-run`, would be).
        case imported([String])
        /// It failed; the message names the file and the reason.
        case failed(String)
    }

    /// Imports each of `paths` (`-` is standard input); returns one outcome per file, in order.
    func run(_ paths: [String], dryRun: Bool) -> [Outcome] {
        paths.map { path in
            let name = path == "-" ? "standard input" : path
            do {
                return .imported(try importFile(path, dryRun: dryRun))
            } catch {
                let message = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
                return .failed("\(name): \(message); nothing of it was imported")
            }
        }
    }

    private func importFile(_ path: String, dryRun: Bool) throws -> [String] {
        let data = try read(path)
        let recipes: [ImportedRecipe]
        do {
            recipes = try RecipeJSONLD.recipes(inFile: data)
        } catch {
            throw CommandLineError(error.message)
        }
        let folder = path == "-" ? workingDirectory : URL(fileURLWithPath: path).deletingLastPathComponent().path
        var staged: [StagedImage] = []
        var news: [RecipeStore.NewRecipe] = []
        do {
            for recipe in recipes {
                var new = RecipeStore.NewRecipe(content: recipe.content)
                switch recipe.image {
                case .local(let reference):
                    let imagePath = reference.hasPrefix("/") ? reference : folder + "/" + reference
                    do {
                        if dryRun {
                            try Self.checkReadable(imagePath)
                        } else {
                            let image = try store.media.stage(from: imagePath, maxBytes: maxImageBytes)
                            staged.append(image)
                            new.image = image
                        }
                    } catch {
                        let message = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
                        throw CommandLineError("the image of \"\(recipe.content.title)\": \(message)")
                    }
                case .remote(let url):
                    new.remoteImageURL = url
                case nil:
                    break
                }
                news.append(new)
            }
        } catch {
            staged.forEach(store.media.discard)
            throw error
        }
        if dryRun {
            return recipes.map { "would import: " + Self.describe($0, from: folder) }
        }
        return try store.create(news).map { "imported \($0.id): \($0.title)" }
    }

    /// The bytes of `path`, or of standard input for `-`. Only a regular file is read (a named pipe would hold the
    /// import, a device could be anything), and never the home's database (see `DatabaseFiles`).
    private func read(_ path: String) throws -> Data {
        if path == "-" { return readStandardInput() }
        do throws(UserFile.Refusal) {
            return try UserFile.read(path, maxBytes: Int64(Self.maxFileBytes), refusing: DatabaseFiles(home: store.home))
        } catch {
            switch error {
            case .notFound: throw CommandLineError("no such file; check the path")
            case .notRegular(.folder): throw CommandLineError("a folder; give the files in it (e.g. DIR/*.json)")
            case .notRegular: throw CommandLineError("not a regular file (a named pipe, a socket or a device); save it to a file first")
            case .databaseFile: throw CommandLineError("this home's database (or one of its files), not a recipe file")
            case .unreadable(let reason): throw CommandLineError("cannot read it: \(reason); check its permissions")
            case .tooLarge(let size):
                throw CommandLineError("\(size) bytes, over the \(Self.maxFileBytes >> 20) MiB a recipe file may have")
            }
        }
    }

    /// Whether an image file a dry run would copy is there and readable (its bytes are checked by the real import).
    private static func checkReadable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw StoreError(.imageNotFound(path: path))
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError(.imageUnreadable(path: path, detail: "permission denied"))
        }
    }

    /// `"Tomato soup" (5 ingredients, 3 steps, image https://…)`.
    static func describe(_ recipe: ImportedRecipe, from folder: String) -> String {
        let content = recipe.content
        var parts = [
            "\(content.ingredients.count) ingredient\(content.ingredients.count == 1 ? "" : "s")",
            "\(content.steps.count) step\(content.steps.count == 1 ? "" : "s")",
        ]
        switch recipe.image {
        case .local(let path): parts.append("image " + (path.hasPrefix("/") ? path : folder + "/" + path))
        case .remote(let url): parts.append("image " + url)
        case nil: break
        }
        return "\(TerminalText.clean(content.title)) (\(parts.joined(separator: ", ")))"
    }
}
