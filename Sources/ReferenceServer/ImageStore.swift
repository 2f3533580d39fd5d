import Crypto
import Foundation
import NIOCore

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

    /// Starts streaming one body to a new partial file (opened off the cooperative pool).
    func beginUpload() async throws(ServerError) -> ImageUpload {
        let path = partialDirectory + "/" + UUID().uuidString + ".part"
        let fd = try await BlockingFileIO.shared.run { () throws(ServerError) -> Int32 in
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw ServerError(status: .internalServerError, code: "storage",
                                  message: "The server cannot write the image (\(String(cString: strerror(errno)))); try again later.")
            }
            return fd
        }
        return ImageUpload(descriptor: fd, partialPath: path, directory: directory, synchronous: synchronous)
    }
}

/// One image body being received: owns the partial file (closed and, unless committed, removed in `deinit`) and the running hash.
///
/// The blocking calls (`write`, `fsync`, `rename`) run on `BlockingFileIO`; hashing and bookkeeping stay with the caller.
final class ImageUpload {
    /// One durable step of `commit(to:)`, in the order they run.
    enum CommitStep: Equatable {
        /// `fsync` the partial file.
        case flushFile
        /// Close the partial file.
        case closeFile
        /// Rename it to its final path (atomically replacing an identical copy).
        case rename
        /// `fsync` the `images/` directory, so the rename itself survives a crash before the row is committed.
        case flushDirectory
    }

    /// The steps that make an image durable before its database row is written; without fsync, only close and rename.
    static func commitSteps(synchronous: Bool) -> [CommitStep] {
        synchronous ? [.flushFile, .closeFile, .rename, .flushDirectory] : [.closeFile, .rename]
    }

    private var descriptor: Int32
    private let partialPath: String
    private let directory: String
    private let synchronous: Bool
    private var hasher = SHA256()
    private var committed = false
    /// Bytes written so far.
    private(set) var bytes: Int64 = 0

    init(descriptor: Int32, partialPath: String, directory: String, synchronous: Bool) {
        self.descriptor = descriptor
        self.partialPath = partialPath
        self.directory = directory
        self.synchronous = synchronous
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(partialPath) }
    }

    /// Hashes one chunk of the body, then appends it to the partial file off the cooperative pool.
    func append(_ chunk: ByteBuffer) async throws(ServerError) {
        chunk.withUnsafeReadableBytes { raw in hasher.update(bufferPointer: raw) }
        let fd = descriptor
        try await BlockingFileIO.shared.run { () throws(ServerError) in
            try chunk.withUnsafeReadableBytes { (raw) throws(ServerError) in try Self.writeAll(fd, raw) }
        }
        bytes += Int64(chunk.readableBytes)
    }

    /// Writes every byte of `raw` to `fd`, retrying on `EINTR` and short writes.
    private static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) throws(ServerError) {
        var offset = 0
        while offset < raw.count {
            let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw ServerError(status: .init(code: 507), code: "storage",
                                  message: "The server could not store the image (\(String(cString: strerror(errno)))); try again later.")
            }
            offset += written
        }
    }

    /// The hex SHA-256 of everything appended.
    func digest() -> String {
        ImageDigest.hex(hasher.finalize())
    }

    /// Runs `commitSteps` off the cooperative pool: flushes the file, renames it to `finalPath` and flushes the directory.
    func commit(to finalPath: String) async throws(ServerError) {
        let fd = descriptor
        descriptor = -1  // the work below owns the descriptor now and closes it whatever happens
        let steps = Self.commitSteps(synchronous: synchronous)
        let (partialPath, directory) = (self.partialPath, self.directory)
        try await BlockingFileIO.shared.run { () throws(ServerError) in
            var flushed = true
            for step in steps {
                switch step {
                case .flushFile:
                    flushed = fsync(fd) == 0
                case .closeFile:
                    close(fd)
                    guard flushed else {
                        throw ServerError(status: .init(code: 507), code: "storage", message: "The server could not flush the image to disk; try again later.")
                    }
                case .rename:
                    guard rename(partialPath, finalPath) == 0 else {
                        throw ServerError(status: .internalServerError, code: "storage", message: "The server could not store the image; try again later.")
                    }
                case .flushDirectory:
                    try Self.flushDirectory(directory)
                }
            }
        }
        committed = true
    }

    /// Opens `directory` read-only and `fsync`s it, making the renames in it durable.
    private static func flushDirectory(_ directory: String) throws(ServerError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        let flushed = fd >= 0 && fsync(fd) == 0
        if fd >= 0 { close(fd) }
        guard flushed else {
            throw ServerError(status: .init(code: 507), code: "storage", message: "The server could not flush the image directory to disk; try again later.")
        }
    }
}
