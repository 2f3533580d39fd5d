import Crypto
import Foundation
import Locking
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The partial image uploads kept for resumption (`resumable-images`): the bytes an interrupted `PUT` received, under
/// `DIR/uploads/<sha256>`, what that `PUT` announced (type, length, when) in the database, and the running hash of each
/// in memory. A partial is never an image: it is not in `images/`, has no image row, and `GET` answers `404` for it.
///
/// A partial lives at most `lifetime` (24 hours) from the interrupted `PUT` that began it. Collection: an expired
/// partial counts as absent at once (`HEAD` reports no offset, `PATCH` answers `404` and removes it), and its file is
/// removed at start-up (with any file or row left without the other by a crash) and whenever a new partial is kept.
final class PartialUploads: Sendable {
    /// A kept partial: what its `PUT` announced, and the bytes kept so far.
    struct Partial: Sendable, Equatable {
        var row: ServerDatabase.PartialUploadRow
        /// How many bytes are kept: the size of its file.
        var offset: Int64
    }

    /// `DIR/uploads`.
    let directory: String
    /// How long a partial is kept after its `PUT` began.
    let lifetime: Duration
    /// Who is writing each partial.
    let claims = UploadClaims()
    private let database: ServerDatabase
    private let now: @Sendable () -> Date
    /// The running hash of each partial's kept bytes, so a resumed upload need not read them again.
    private let hashes = Locked<[String: RunningHash]>([:])

    /// Creates `directory` and collects what an earlier run left: expired partials, and files or rows without the other.
    init(directory: String, database: ServerDatabase, lifetime: Duration, now: @escaping @Sendable () -> Date = Date.init)
        throws(ServerSetupError) {
        self.directory = directory
        self.database = database
        self.lifetime = lifetime
        self.now = now
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let kept = try database.collectPartialUploads(startedBefore: now().addingTimeInterval(-lifetime.seconds))
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) where !kept.contains(name) {
                try? FileManager.default.removeItem(atPath: directory + "/" + name)
            }
            for sha in kept where !FileManager.default.fileExists(atPath: directory + "/" + sha) {
                try database.forgetPartialUpload(sha256: sha)
            }
        } catch {
            throw ServerSetupError("Cannot prepare the partial uploads directory \(directory). Check --data is a writable directory.")
        }
    }

    /// Where the partial of an image is kept.
    func path(_ sha256: String) -> String { directory + "/" + sha256 }

    /// The bytes kept of an image's upload, when a partial that has not expired is kept (for `HEAD`).
    func offset(_ sha256: String) async throws -> Int64? {
        guard let row = try await database.partialUpload(sha256: sha256), !expired(row) else { return nil }
        return Self.size(path(sha256))
    }

    /// The partial of an image, if one is kept; an expired one, or a row whose file is gone, is removed and nil.
    /// Call it holding the image's claim.
    func partial(_ sha256: String) async throws -> Partial? {
        guard let row = try await database.partialUpload(sha256: sha256) else { return nil }
        guard !expired(row), let offset = Self.size(path(sha256)) else {
            try await discard(sha256)
            return nil
        }
        return Partial(row: row, offset: offset)
    }

    /// The running hash of the partial's first `offset` bytes: the one remembered, or the file's bytes hashed again
    /// (after a restart). Call it holding the image's claim.
    func runningHash(_ sha256: String, offset: Int64) async throws(ServerError) -> RunningHash {
        if let hash = hashes.withLock({ $0[sha256] }), hash.bytes == offset { return hash }
        let path = path(sha256)
        return try await BlockingFileIO.shared.run { () throws(ServerError) -> RunningHash in try Self.hashFile(path, upTo: offset) }
    }

    /// Remembers the running hash of a partial after an append.
    func remember(_ sha256: String, _ hash: RunningHash) {
        hashes.withLock { $0[sha256] = hash }
    }

    /// Keeps the bytes of an interrupted `PUT` (the file at `keptPath`, hashed by `hash`) as the partial of its image,
    /// unless the partial kept already holds as many bytes or more (then they are dropped).
    func keep(_ keptPath: String, sha256: String, contentType: String, length: Int64, hash: RunningHash) async throws {
        try await claims.withClaim(sha256, superseding: false) {
            if let existing = try await self.partial(sha256), existing.offset >= hash.bytes {
                unlink(keptPath)
                return
            }
            let target = self.path(sha256)
            try await BlockingFileIO.shared.run { () throws(ServerError) in
                do throws(ErrnoError) { try AtomicFile(adopting: keptPath).commit(to: target) } catch {
                    throw ServerError(status: .internalServerError, code: "storage", message: "The server could not keep the partial upload (\(error.reason)).")
                }
            }
            try await self.database.recordPartialUpload(.init(sha256: sha256, contentType: contentType, length: length, startedAt: self.now()))
            self.remember(sha256, hash)
        }
        try await collectExpired()
    }

    /// After an image was stored whole by a `PUT`: removes a partial of it that no request is writing.
    func dropStored(_ sha256: String) async throws {
        guard try await database.partialUpload(sha256: sha256) != nil, await !claims.isHeld(sha256) else { return }
        try await claims.withClaim(sha256, superseding: false) { try await self.discard(sha256) }
    }

    /// Removes an image's partial: its row, its file and its remembered hash. Call it holding the image's claim.
    func discard(_ sha256: String) async throws {
        hashes.withLock { $0[sha256] = nil }
        try await database.removePartialUpload(sha256: sha256)
        unlink(path(sha256))
    }

    /// Removes every expired partial no request is writing.
    func collectExpired() async throws {
        for row in try await database.partialUploads() where expired(row) {
            guard await !claims.isHeld(row.sha256) else { continue }
            try await claims.withClaim(row.sha256, superseding: false) {
                if let current = try await self.database.partialUpload(sha256: row.sha256), self.expired(current) {
                    try await self.discard(row.sha256)
                }
            }
        }
    }

    private func expired(_ row: ServerDatabase.PartialUploadRow) -> Bool {
        now() >= row.startedAt.addingTimeInterval(lifetime.seconds)
    }

    /// The size of a regular file, or nil when there is none.
    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Hashes the first `count` bytes of a file, a mebibyte at a time.
    private static func hashFile(_ path: String, upTo count: Int64) throws(ServerError) -> RunningHash {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ServerError(status: .internalServerError, code: "storage", message: "The server cannot read the partial upload; send the whole image again with PUT.")
        }
        defer { close(descriptor) }
        var hasher = SHA256()
        var done: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while done < count {
            let wanted = Int(min(Int64(buffer.count), count - done))
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw ServerError(status: .internalServerError, code: "storage", message: "The partial upload is shorter than recorded; send the whole image again with PUT.")
            }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            done += Int64(got)
        }
        return RunningHash(hasher: hasher, bytes: done)
    }
}

extension Duration {
    /// The duration in seconds, with fractions.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
