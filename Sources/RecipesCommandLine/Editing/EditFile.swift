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

    /// The file's text as the editor left it: a regular file (through a link too: the editor's business), never the
    /// home's database (see `DatabaseFiles`), at most `maxBytes`.
    func read(refusing database: DatabaseFiles) throws -> String {
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
            throw CommandLineError("\(path) \(why) after editing; nothing changed")
        }
    }

    /// The largest card read back.
    static let maxBytes: Int64 = 64 << 20

    /// Replaces the file's text (a merged card offered for another round) the way every file is put in place: written
    /// under a temporary name beside it and renamed over it (`AtomicFile`), so that a link the editor left at the
    /// card's name is replaced, never followed.
    func replace(with text: String) throws {
        do throws(ErrnoError) {
            let file = try AtomicFile(creating: path + ".tmp-\(getpid())", permissions: 0o600)
            try file.write(Array(text.utf8))
            try file.commit(to: path)
        } catch {
            throw CommandLineError("cannot write \(path): \(error.reason); check free space and permissions")
        }
    }

    /// Removes the file: its text is applied, or was never changed.
    func remove() { unlink(path) }
}
