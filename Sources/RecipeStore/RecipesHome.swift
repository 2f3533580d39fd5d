import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The folder that holds all of one user's client state, and the paths inside it.
///
/// Resolved from `--home`, then `$RECIPES_HOME`, then `${XDG_DATA_HOME:-~/.local/share}/recipes`.
public struct RecipesHome: Sendable, Equatable {
    /// The home folder itself.
    public var url: URL
    /// Whether the folder was named explicitly (`--home` or `RECIPES_HOME`), which also moves the config file into it.
    public var isExplicit: Bool

    /// Creates a home at `url`.
    public init(url: URL, isExplicit: Bool) {
        self.url = url.standardizedFileURL
        self.isExplicit = isExplicit
    }

    /// Resolves the home from an explicit `--home` value and the environment.
    public static func resolve(option: String?, environment: [String: String]) -> RecipesHome {
        if let option, !option.isEmpty {
            return RecipesHome(url: URL(fileURLWithPath: expandTilde(option, environment)), isExplicit: true)
        }
        if let home = environment["RECIPES_HOME"], !home.isEmpty {
            return RecipesHome(url: URL(fileURLWithPath: expandTilde(home, environment)), isExplicit: true)
        }
        let data: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            data = xdg
        } else {
            data = userHome(environment) + "/.local/share"
        }
        return RecipesHome(url: URL(fileURLWithPath: data).appendingPathComponent("recipes"), isExplicit: false)
    }

    /// The SQLite database, `<home>/recipes.sqlite3`.
    public var databaseURL: URL { url.appendingPathComponent("recipes.sqlite3") }
    /// Local copies of attached images not yet on the server.
    public var mediaURL: URL { url.appendingPathComponent("media") }
    /// JSON payloads being uploaded.
    public var outboxURL: URL { url.appendingPathComponent("outbox") }
    /// Images of synced recipes, `<sha256>.<ext>` (written by two-way sync's pulls).
    public var imagesURL: URL { url.appendingPathComponent("images") }
    /// Logs of background runs.
    public var logsURL: URL { url.appendingPathComponent("logs") }
    /// The REPL's line history.
    public var historyURL: URL { url.appendingPathComponent("history") }
    /// The FIFO through which every committed edit wakes `recipes sync --watch` (made by the watcher; see `EditSignal`).
    public var editSignalURL: URL { url.appendingPathComponent("watch.fifo") }
    /// The file `recipes sync --watch` holds an exclusive `flock` on while it runs, with its process id inside.
    public var watchLockURL: URL { url.appendingPathComponent("watch.lock") }

    /// The folders recipes writes its own files into and deletes them from; none may be a symbolic link.
    public var ownFolders: [URL] { [mediaURL, outboxURL, imagesURL] }

    /// Creates the home and its folders when missing (mode 0700 for the home); refuses a `media/`, `outbox/` or
    /// `images/` that is a symbolic link or not a folder (`StoreError.Kind.symlinkedFolder`), before creating anything.
    public func createDirectories() throws(StoreError) {
        for folder in ownFolders { try HomeFolder.check(folder.path) }
        try Self.makeDirectory(url.path, mode: 0o700)
        for sub in [mediaURL, outboxURL] { try Self.makeDirectory(sub.path, mode: 0o755) }
        try Self.makeDirectory(logsURL.path, mode: 0o700)  // what background runs did, for this user only
    }

    /// `mkdir -p` with a message that names the path and the reason (`errno`), and what to do.
    static func makeDirectory(_ path: String, mode: mode_t) throws(StoreError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw StoreError(.notAFolder(path: path))
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeDirectory(parent, mode: 0o755) }
        if mkdir(path, mode) != 0 && errno != EEXIST {
            throw StoreError(ErrnoError(errno, .makeFolder, path: path))
        }
    }

    /// The user's home directory from `$HOME`, else the password database.
    static func userHome(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        return NSHomeDirectory()
    }

    static func expandTilde(_ path: String, _ environment: [String: String]) -> String {
        if path == "~" { return userHome(environment) }
        if path.hasPrefix("~/") { return userHome(environment) + path.dropFirst() }
        return path
    }
}
