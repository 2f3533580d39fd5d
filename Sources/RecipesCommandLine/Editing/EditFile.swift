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

    /// The file's text as the editor left it (or as a person gave it): a regular file (through a link too: the
    /// editor's business), never the home's database (see `DatabaseFiles`), at most `maxBytes`; a refusal ends with
    /// `advice`.
    func read(refusing database: DatabaseFiles, advice: String = " after editing; nothing changed") throws -> String {
        do throws(UserFile.Refusal) {
            return String(decoding: try UserFile.read(path, maxBytes: Self.maxBytes, refusing: database), as: UTF8.self)
        } catch {
            let why: String
            switch error {
            case .notFound: why = "is gone"
            case .notRegular: why = "is no longer a regular file"
            case .databaseFile: why = "is now the home's database (a link to it)"
            case .unreadable(let reason): why = "cannot be read (\(reason))"
            case .tooLarge(let size): why = "is \(size) bytes, more than a recipe card may be (\(Self.maxBytes >> 20) MiB)"
            }
            throw CommandLineError("\(path) \(why)\(advice)")
        }
    }

    /// The largest card read back.
    static let maxBytes: Int64 = 64 << 20

    /// Replaces the file's text (a merged card offered for another round) and the base it now starts from, each put in
    /// place atomically, so that a link the editor left at the card's name is replaced, never followed.
    func replace(with text: String, base: Recipe) throws {
        try Self.put(text, at: path)
        try writeBase(base)
    }

    /// Writes `recipe` as the base beside the card: `# base of recipe <id> at revision <n>`, then its card.
    private func writeBase(_ recipe: Recipe) throws {
        let text = "# base of recipe \(recipe.id) at revision \(recipe.sync.revision)\n"
            + RecipeCard.text(of: RecipeContent(recipe), comments: [
                "The recipe as the card beside this file started from, for `recipes edit \(recipe.id) --from`.",
            ])
        try Self.put(text, at: basePath)
    }

    /// Puts `text` at `path` the way every file is put in place: written under a temporary name beside it and renamed
    /// over it (`AtomicFile`), so that a link left at that name is replaced, never followed.
    private static func put(_ text: String, at path: String) throws {
        do throws(ErrnoError) {
            let file = try AtomicFile(creating: path + ".tmp-\(getpid())", permissions: 0o600)
            try file.write(Array(text.utf8))
            try file.commit(to: path)
        } catch {
            throw CommandLineError("cannot write \(path): \(error.reason); check free space and permissions")
        }
    }

    /// The base kept beside the card, if there is one that reads (a regular file, never the home's database).
    func base(refusing database: DatabaseFiles) -> (revision: Int64, content: RecipeContent)? {
        guard let data = try? UserFile.read(basePath, maxBytes: Self.maxBytes, refusing: database) else { return nil }
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
