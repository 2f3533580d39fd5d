#if canImport(Glibc)
import Glibc
#endif

/// Writes every byte of `bytes` to `descriptor`; `path` names the file in the error of a write that fails.
///
/// A `write(2)` may write less than it was given (a signal arrives midway, a pipe or a non-blocking descriptor has
/// less room, a size limit is reached): the rest is written by the next call, so the bytes arrive whole and in order.
/// A write interrupted before it wrote anything (`EINTR`) is made again; a non-blocking descriptor that is full
/// (`EAGAIN`) is waited on with `poll` until it takes more. Any other failure throws with its `errno`.
public func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws(ErrnoError) {
    guard var next = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0 {
        let written = write(descriptor, next, remaining)
        if written >= 0 {
            next += written
            remaining -= written
            continue
        }
        let code = errno
        switch code {
        case EINTR:
            continue
        case EAGAIN, EWOULDBLOCK:
            try waitUntilWritable(descriptor, path: path)
        default:
            throw ErrnoError(code, .write, path: path)
        }
    }
}

/// Waits until the non-blocking `descriptor` can take more bytes (or has an error, which the next write reports).
private func waitUntilWritable(_ descriptor: Int32, path: String) throws(ErrnoError) {
    var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
    while poll(&request, 1, -1) < 0 {
        let code = errno
        guard code == EINTR else { throw ErrnoError(code, .write, path: path) }
    }
}
