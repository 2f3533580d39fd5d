import Crypto
import Foundation
import RecipeModels
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The `<home>/images/` folder: the images of synced recipes, named by their SHA-256 (`<sha256>.<ext>`), downloaded
/// by a pull or moved here from `media/` once the server confirmed the upload; kept while a recipe refers to them.
///
/// A download is written under a temporary name (`.tmp-<writer>@<uuid>`, see `TemporaryFiles`), hashed and checked
/// as it arrives, and renamed into place only whole and with the SHA-256 its URL names: `images/` never holds half an
/// image or the wrong bytes.
public struct ImageLibrary: Sendable {
    /// The images folder.
    public let directory: URL
    /// Who writes through this value, named in its temporary files.
    let writer: String

    /// Creates the library for `directory`.
    public init(directory: URL, writer: String = LeaseOwner.current) {
        self.directory = directory
        self.writer = writer
    }

    /// The path of `fileName` in the folder.
    public func path(of fileName: String) -> String { directory.path + "/" + fileName }

    /// The image `sha256` when the folder holds it, as a reference with no media copy.
    public func image(sha256: String) -> ImageReference? {
        for format in ImageFormat.allCases {
            var info = stat()
            let name = ImageReference.fileName(sha256: sha256, format: format)
            if lstat(path(of: name), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                return ImageReference(sha256: sha256, format: format, byteCount: Int64(info.st_size), localFileName: nil)
            }
        }
        return nil
    }

    /// Starts a download of image `sha256` of at most `maxBytes` bytes into a temporary file of the folder (created
    /// when missing, refused when it is a symbolic link).
    public func beginDownload(sha256: String, maxBytes: Int64 = MediaLibrary.defaultMaxBytes) throws(StoreError) -> ImageDownload {
        try RecipesHome.makeDirectory(directory.path, mode: 0o755)
        try HomeFolder.check(directory.path)
        return try ImageDownload(sha256: sha256, temporaryPath: path(of: TemporaryFiles.name(writer: writer)), maxBytes: maxBytes)
    }

    /// Moves a finished, checked download into place as `<sha256>.<ext>` (flushed to disk, then renamed); returns its
    /// reference.
    public func install(_ download: ImageDownload) throws(StoreError) -> ImageReference {
        let reference = try place(download)
        try flushFolder()
        return reference
    }

    /// Moves finished, checked downloads into place: their bytes flushed to disk first, all at once (`syncfs` of the
    /// folder's file system: one flush for a page of images, where a `fsync` each made the disk commit once per
    /// image), then each renamed, then the folder flushed once; returns each one's reference, or why it could not be
    /// installed. No image is ever under its final name before its bytes are on disk.
    public func install(_ downloads: [ImageDownload]) -> [Result<ImageReference, StoreError>] {
        guard !downloads.isEmpty else { return [] }
        do {
            try AtomicFile.flushFileSystem(of: directory.path)
        } catch {
            for download in downloads { download.discard() }
            return downloads.map { _ in .failure(StoreError(error)) }
        }
        var results = downloads.map { download in Result { () throws(StoreError) in try place(download, flushing: []) } }
        if results.contains(where: { (try? $0.get()) != nil }) {
            do throws(StoreError) {
                try flushFolder()
            } catch {
                results = results.map { _ in .failure(error) }
            }
        }
        return results
    }

    /// Renames `download` into place, its bytes flushed to disk first unless `flushing` is empty (they were).
    private func place(_ download: ImageDownload, flushing: AtomicFile.Flush = [.file]) throws(StoreError) -> ImageReference {
        let format = try download.check()
        let name = ImageReference.fileName(sha256: download.sha256, format: format)
        do {
            try download.file.commit(to: path(of: name), flushing: flushing)
        } catch {
            throw StoreError(.fileSystem(path: path(of: name), detail: error.localizedDescription))
        }
        return ImageReference(sha256: download.sha256, format: format, byteCount: download.count, localFileName: nil)
    }

    /// Flushes the folder's entries (the renames) to disk.
    private func flushFolder() throws(StoreError) {
        do {
            try AtomicFile.flushFolder(containing: path(of: Self.lockFileName))
        } catch {
            throw StoreError(.fileSystem(path: directory.path, detail: error.localizedDescription))
        }
    }

    /// Moves the media copies `fileNames` of `media` here (the server has their images, and recipes still show them);
    /// returns the names moved. The folder is made and checked once for all of them; a copy that could not be moved
    /// is left where it is.
    func adopt(_ fileNames: [String], from media: MediaLibrary) -> Set<String> {
        guard !fileNames.isEmpty, (try? RecipesHome.makeDirectory(directory.path, mode: 0o755)) != nil,
            (try? HomeFolder.check(directory.path)) != nil
        else { return [] }
        return Set(fileNames.filter { name in rename(media.path(of: name), path(of: name)) == 0 })
    }

    /// Deletes the images no recipe refers to (`referenced` holds the SHA-256s still wanted) and the temporary files of
    /// writers that are gone; only names this library writes. Returns what it deleted.
    /// Nothing is deleted while a pull has the folder in use (see `markInUse`).
    func collectGarbage(referenced: Set<String>, now: Date, isWriterAlive: (String) -> Bool) throws(StoreError) -> [String] {
        guard let folder = try HomeFolder.open(directory.path) else { return [] }
        var removed: [String] = []
        for entry in try folder.entries() where entry.isRegularFile {
            let name = entry.name
            if OwnFileNames.isImageCopy(name) {
                let sha = String(name.prefix { $0 != "." })
                if referenced.contains(sha) { continue }
            } else if OwnFileNames.isTemporaryFile(name) {
                if TemporaryFiles.isLive(name, in: folder, now: now, isWriterAlive: isWriterAlive) { continue }
            } else {
                continue
            }
            if folder.remove(name) { removed.append(name) }
        }
        return removed
    }
}

/// One image being downloaded into the images folder: the bytes are written to a temporary file and hashed as they
/// come; `ImageLibrary.install` renames it into place once it is whole and is the image its SHA-256 names.
public final class ImageDownload: @unchecked Sendable {
    // @unchecked Sendable: `receive` is called on one thread at a time (the transport's, in order), `check`,
    // installing or `discard` only after the transfer ended, by one task at a time; the mutable state is never
    // touched by two threads at once.
    /// The SHA-256 the bytes must have.
    public let sha256: String
    /// The temporary file (removed unless installed).
    let file: AtomicFile
    private let maxBytes: Int64
    private var hasher = SHA256()
    /// The bytes received so far.
    private(set) var count: Int64 = 0
    private var head: [UInt8] = []
    /// Why the download was refused, when it was.
    public private(set) var refusal: String?

    init(sha256: String, temporaryPath: String, maxBytes: Int64) throws(StoreError) {
        self.sha256 = sha256
        self.maxBytes = maxBytes
        do {
            file = try AtomicFile(creating: temporaryPath, permissions: 0o644)
        } catch {
            throw StoreError(.fileSystem(path: temporaryPath, detail: error.localizedDescription))
        }
    }

    /// Takes the next bytes; false (with `refusal` set) when they make the image too large or cannot be written.
    public func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard refusal == nil else { return false }
        count += Int64(bytes.count)
        guard count <= maxBytes else {
            refusal = "the image is larger than \(maxBytes) bytes"
            return false
        }
        if head.count < 16 { head += bytes.prefix(16 - head.count) }
        hasher.update(bufferPointer: bytes)
        do {
            try file.write(bytes)
        } catch {
            refusal = error.localizedDescription
            return false
        }
        return true
    }

    /// Checks the whole download: its SHA-256, and that it is an image; returns its format. Checked once: later
    /// calls answer the first one's result.
    public func check() throws(StoreError) -> ImageFormat {
        if let checked { return try checked.get() }
        let result = Result { () throws(StoreError) in try verify() }
        checked = result
        return try result.get()
    }

    private var checked: Result<ImageFormat, StoreError>?

    private func verify() throws(StoreError) -> ImageFormat {
        let digest = MediaLibrary.hex(hasher.finalize())
        guard refusal == nil, digest == sha256, let format = ImageFormat.detect(head[...]) else {
            file.discard()
            let why = refusal ?? (digest != sha256
                ? "its SHA-256 is \(digest.prefix(12))…, not \(sha256.prefix(12))… as its URL says"
                : "its bytes are not a JPEG, PNG, GIF or WebP image")
            throw StoreError(.downloadRefused(sha256: sha256, reason: why))
        }
        return format
    }

    /// Deletes the temporary file (a download that failed or was cancelled).
    public func discard() { file.discard() }
}
