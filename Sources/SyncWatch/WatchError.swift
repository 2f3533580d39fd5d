import Foundation
import SystemFiles

/// Why `recipes sync --watch` cannot start: what is wrong and what to do.
public struct WatchError: Error, LocalizedError, Sendable, Equatable {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// Another watcher holds this home's lock; its process id when its lock file names one.
        case alreadyWatching(home: String, processID: Int32?)
        /// The path where the watcher keeps its FIFO (or its lock) holds something else.
        case notOurs(path: String, expected: String)
        /// A system call failed.
        case system(ErrnoError)
        /// The kernel's network notices cannot be had (netlink refused); the reason in words.
        case noNetworkNotices(String)
        /// A file of the home the watcher uses was deleted or replaced while it ran: it stopped.
        case homeFileChanged(HomeFiles.Change)
    }

    /// What went wrong.
    public var kind: Kind

    /// Creates an error of `kind`.
    public init(_ kind: Kind) { self.kind = kind }

    public var errorDescription: String? {
        switch kind {
        case .alreadyWatching(let home, let processID?):
            "another `recipes sync --watch` (pid \(processID)) is already watching \(home); it syncs this home, so leave "
                + "it running, or stop it first (`kill \(processID)`)"
        case .alreadyWatching(let home, nil):
            "another `recipes sync --watch` is already watching \(home) (its pid is not written yet); it syncs this "
                + "home, so leave it running, or stop it first"
        case .notOurs(let path, let expected):
            "\(path) is not \(expected) as `recipes sync --watch` makes it; move it away and start the watcher again"
        case .system(let error):
            error.errorDescription
        case .homeFileChanged(let change):
            change.errorDescription
        case .noNetworkNotices(let reason):
            "cannot listen to the kernel's network notices (rtnetlink): \(reason); the watcher needs them to know when "
                + "the network comes back (use `recipes cron install` or `recipes service install --timer` instead)"
        }
    }
}
