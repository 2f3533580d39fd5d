import Crypto
import Foundation
import RecipeModels
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The `<home>/media/` folder: copies of attached images, named by their SHA-256, until the server has them.
///
/// The user's own file is only ever opened for reading. Copies are written under a temporary name, checked and
/// hashed while copied, and renamed into place; an exclusive `flock` on `media/.lock` orders renames, commits and
/// garbage collection across processes. A media folder that is a symbolic link is refused rather than written to.
public struct MediaLibrary: Sendable {
    /// The media folder.
    public let directory: URL

    /// Images above this size are refused unless configured otherwise (20 MiB).
    public static let defaultMaxBytes: Int64 = 20 * 1024 * 1024
    /// Who copies images through this value, named in its temporary copies (see `TemporaryFiles`).
    let writer: String

    /// Creates the library for `directory`; `writer` (a lease owner, this process unless a caller says otherwise)
    /// names the process copying images through it.
    public init(directory: URL, writer: String = LeaseOwner.current) {
        self.directory = directory
        self.writer = writer
        directoryPath = directory.path
        database = DatabaseFiles(home: RecipesHome(url: directory.deletingLastPathComponent(), isExplicit: true))
    }

    /// The database files of the home this folder belongs to, which an image to attach may never be.
    let database: DatabaseFiles

    /// `directory.path`, kept: building paths with `URL` for every file was measurable in a long sync.
    private let directoryPath: String

    /// The path of the local copy named `fileName`.
    public func path(of fileName: String) -> String { directoryPath + "/" + fileName }

    /// Checks `sourcePath` (a regular, readable file, at most `maxBytes`, a JPEG/PNG/GIF/WebP by its bytes) and
    /// copies it under a temporary name in the media folder, hashing it on the way.
    ///
    /// Anything but a regular file (a folder, a named pipe, a socket, a device) is refused before it is read, and
    /// without waiting, and so is one of the home's database files: see `UserFile.open`.
    public func stage(from sourcePath: String, maxBytes: Int64 = defaultMaxBytes) throws(StoreError) -> StagedImage {
        let (source, size) = try openRegularFile(sourcePath)
        defer { close(source) }
        guard size <= maxBytes else {
            throw StoreError(.imageTooLarge(path: sourcePath, bytes: size, limit: maxBytes))
        }

        // Created inside the folder opened without following a link (`O_EXCL` also refuses a link at the name).
        guard let folder = try HomeFolder.open(directoryPath) else {
            throw StoreError(ErrnoError(ENOENT, .open, path: directoryPath))
        }
        let copy: AtomicFile
        do throws(ErrnoError) {
            copy = try AtomicFile(
                creating: TemporaryFiles.name(writer: writer), inFolder: folder.descriptor, folderPath: directoryPath,
                permissions: 0o644)
        } catch {
            throw StoreError(error)
        }

        var hasher = SHA256()
        var total: Int64 = 0
        var format: ImageFormat?
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError(.imageUnreadable(path: sourcePath, detail: ErrnoError(errno, .read, path: sourcePath).reason))
            }
            if count == 0 { break }
            if total == 0 {
                format = ImageFormat.detect(buffer[0..<count])
                guard format != nil else { throw StoreError(.imageNotRecognised(path: sourcePath)) }
            }
            total += Int64(count)
            if total > maxBytes { throw StoreError(.imageTooLarge(path: sourcePath, bytes: total, limit: maxBytes)) }
            hasher.update(data: buffer[0..<count])
            do throws(ErrnoError) {
                try copy.write(buffer[0..<count])
            } catch {
                throw StoreError(error)
            }
        }
        guard let format else { throw StoreError(.imageNotRecognised(path: sourcePath)) }
        let temporaryPath: String
        do throws(ErrnoError) {
            // Flushed now, renamed later by `install` (under the media lock, with the database change).
            try copy.flush()
            temporaryPath = try copy.keep()
        } catch {
            throw StoreError(error)
        }
        let digest = Self.hex(hasher.finalize())
        return StagedImage(sha256: digest, format: format, byteCount: total, temporaryPath: temporaryPath)
    }

    /// Opens `path` for reading when it is a regular file (see `UserFile.open`), in the image's words when it is
    /// not one.
    func openRegularFile(_ path: String) throws(StoreError) -> (descriptor: Int32, size: Int64) {
        do throws(UserFile.Refusal) {
            return try UserFile.open(path, refusing: database)
        } catch {
            switch error {
            case .notFound: throw StoreError(.imageNotFound(path: path))
            case .notRegular(let special): throw StoreError(.imageNotRegularFile(path: path, type: special))
            case .databaseFile: throw StoreError(.databaseFileGiven(path: path))
            case .unreadable(let reason): throw StoreError(.imageUnreadable(path: path, detail: reason))
            case .tooLarge: throw StoreError(.imageUnreadable(path: path, detail: "too large"))  // open checks no size
            }
        }
    }

    /// Lower-case hexadecimal of `bytes` (two digits a byte).
    static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Renames a staged copy to its final name; the caller holds the media lock.
    func install(_ staged: StagedImage) throws(StoreError) {
        do throws(ErrnoError) {
            try AtomicFile(adopting: staged.temporaryPath).commit(to: path(of: staged.fileName))  // removed on failure
        } catch {
            throw StoreError(error)
        }
    }

    /// Discards a staged copy that will not be attached.
    public func discard(_ staged: StagedImage) { AtomicFile(adopting: staged.temporaryPath).discard() }

    /// Removes the local copy named `fileName`, if present; the caller holds the media lock.
    public func remove(_ fileName: String) { unlink(path(of: fileName)) }

    /// The file in the media folder whose `flock` orders its changes; never a copy, never collected.
    static let lockFileName = ".lock"

    /// Runs `body` while holding the exclusive lock on the media folder (blocking until other processes release it).
    ///
    /// Refuses a media folder that is a symbolic link (see `HomeFolder`): everything done under the lock writes or
    /// deletes in it.
    public func withExclusiveAccess<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let lockPath = path(of: Self.lockFileName)
        guard let folder = try HomeFolder.open(directoryPath) else {
            throw StoreError(ErrnoError(ENOENT, .open, path: directoryPath))
        }
        let fd = openat(folder.descriptor, Self.lockFileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError(ErrnoError(errno, .open, path: lockPath)) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            let code = errno
            guard code == EINTR else { throw StoreError(ErrnoError(code, .lock, path: lockPath)) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Deletes copies no recipe refers to, and temporary copies whose writer is gone (or, writer unknown, older than
    /// `TemporaryFiles.grace`); returns their names.
    ///
    /// Only regular files under a name recipes writes (`OwnFileNames`) are ever deleted; anything else is left alone
    /// (`status` mentions it), and a media folder that is a symbolic link is refused. The caller holds the media
    /// lock; `referenced` gives the names the database refers to, and is asked only when the folder holds a copy at
    /// all (an idle `recipes sync --background` then costs one directory listing).
    ///
    /// A copy no recipe refers to as a media copy but one still shows (the server has it) is handed to `adopt`, which
    /// moves it to `images/` and returns true, rather than deleted.
    func collectGarbage(
        referenced: () throws(StoreError) -> Set<String>, now: Date, isWriterAlive: (String) -> Bool,
        adopt: (String) throws(StoreError) -> Bool = { _ in false }
    ) throws(StoreError) -> [String] {
        guard let folder = try HomeFolder.open(directoryPath) else { return [] }
        let candidates = try folder.entries().filter { Self.isOwnFile($0) }.map(\.name)
        guard !candidates.isEmpty else { return [] }
        let referenced = try referenced()
        var removed: [String] = []
        for name in candidates.sorted() where !referenced.contains(name) {
            if TemporaryFiles.isLive(name, in: folder, now: now, isWriterAlive: isWriterAlive) { continue }
            if OwnFileNames.isImageCopy(name), try adopt(name) { continue }
            if folder.remove(name) { removed.append(name) }
        }
        return removed
    }

    /// Whether `entry` is a file of the media folder that recipes wrote: a regular file named as a copy or a
    /// temporary copy (never the lock file).
    static func isOwnFile(_ entry: HomeFolder.Entry) -> Bool {
        entry.isRegularFile && (OwnFileNames.isImageCopy(entry.name) || OwnFileNames.isTemporaryFile(entry.name))
    }
}
