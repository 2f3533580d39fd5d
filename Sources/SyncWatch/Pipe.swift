import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// A pipe whose ends are both non-blocking and closed on `exec` (what `pipe2(O_NONBLOCK | O_CLOEXEC)` makes; glibc
/// declares `pipe2` only under `_GNU_SOURCE`). The ends are (read, write).
func nonBlockingPipe() throws(WatchError) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw WatchError(.system(ErrnoError(errno, .create, path: "a pipe"))) }
    for end in ends {
        let flags = fcntl(end, F_GETFL)
        guard flags >= 0, fcntl(end, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(end, F_SETFD, FD_CLOEXEC) == 0 else {
            let error = ErrnoError(errno, .create, path: "a pipe")
            close(ends[0])
            close(ends[1])
            throw WatchError(.system(error))
        }
    }
    return (ends[0], ends[1])
}
