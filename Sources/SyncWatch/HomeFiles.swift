import Foundation
import RecipeStore
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The files of the home a watcher keeps using while it runs — the database it opened, the edit FIFO it reads, the
/// lock it holds — and whether each is still the one it opened, by identity (device and inode), told by inotify on
/// the home folder when a name in it is created, deleted or renamed.
///
/// A database deleted (the next command makes a new one) or replaced (`mv` of a backup, `recipes doctor`'s salvage)
/// would leave the watcher syncing a file no command uses; a FIFO replaced by a plain file would no longer wake it; a
/// lock deleted would let a second watcher start. None of them can be taken back safely from inside (the lock least:
/// another watcher may hold the new one already), so the watcher says which and stops, for a person or its supervisor
/// to start it again on the files there now.
public final class HomeFiles: Sendable {
    /// A file's identity.
    public struct Identity: Sendable, Equatable {
        /// The device of its file system.
        public var device: UInt64
        /// Its inode.
        public var inode: UInt64

        /// Creates an identity.
        public init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }

        /// The identity of the file at `path` (not following a link), nil when there is none.
        public static func of(path: String) -> Identity? {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }

        /// The identity of the open file `descriptor`, nil when it cannot be had.
        public static func of(descriptor: Int32) -> Identity? {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return nil }
            return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }
    }

    /// One file kept, and what it is for (in the words of the message).
    public struct Kept: Sendable, Equatable {
        /// Its path.
        public var path: String
        /// Its identity when the watcher opened it.
        public var identity: Identity
        /// What goes wrong once it is not the one opened (`edits would no longer wake the watcher`).
        public var consequence: String

        /// Creates a kept file.
        public init(path: String, identity: Identity, consequence: String) {
            self.path = path
            self.identity = identity
            self.consequence = consequence
        }
    }

    /// A kept file that is not the one opened any more.
    public struct Change: Sendable, Equatable, LocalizedError {
        /// The file.
        public var kept: Kept
        /// Whether its name is gone (else another file has it).
        public var deleted: Bool

        public var errorDescription: String? {
            "\(kept.path) was \(deleted ? "deleted" : "replaced") while the watcher ran (\(kept.consequence)); it "
                + "stopped so that it starts again on the files there now: start it again (`recipes sync --watch`; "
                + "`recipes service install` makes one that is restarted by itself)"
        }
    }

    /// The inotify descriptor (non-blocking), readable when a name in the home folder changed.
    public let descriptor: Int32
    private let kept: [Kept]

    /// Watches the home folder of `kept` for changes of names.
    public init(home: RecipesHome, kept: [Kept]) throws(WatchError) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw WatchError(.system(ErrnoError(errno, .open, path: "inotify"))) }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        guard inotify_add_watch(descriptor, home.url.path, mask) >= 0 else {
            let error = ErrnoError(errno, .inspect, path: home.url.path)
            close(descriptor)
            throw WatchError(.system(error))
        }
        self.descriptor = descriptor
        self.kept = kept
    }

    deinit { close(descriptor) }

    /// Reads every notice waiting (they only say "look again").
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count < 0, errno == EINTR { continue }
            return  // EAGAIN: empty
        }
    }

    /// The first kept file that is not the one opened any more, if one is not.
    public func change() -> Change? {
        Self.change(kept, now: { Identity.of(path: $0) })
    }

    /// The first of `kept` whose path `identity` no longer gives its identity.
    static func change(_ kept: [Kept], now identity: (String) -> Identity?) -> Change? {
        for file in kept {
            guard let current = identity(file.path) else { return Change(kept: file, deleted: true) }
            if current != file.identity { return Change(kept: file, deleted: false) }
        }
        return nil
    }
}
