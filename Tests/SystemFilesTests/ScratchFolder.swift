import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A new, empty folder under the system's temporary folder, removed with everything in it when released.
final class ScratchFolder {
    /// The folder's path.
    let root: String

    init() throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/system-files.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        root = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// The path of `name` in the folder.
    func path(_ name: String) -> String { root + "/" + name }

    /// The names in the folder, sorted.
    func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted() }

    /// The bytes of the file `name`.
    func contents(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }

    /// The permission bits of `name`.
    func mode(_ name: String) -> mode_t {
        var info = stat()
        return stat(path(name), &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    /// The inode of `name` (0 when it is missing).
    func inode(_ name: String) -> UInt {
        var info = stat()
        return stat(path(name), &info) == 0 ? UInt(info.st_ino) : 0
    }

    /// The process's umask, as `/proc/self/status` shows it (setting it to read it would race with other tests).
    var umask: mode_t {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        return line.flatMap { mode_t($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) } ?? 0o022
    }
}
