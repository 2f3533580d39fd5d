import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The source of a request body libcurl reads in chunks: an open file (never loaded whole) or bytes in memory.
///
/// Read only from the transfer loop's thread; the file descriptor is closed in `deinit`.
final class UploadBody {
    private enum Source {
        case file(descriptor: Int32, path: String)
        case bytes([UInt8])
    }

    private let source: Source
    /// The number of bytes to send (`Content-Length`).
    let size: Int64
    /// Where in the file the body starts (0 but for the rest of an interrupted upload).
    private let start: Int64
    /// The position of the next byte to send.
    private var offset: Int64 = 0
    /// Why reading failed, if it did; the transfer reports it instead of libcurl's generic error.
    private(set) var failure: TransportError?

    /// Opens `path` for reading from byte `start` on; throws `.fileUnreadable` if it is not a readable regular file, is a
    /// symbolic link (a body is read from the file its caller wrote, never through a link planted in its place), or is
    /// shorter than `start`.
    init(filePath path: String, from start: Int64 = 0) throws(TransportError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let failure = ErrnoError(errno, .open, path: path)
            let reason = failure.code == ELOOP ? "it is a symbolic link" : failure.reason
            throw TransportError(kind: .fileUnreadable, message: "cannot open \(path) for upload: \(reason)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw TransportError(kind: .fileUnreadable, message: "cannot upload \(path): it is not a regular file")
        }
        guard start >= 0, start <= Int64(status.st_size) else {
            close(descriptor)
            throw TransportError(kind: .fileUnreadable, message: "cannot upload \(path) from byte \(start): it is shorter")
        }
        source = .file(descriptor: descriptor, path: path)
        size = Int64(status.st_size) - start
        self.start = start
    }

    /// Holds `data` to send.
    init(data: Data) {
        source = .bytes([UInt8](data))
        size = Int64(data.count)
        start = 0
    }

    deinit {
        if case .file(let descriptor, _) = source { close(descriptor) }
    }

    /// Copies up to `capacity` next bytes into `buffer`; returns the count, 0 at the end, nil on failure.
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        let wanted = Int(min(Int64(capacity), size - offset))
        guard wanted > 0 else { return 0 }
        switch source {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { all in
                guard let base = all.baseAddress else { return }
                buffer.copyMemory(from: base + Int(offset), byteCount: wanted)
            }
            offset += Int64(wanted)
            return wanted
        case .file(let descriptor, let path):
            while true {
                let count = pread(descriptor, buffer, wanted, off_t(start + offset))
                if count > 0 {
                    offset += Int64(count)
                    return count
                }
                if count < 0 && errno == EINTR { continue }
                let reason = count == 0 ? "the file became shorter while it was being sent"
                                        : ErrnoError(errno, .read, path: path).reason
                failure = TransportError(kind: .fileUnreadable, message: "cannot read \(path) for upload: \(reason)")
                return nil
            }
        }
    }

    /// Whether `seek` may move back (see `HTTPRequest.resendsWhole`).
    var rewindable = true

    /// Moves to `position` so libcurl can resend the body (on a retried reused connection); false if out of range, or
    /// when the body is not to be sent again.
    func seek(to position: Int64) -> Bool {
        guard position >= 0 && position <= size, rewindable || position == offset else { return false }
        offset = position
        return true
    }
}
