#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `fd`, again after a signal interrupts it; the system's words for a failure, if any.
/// Shared by the media copies and the outbox files.
func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> String? {
    var offset = 0
    while offset < bytes.count {
        let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return String(cString: strerror(errno))
        }
        offset += written
    }
    return nil
}
