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

    /// Starts receiving one body of `expectedBytes`; its partial file is created when the first bytes are written.
    func beginUpload(expectedBytes: Int64) -> ImageUpload {
        ImageUpload(partialPath: partialDirectory + "/" + UUID().uuidString + ".part", directory: directory,
                    synchronous: synchronous, expectedBytes: expectedBytes)
    }
}

/// One image body being received: owns the partial file (closed and, unless committed, removed in `deinit`) and the running hash.
///
/// The body is hashed as it arrives and kept in memory until `writeBatchBytes` have gathered, so an image of up to
/// that size costs one trip to `BlockingFileIO` (create, write, flush, rename) instead of one per network chunk.
/// The blocking calls (`open`, `write`, `fsync`, `rename`) run on `BlockingFileIO`; hashing and bookkeeping stay with the caller.
final class ImageUpload {
    /// One durable step of `commit(to:)`, in the order they run.
    enum CommitStep: Equatable {
        /// Write the body bytes still held in memory (creating the partial file if nothing was written yet).
        case writeBuffered
        /// `fsync` the partial file.
        case flushFile
        /// Close the partial file.
        case closeFile
        /// Rename it to its final path (atomically replacing an identical copy).
        case rename
        /// `fsync` the `images/` directory, so the rename itself survives a crash before the row is committed.
        case flushDirectory
    }

    /// The steps that make an image durable before its database row is written; without fsync, no flushes.
    static func commitSteps(synchronous: Bool) -> [CommitStep] {
        synchronous ? [.writeBuffered, .flushFile, .closeFile, .rename, .flushDirectory] : [.writeBuffered, .closeFile, .rename]
    }

    /// Body bytes held in memory before they are written to the partial file.
    static let writeBatchBytes = 1 << 20

    /// Whether `buffered` bytes held in memory are enough to write them out before the body ends.
    static func shouldWrite(buffered: Int) -> Bool { buffered >= writeBatchBytes }

    private var descriptor: Int32 = -1
    private let partialPath: String
    private let directory: String
    private let synchronous: Bool
    private var hasher = SHA256()
    private var buffered: ByteBuffer
    private var committed = false
    /// Bytes received so far.
    private(set) var bytes: Int64 = 0

    init(partialPath: String, directory: String, synchronous: Bool, expectedBytes: Int64) {
        self.partialPath = partialPath
        self.directory = directory
        self.synchronous = synchronous
        buffered = ByteBufferAllocator().buffer(capacity: Int(min(max(expectedBytes, 0), Int64(Self.writeBatchBytes))))
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(partialPath) }
    }

    /// Hashes one chunk of the body and keeps it; writes what is kept once it reaches `writeBatchBytes`.
    func append(_ chunk: ByteBuffer) async throws(ServerError) {
        chunk.withUnsafeReadableBytes { raw in hasher.update(bufferPointer: raw) }
        buffered.writeImmutableBuffer(chunk)
        bytes += Int64(chunk.readableBytes)
        guard Self.shouldWrite(buffered: buffered.readableBytes) else { return }
        let (data, fd, path) = (buffered, descriptor, partialPath)
        buffered.clear()
        descriptor = try await BlockingFileIO.shared.run { () throws(ServerError) -> Int32 in
            try Self.store(data, to: fd, creating: path)
        }
    }

    /// Writes `data` to `fd`, or, when `fd` is -1, to the newly created file at `path`; returns the descriptor written to.
    /// A file this call opened is closed again when the write fails (the caller still owns a descriptor it passed in).
    private static func store(_ data: ByteBuffer, to fd: Int32, creating path: String) throws(ServerError) -> Int32 {
        let target = fd >= 0 ? fd : open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard target >= 0 else {
            throw ServerError(status: .internalServerError, code: "storage",
                              message: "The server cannot write the image (\(String(cString: strerror(errno)))); try again later.")
        }
        do throws(ServerError) {
            try data.withUnsafeReadableBytes { (raw) throws(ServerError) in try writeAll(target, raw) }
        } catch {
            if fd < 0 { close(target) }
            throw error
        }
        return target
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

    /// Runs `commitSteps` in one trip off the cooperative pool: writes what is still in memory, flushes the file,
    /// renames it to `finalPath` and flushes the directory.
    func commit(to finalPath: String) async throws(ServerError) {
        let opened = descriptor
        descriptor = -1  // the work below owns the descriptor now and closes it whatever happens
        let steps = Self.commitSteps(synchronous: synchronous)
        let (data, partialPath, directory) = (buffered, self.partialPath, self.directory)
        buffered = ByteBuffer()
        try await BlockingFileIO.shared.run { () throws(ServerError) in
            var fd = opened
            defer { if fd >= 0 { close(fd) } }
            var flushed = true
            for step in steps {
                switch step {
                case .writeBuffered:
                    fd = try Self.store(data, to: fd, creating: partialPath)
                case .flushFile:
                    flushed = fsync(fd) == 0
                case .closeFile:
                    close(fd)
                    fd = -1
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
