import Foundation
import RecipeStore
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// One watcher per home: an exclusive `flock` on `<home>/watch.lock`, held for the watcher's life, with its process
/// id written inside so that a second watcher can name it.
///
/// A `flock` belongs to the open file and ends with the process however it ends (`kill -9` included), so the lock
/// never goes stale; it is taken on a file of its own, never on the database (whose POSIX locks SQLite owns).
public final class WatchLock: Sendable {
    /// The lock file's descriptor; closing it releases the lock.
    private let descriptor: Int32

    /// Takes the lock of `home` (whose folder must exist) for this process; throws `.alreadyWatching` naming the
    /// process that holds it.
    public init(home: RecipesHome, processID: Int32 = getpid()) throws(WatchError) {
        let path = home.watchLockURL.path
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw WatchError(.notOurs(path: path, expected: "a plain file")) }
            throw WatchError(.system(ErrnoError(errno, .open, path: path)))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw WatchError(.notOurs(path: path, expected: "a plain file"))
        }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            guard code == EWOULDBLOCK else { throw WatchError(.system(ErrnoError(code, .lock, path: path))) }
            throw WatchError(.alreadyWatching(home: home.url.path, processID: Self.holder(path)))
        }
        let text = Array("\(processID)\n".utf8)
        guard ftruncate(descriptor, 0) == 0, pwrite(descriptor, text, text.count, 0) == text.count else {
            let error = ErrnoError(errno, .write, path: path)
            close(descriptor)
            throw WatchError(.system(error))
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The process id written in the lock file at `path` by the watcher holding it; nil when it names none (the
    /// holder has not written it yet). A watcher writes it right after taking the lock, so a second one waits a
    /// moment for it.
    static func holder(_ path: String) -> Int32? {
        for attempt in 0..<20 {
            if attempt > 0 { usleep(25_000) }
            if let id = processID(in: path) { return id }
        }
        return nil
    }

    /// The process id the lock file at `path` holds, if it holds one.
    static func processID(in path: String) -> Int32? {
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data.prefix(32), encoding: .utf8),
            let id = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), id > 0
        else { return nil }
        return id
    }

    /// The process id of the watcher running for `home`, if one runs (its lock is held); for `recipes service status`.
    public static func runningWatcher(of home: RecipesHome) -> Int32? {
        let path = home.watchLockURL.path
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 { return nil }  // nobody holds it (ours goes with the close)
        return processID(in: path)
    }
}
