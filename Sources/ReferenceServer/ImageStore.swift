import Crypto
import Foundation

/// The image files under `DIR/images/`: each stored as `images/<sha256>`, written first to `images/.partial/`.
public struct ImageStore: Sendable {
    /// The media types an image may have.
    public static let contentTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp"]

    /// `DIR/images`.
    public let directory: String
    /// `DIR/images/.partial`, where bodies are streamed before they are verified.
    public let partialDirectory: String
    /// Whether to `fsync` each image before renaming it into place.
    public let synchronous: Bool

    /// Creates the directories if needed and removes partial bodies left by an earlier run.
    public init(directory: String, synchronous: Bool = true) throws(ServerSetupError) {
        self.directory = directory
        self.partialDirectory = directory + "/.partial"
        self.synchronous = synchronous
        do {
            try FileManager.default.createDirectory(atPath: partialDirectory, withIntermediateDirectories: true)
            for leftover in try FileManager.default.contentsOfDirectory(atPath: partialDirectory) {
                try? FileManager.default.removeItem(atPath: partialDirectory + "/" + leftover)
            }
        } catch {
            throw ServerSetupError("Cannot prepare the image directory \(directory). Check --data is a writable directory.")
        }
    }

    /// The final path of an image.
    public func path(sha256: String) -> String { directory + "/" + sha256 }

    /// Starts streaming one body to a new partial file.
    func beginUpload() throws(ServerError) -> ImageUpload {
        let path = partialDirectory + "/" + UUID().uuidString + ".part"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ServerError(status: .internalServerError, code: "storage",
                              message: "The server cannot write the image (\(String(cString: strerror(errno)))); try again later.")
        }
        return ImageUpload(descriptor: fd, partialPath: path, synchronous: synchronous)
    }
}

/// One image body being received: owns the partial file (closed and, unless committed, removed in `deinit`) and the running hash.
final class ImageUpload {
    private var descriptor: Int32
    private let partialPath: String
    private let synchronous: Bool
    private var hasher = SHA256()
    private var committed = false
    /// Bytes written so far.
    private(set) var bytes: Int64 = 0

    init(descriptor: Int32, partialPath: String, synchronous: Bool) {
        self.descriptor = descriptor
        self.partialPath = partialPath
        self.synchronous = synchronous
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(partialPath) }
    }

    /// Hashes and appends one chunk of the body.
    func append(_ chunk: UnsafeRawBufferPointer) throws(ServerError) {
        hasher.update(bufferPointer: chunk)
        var offset = 0
        while offset < chunk.count {
            let written = write(descriptor, chunk.baseAddress! + offset, chunk.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw ServerError(status: .init(code: 507), code: "storage",
                                  message: "The server could not store the image (\(String(cString: strerror(errno)))); try again later.")
            }
            offset += written
        }
        bytes += Int64(chunk.count)
    }

    /// The hex SHA-256 of everything appended.
    func digest() -> String {
        ImageDigest.hex(hasher.finalize())
    }

    /// Flushes the file and renames it to `finalPath` (atomically replacing an identical copy).
    func commit(to finalPath: String) throws(ServerError) {
        if synchronous, fsync(descriptor) != 0 {
            throw ServerError(status: .init(code: 507), code: "storage", message: "The server could not flush the image to disk; try again later.")
        }
        close(descriptor)
        descriptor = -1
        guard rename(partialPath, finalPath) == 0 else {
            throw ServerError(status: .internalServerError, code: "storage", message: "The server could not store the image; try again later.")
        }
        committed = true
    }
}
