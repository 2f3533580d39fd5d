import Crypto
import Foundation
import NIOCore
import SystemFiles

/// One image body being received: owns the partial file (an `AtomicFile`: removed unless committed) and the running
/// hash.
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

    /// The partial file, once the first bytes are written; removed when released uncommitted.
    private var file: AtomicFile?
    private let partialPath: String
    private let synchronous: Bool
    private var hasher = SHA256()
    private var buffered: ByteBuffer
    /// Bytes received so far.
    private(set) var bytes: Int64 = 0

    init(partialPath: String, synchronous: Bool, expectedBytes: Int64) {
        self.partialPath = partialPath
        self.synchronous = synchronous
        buffered = ByteBufferAllocator().buffer(capacity: Int(min(max(expectedBytes, 0), Int64(Self.writeBatchBytes))))
    }

    /// Continues a kept partial upload: appends to the file at `path`, which holds `hash.bytes` bytes hashing to
    /// `hash.hasher`.
    init(appendingTo path: String, hash: RunningHash, synchronous: Bool, expectedBytes: Int64) async throws(ServerError) {
        self.partialPath = path
        self.synchronous = synchronous
        hasher = hash.hasher
        bytes = hash.bytes
        buffered = ByteBufferAllocator().buffer(capacity: Int(min(max(expectedBytes, 0), Int64(Self.writeBatchBytes))))
        file = try await BlockingFileIO.shared.run { () throws(ServerError) -> AtomicFile in
            do throws(ErrnoError) { return try AtomicFile(appendingTo: path) } catch {
                throw ServerError(status: .internalServerError, code: "storage",
                                  message: "The server cannot reopen the partial upload (\(error.reason)); send the whole image again with PUT.")
            }
        }
    }

    /// The bytes received so far and their running hash.
    var runningHash: RunningHash { RunningHash(hasher: hasher, bytes: bytes) }

    /// Ends an interrupted body and keeps what arrived: writes the bytes still in memory, flushes the file (unless
    /// writes are not synchronous) and releases it from removal. Returns its path, or nil when no byte arrived.
    func keep() async throws(ServerError) -> String? {
        guard bytes > 0 else { return nil }
        let (data, existing, path, synchronous) = (buffered, file, partialPath, synchronous)
        buffered = ByteBuffer()
        file = nil
        return try await BlockingFileIO.shared.run { () throws(ServerError) -> String in
            let file = try Self.store(data, to: existing, creating: path)
            do throws(ErrnoError) {
                if synchronous { try file.flush() }
                return try file.keep()
            } catch {
                throw ServerError(status: .init(code: 507), code: "storage", message: "The server could not keep the partial upload (\(error.reason)).")
            }
        }
    }

    /// Hashes one chunk of the body and keeps it; writes what is kept once it reaches `writeBatchBytes`.
    func append(_ chunk: ByteBuffer) async throws(ServerError) {
        chunk.withUnsafeReadableBytes { raw in hasher.update(bufferPointer: raw) }
        buffered.writeImmutableBuffer(chunk)
        bytes += Int64(chunk.readableBytes)
        guard Self.shouldWrite(buffered: buffered.readableBytes) else { return }
        let (data, file, path) = (buffered, self.file, partialPath)
        buffered.clear()
        self.file = try await BlockingFileIO.shared.run { () throws(ServerError) -> AtomicFile in
            try Self.store(data, to: file, creating: path)
        }
    }

    /// Writes `data` to `file`, or, when there is none yet, to a new partial file at `path`; returns the file written to.
    private static func store(_ data: ByteBuffer, to file: AtomicFile?, creating path: String) throws(ServerError) -> AtomicFile {
        let target: AtomicFile
        do throws(ErrnoError) {
            if let file { target = file } else { target = try AtomicFile(creating: path, permissions: 0o644) }
        } catch {
            throw ServerError(status: .internalServerError, code: "storage",
                              message: "The server cannot write the image (\(error.reason)); try again later.")
        }
        let failure: ErrnoError? = data.withUnsafeReadableBytes { raw in
            do throws(ErrnoError) {
                try target.write(raw)
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            throw ServerError(status: .init(code: 507), code: "storage",
                              message: "The server could not store the image (\(failure.reason)); try again later.")
        }
        return target
    }

    /// The hex SHA-256 of everything appended.
    func digest() -> String {
        ImageDigest.hex(hasher.finalize())
    }

    /// Runs `commitSteps` in one trip off the cooperative pool: writes what is still in memory, flushes the file,
    /// renames it to `finalPath` and flushes the directory.
    func commit(to finalPath: String) async throws(ServerError) {
        let steps = Self.commitSteps(synchronous: synchronous)
        let (data, existing, partialPath) = (buffered, file, self.partialPath)
        buffered = ByteBuffer()
        file = try await BlockingFileIO.shared.run { () throws(ServerError) -> AtomicFile? in
            var file = existing
            for step in steps {
                if case .writeBuffered = step {
                    file = try Self.store(data, to: file, creating: partialPath)
                } else if let file {
                    try Self.perform(step, on: file, finalPath: finalPath)
                } else {
                    throw ServerError(status: .internalServerError, code: "storage", message: "The server could not store the image; try again later.")
                }
            }
            return file
        }
    }

    /// Runs one step of `commitSteps` after the bytes are written.
    private static func perform(_ step: CommitStep, on file: AtomicFile, finalPath: String) throws(ServerError) {
        do throws(ErrnoError) {
            switch step {
            case .writeBuffered: return
            case .flushFile: try file.flush()
            case .closeFile: try file.close()
            case .rename: try file.commit(to: finalPath)
            case .flushDirectory: try AtomicFile.flushFolder(containing: finalPath)
            }
        } catch {
            switch step {
            case .writeBuffered, .closeFile, .rename:
                throw ServerError(status: .internalServerError, code: "storage", message: "The server could not store the image; try again later.")
            case .flushFile:
                throw ServerError(status: .init(code: 507), code: "storage", message: "The server could not flush the image to disk; try again later.")
            case .flushDirectory:
                throw ServerError(status: .init(code: 507), code: "storage", message: "The server could not flush the image directory to disk; try again later.")
            }
        }
    }
}

/// The bytes of an upload received so far, and their running SHA-256.
///
/// `@unchecked Sendable`: `SHA256` is a value whose digest state is copied before a copy that shares it is updated or
/// finalized (swift-crypto's copy-on-write context), so copies held by different tasks never share mutable state; it
/// only lacks the conformance.
struct RunningHash: @unchecked Sendable {
    /// The hash of the first `bytes` bytes.
    var hasher: SHA256
    /// How many bytes it has hashed.
    var bytes: Int64

    /// The hash of nothing.
    static let empty = RunningHash(hasher: SHA256(), bytes: 0)
}
