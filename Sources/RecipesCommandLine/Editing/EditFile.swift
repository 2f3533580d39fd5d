import Foundation
import RecipeModels
import RecipeStore
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The file a recipe card is edited in: `<home>/edits/recipe-<id>-<time>.txt`, mode 0600 in a 0700 folder. It is
/// removed once the edit is applied or abandoned unchanged, and kept — its path printed — whenever the person's text
/// could not be applied, so that nothing they typed is lost.
///
/// Beside it, `<file>.base` holds the recipe the card started from (its fields as a card, its revision on the first
/// line), so that `recipes edit <id> --from <file>` can merge a kept card three ways as the editor's own save does.
struct EditFile {
    /// The file's path.
    let path: String

    /// The path of the base kept beside the card.
    var basePath: String { path + ".base" }

    /// Creates a new file for recipe `id` holding `text`, the card of `base` (which is kept beside it).
    static func create(in home: RecipesHome, id: Int64, text: String, base: Recipe, now: Date = Date()) throws -> EditFile {
        let folder = home.url.appendingPathComponent("edits").path
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw CommandLineError("cannot create \(folder): \(ErrnoError.describe(errno)); check the home's permissions")
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stem = "\(folder)/recipe-\(id)-\(formatter.string(from: now))"
        for attempt in 1...100 {
            let path = stem + (attempt == 1 ? "" : "-\(attempt)") + ".txt"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw CommandLineError("cannot create \(path): \(ErrnoError.describe(errno)); check free space and permissions")
            }
            defer { close(fd) }
            var bytes = Array(text.utf8)
            let written = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == bytes.count else {
                unlink(path)
                throw CommandLineError("cannot write \(path); check free space")
            }
            let file = EditFile(path: path)
            try file.writeBase(base)
            return file
        }
        throw CommandLineError("cannot find a free name for \(stem).txt; clean up \(folder)")
    }

    /// The file's text as the editor left it.
    func read() throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineError("\(path) is gone or unreadable after editing; nothing changed")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Replaces the file's text (a merged card offered for another round) and the base it now starts from.
    func replace(with text: String, base: Recipe) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CommandLineError("cannot write \(path): \(error.localizedDescription)")
        }
        try writeBase(base)
    }

    /// Writes `recipe` as the base beside the card: `# base of recipe <id> at revision <n>`, then its card.
    private func writeBase(_ recipe: Recipe) throws {
        let text = "# base of recipe \(recipe.id) at revision \(recipe.sync.revision)\n"
            + RecipeCard.text(of: RecipeContent(recipe), comments: [
                "The recipe as the card beside this file started from, for `recipes edit \(recipe.id) --from`.",
            ])
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: basePath))
        } catch {
            throw CommandLineError("cannot write \(basePath): \(error.localizedDescription)")
        }
        chmod(basePath, 0o600)
    }

    /// The base kept beside the card, if there is one that reads.
    func base() -> (revision: Int64, content: RecipeContent)? {
        guard let data = FileManager.default.contents(atPath: basePath) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let first = text.split(separator: "\n", maxSplits: 1).first,
            let match = first.firstMatch(of: #/^# base of recipe \d+ at revision (\d+)$/#),
            let revision = Int64(match.output.1),
            let content = try? RecipeCard.parse(text)
        else { return nil }
        return (revision, content)
    }

    /// Whether the card is one recipes wrote into `home`'s `edits/` folder (and may therefore remove once applied).
    func isIn(_ home: RecipesHome) -> Bool {
        let folder = home.url.appendingPathComponent("edits").standardizedFileURL.path
        return URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path == folder
    }

    /// Removes the file and its base: its text is applied, or was never changed.
    func remove() {
        unlink(path)
        unlink(basePath)
    }
}
