import Foundation
import RecipeStore
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The folder of the user's own systemd units, `${XDG_CONFIG_HOME:-~/.config}/systemd/user/`, and the files
/// `recipes service` keeps in it: only files named `recipes-sync….service|.timer` whose first line is the tag of
/// their home are ever overwritten or removed; every other file is left byte for byte.
struct UserUnitFolder {
    /// The folder.
    let url: URL

    /// The folder of the environment's user.
    init(environment: [String: String]) {
        let config: String
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            config = xdg
        } else {
            config = (environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.config"
        }
        url = URL(fileURLWithPath: config).appendingPathComponent("systemd/user")
    }

    /// The path of the unit file `name`.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The unit files written for `home`, by name, with their text.
    func files(ofHome home: String) -> [SystemdUnits.File] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.sorted().compactMap { name in
            guard name.hasPrefix("recipes-sync"), SystemdUnits.suffixes.contains(where: name.hasSuffix),
                let text = Self.text(atPath: path(name)), Self.isTagged(text, home: home)
            else { return nil }
            return SystemdUnits.File(name: name, text: text)
        }
    }

    /// Writes `files` for `home` (each atomically, mode 0644) and removes the other files written for `home` before;
    /// the names of those removed. Refuses, before writing anything, to overwrite a file that is not tagged for `home`.
    func install(_ files: [SystemdUnits.File], home: String) throws(CommandLineError) -> (written: [String], removed: [String]) {
        for file in files {
            var info = stat()
            guard lstat(path(file.name), &info) == 0 else { continue }
            guard (info.st_mode & S_IFMT) == S_IFREG, let text = Self.text(atPath: path(file.name)),
                Self.isTagged(text, home: home)
            else {
                throw CommandLineError(
                    "\(path(file.name)) exists and was not written by `recipes service` for \(home); move it away, then install again")
            }
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw CommandLineError("cannot create \(url.path): \(ExternalProgram.describe(error))")
        }
        let before = self.files(ofHome: home)
        var written: [String] = []
        for file in files where before.first(where: { $0.name == file.name }) != file {
            try write(file)
            written.append(file.name)
        }
        let stale = before.map(\.name).filter { name in !files.contains { $0.name == name } }
        for name in stale { try remove(name) }
        return (written, stale)
    }

    /// Removes every file written for `home`; their names.
    func uninstall(home: String) throws(CommandLineError) -> [String] {
        let names = files(ofHome: home).map(\.name)
        for name in names { try remove(name) }
        return names
    }

    /// Writes `file` through a temporary file renamed over its name, flushed to disk.
    private func write(_ file: SystemdUnits.File) throws(CommandLineError) {
        let temporary = path(".\(file.name).\(getpid()).tmp")
        unlink(temporary)  // left by an earlier process with this id that stopped mid-write
        do throws(ErrnoError) {
            let atomic = try AtomicFile(creating: temporary, permissions: 0o644)
            try atomic.write(Array(file.text.utf8))
            try atomic.commit(to: path(file.name), flushing: [.file, .folder])
        } catch {
            throw CommandLineError("cannot write \(path(file.name)): \(error.reason); check free space and permissions")
        }
    }

    private func remove(_ name: String) throws(CommandLineError) {
        guard unlink(path(name)) == 0 || errno == ENOENT else {
            throw CommandLineError("cannot remove \(path(name)): \(ErrnoError.describe(errno))")
        }
    }

    /// Whether `text` starts with the tag line of `home`.
    static func isTagged(_ text: String, home: String) -> Bool {
        text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            == SystemdUnits.tag(home: home)
    }

    /// The text of a small regular file at `path` (unit files are), nil for anything else.
    static func text(atPath path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size < 1 << 20,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
