import Foundation
import RecipeModels
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// One of the folders of a home that `recipes` writes its own files into and deletes them from (`media/`,
/// `outbox/`, `images/`), opened without following a symbolic link.
///
/// Every name is then looked up relative to the open folder (`openat`, `unlinkat`, `fstatat`), so a link put in
/// place of the folder, or of a file inside it, never leads a deletion out of the home: a folder that is a link is
/// refused (`StoreError.Kind.symlinkedFolder`), and removing an entry that is a link removes only the link.
final class HomeFolder {
    /// One entry of the folder, as `readdir` (or, when it cannot tell, `lstat`) sees it.
    struct Entry: Equatable {
        /// The entry's name.
        var name: String
        /// Whether it is a regular file (not a link, folder, pipe or socket).
        var isRegularFile: Bool
    }

    /// The folder's path, for messages.
    let path: String
    /// The open folder (`O_DIRECTORY | O_NOFOLLOW`); closed in `deinit`.
    let descriptor: Int32

    /// Opens the folder at `path`; nil when it does not exist. Throws when it is a symbolic link or not a folder.
    static func open(_ path: String) throws(StoreError) -> HomeFolder? {
        let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw refusal(path, errno: code)
        }
        return HomeFolder(path: path, descriptor: descriptor)
    }

    /// Refuses `path` when it exists and is a symbolic link (to anything) or not a folder; a missing path passes.
    static func check(_ path: String) throws(StoreError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFLNK { throw symlinkRefusal(path) }
        if (info.st_mode & S_IFMT) != S_IFDIR { throw StoreError(.notAFolder(path: path)) }
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The error for a folder that `open(2)` refused with `code`.
    private static func refusal(_ path: String, errno code: Int32) -> StoreError {
        var info = stat()
        if lstat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFLNK { return symlinkRefusal(path) }
            if (info.st_mode & S_IFMT) != S_IFDIR { return StoreError(.notAFolder(path: path)) }
        }
        return StoreError(ErrnoError(code, .open, path: path))
    }

    /// The refusal of the link at `path`, naming where it leads.
    private static func symlinkRefusal(_ path: String) -> StoreError {
        let destination = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "another place"
        return StoreError(.symlinkedFolder(path: path, destination: destination))
    }

    /// Every entry but `.` and `..`, in no particular order.
    func entries() throws(StoreError) -> [Entry] {
        // `fdopendir` takes the descriptor over (closedir closes it): give it a copy, positioned at the start.
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else { throw StoreError(ErrnoError(errno, .list, path: path)) }
        defer { closedir(stream) }
        rewinddir(stream)
        var entries: [Entry] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            let type = Int(entry.pointee.d_type)
            let isRegular = type == DT_UNKNOWN ? fileType(of: name) == S_IFREG : type == DT_REG
            entries.append(Entry(name: name, isRegularFile: isRegular))
        }
        return entries
    }

    /// The `S_IFMT` bits of entry `name` (a link is a link), or nil when it is gone.
    func fileType(of name: String) -> mode_t? {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    /// When entry `name` was last modified (a link's own time), or nil when it is gone.
    func modificationTime(of name: String) -> TimeInterval? {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return TimeInterval(info.st_mtim.tv_sec)
    }

    /// Removes entry `name` (a link itself, never what it points to); true when it was removed.
    @discardableResult
    func remove(_ name: String) -> Bool { unlinkat(descriptor, name, 0) == 0 }
}

/// The names `recipes` itself gives the files of its folders: what garbage collection may delete, and what
/// `status` does not report as foreign.
enum OwnFileNames {
    /// Whether `name` is a media copy's or a downloaded image's name: `<sha256>.<ext>` (64 lower-case hex digits,
    /// and the extension of a format recipes accepts).
    static func isImageCopy(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count > 65, let dot = utf8.firstIndex(of: UInt8(ascii: ".")),
            utf8.distance(from: utf8.startIndex, to: dot) == 64, utf8[..<dot].allSatisfy(isLowerHex)
        else { return false }
        let ext = String(decoding: utf8[utf8.index(after: dot)...], as: UTF8.self)
        return ImageFormat.allCases.contains { $0.fileExtension == ext }
    }

    /// Whether `name` is an outbox file's name: `<uuid>-<revision>.json` (the UUID in lower case).
    static func isOutboxFile(_ name: String) -> Bool {
        guard name.hasSuffix(".json") else { return false }
        let stem = name.utf8.dropLast(5)
        guard stem.count > 37, isLowerUUID(stem.prefix(36)), stem.dropFirst(36).first == UInt8(ascii: "-") else {
            return false
        }
        let revision = stem.dropFirst(37)
        return revision.count <= 19 && revision.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Whether `name` is a temporary file's name (see `TemporaryFiles`): `.tmp-<writer>@<uuid>`, or `.tmp-<uuid>` as
    /// older versions wrote.
    static func isTemporaryFile(_ name: String) -> Bool {
        guard name.hasPrefix(TemporaryFiles.prefix) else { return false }
        let rest = name.utf8.dropFirst(TemporaryFiles.prefix.utf8.count)
        guard rest.count >= 36, isLowerUUID(rest.suffix(36)) else { return false }
        if rest.count == 36 { return true }
        let writer = rest.dropLast(36)
        guard writer.count >= 2, writer.last == UInt8(ascii: "@") else { return false }
        return writer.dropLast().allSatisfy { $0 != UInt8(ascii: "@") && $0 != UInt8(ascii: "/") }
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }

    /// Whether `bytes` are a UUID in its 8-4-4-4-12 lower-case text form.
    private static func isLowerUUID<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !isLowerHex(byte) {
                return false
            }
        }
        return true
    }
}
