import Foundation
import RecipeStore
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The watcher's end of `EditSignal`: the FIFO `<home>/watch.fifo`, made (mode 0600) when missing and kept open for
/// reading and writing while the watcher runs, so that it never reads an end of file when editors come and go.
///
/// Readable whenever an edit was committed since the last `drain`; the bytes carry nothing but their arrival.
public final class EditSignalListener: Sendable {
    /// The FIFO's descriptor (non-blocking), to wait on with `poll(2)`.
    public let descriptor: Int32

    /// Makes or opens the FIFO of `home` (whose folder must exist); refuses a path that holds anything but a FIFO.
    public init(home: RecipesHome) throws(WatchError) {
        let path = home.editSignalURL.path
        if mkfifo(path, 0o600) != 0, errno != EEXIST {
            throw WatchError(.system(ErrnoError(errno, .create, path: path)))
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw WatchError(.system(ErrnoError(errno, .inspect, path: path))) }
        guard (info.st_mode & S_IFMT) == S_IFIFO, info.st_uid == getuid() else {
            throw WatchError(.notOurs(path: path, expected: "a FIFO of yours"))
        }
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw WatchError(.system(ErrnoError(errno, .open, path: path))) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Reads every byte waiting; whether there was any (an edit was committed since the last call).
    public func drain() -> Bool {
        var any = false
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                any = true
                continue
            }
            if count < 0, errno == EINTR { continue }
            return any  // EAGAIN: empty
        }
    }
}
