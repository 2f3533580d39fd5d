import Foundation
import RecipeModels

/// Where a watcher shows what happens: the events and summary of each pass, as a sync run shows them, and the
/// watcher's own notices.
public protocol WatchOutput: Sendable {
    /// Shows one event of the pass under way.
    func emit(_ event: SyncEvent)
    /// Shows how a pass ended; called once per pass, after its last event.
    func finish(_ summary: SyncSummary)
    /// Shows what the watcher itself did or found.
    func notice(_ notice: WatchNotice)
}

/// What the watcher itself says, beside the passes' events.
public enum WatchNotice: Sendable, Equatable {
    /// The watcher started watching `home`.
    case watching(home: String)
    /// A pass starts; why, in a word (`start`, `edit`, `server`, `network`, `retry`, `reload`).
    case passStarted(reason: String)
    /// The server could not be reached: the watcher waits for the network to change. `probes`: how many reachability
    /// probes the watcher has made since its configuration was read (it does not poll: they follow events).
    case offline(probes: Int)
    /// The server can be reached again (`probes` as for `offline`).
    case online(probes: Int)
    /// The configuration was re-read (SIGHUP).
    case reloaded
    /// The configuration could not be re-read; the watcher keeps the one it had. Needs a person.
    case reloadFailed(String)
    /// A pass could not start (no server, the database, a CA bundle…); nothing is retried until SIGHUP or an edit.
    /// Needs a person.
    case passFailed(String)
    /// A file of the home the watcher uses was deleted or replaced; it stops (and exits 1) to be started again.
    case homeFileChanged(String)
    /// The watcher stopped (SIGTERM, Ctrl-C, or a file of its home changed).
    case stopped
}
