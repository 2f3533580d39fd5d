import Foundation
import RecipeStore
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The file a recipe card is edited in: `<home>/edits/recipe-<id>-<time>.txt`, mode 0600 in a 0700 folder. It is
/// removed once the edit is applied or abandoned unchanged, and kept — its path printed — whenever the person's text
/// could not be applied, so that nothing they typed is lost.
struct EditFile {
    /// The file's path.
    let path: String

    /// Creates a new file for recipe `id` holding `text`.
    static func create(in home: RecipesHome, id: Int64, text: String, now: Date = Date()) throws -> EditFile {
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
            return EditFile(path: path)
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

    /// Replaces the file's text (a merged card offered for another round).
    func replace(with text: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CommandLineError("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Removes the file: its text is applied, or was never changed.
    func remove() { unlink(path) }
}
