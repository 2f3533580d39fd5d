import Foundation

/// The decisions of `recipes sync --watch` as a pure function: `(state, event, now) -> (state, actions)`.
///
/// The watcher sleeps until something happens — an edit committed by any `recipes` process, a network-change notice
/// from the kernel, the server's long poll answering, a sync pass ending, the retry timer, a signal — and this machine
/// says what to do about it; the code that runs it only performs the actions and turns what happens into events.
/// The rules (the reasons are in docs/watch.md):
/// - nothing polls without a reason: while the server is unreachable the watcher waits for a network-change notice,
///   and, while work waits to be sent, asks again with a connect probe after a delay that doubles from 2 s to 1 min
///   (a server that restarts leaves this machine's network as it was); the long poll runs only while the server
///   answered the last pass; the timer is armed only for a retry coming due;
/// - one pass at a time: whatever asks for a pass while one runs (edits, the long poll, the timer) makes one follow-up
///   pass after it, however many asked;
/// - network changes come in bursts (a link, its addresses, its routes): the reachability question is asked once the
///   notices have been quiet for `debounce`, and never later than `longestDebounce` after the first;
/// - refused credentials and set-up errors need a person: nothing is retried on its own until the configuration is
///   re-read (SIGHUP) or an edit asks for a pass;
/// - SIGTERM or SIGINT stop the watcher: a pass under way is interrupted (transfers aborted, leases released) and the
///   watcher stops when it has ended.
public enum WatchMachine {
    /// What the watcher knows and has under way.
    public struct State: Sendable, Equatable {
        /// Whether a pass runs, and whether the watcher is stopping.
        public var phase: Phase = .idle
        /// What the last pass or reachability answer said about the server.
        public var network: Network = .unknown
        /// Something asked for a pass while one ran: one more pass follows it.
        public var passWanted = false
        /// SIGHUP came while a pass ran: the configuration is re-read when it ends.
        public var reloadWanted = false
        /// A network-change notice came while a pass ran.
        public var networkChangedDuringPass = false
        /// The long poll is in flight or waiting to be renewed.
        public var longPolling = false
        /// Long polls that failed in a row (their renewal backs off).
        public var longPollFailures = 0
        /// When the retry timer fires, if it is armed.
        public var timer: Date?
        /// The network-change notices being waited out, if any.
        public var debounce: Debounce?
        /// Why nothing is retried on its own, if so.
        public var halted: Halt?
        /// While the server cannot be reached and work waits to be sent: when the next connect probe asks again.
        public var retryProbe: Date?
        /// Connect probes in a row that found the server unreachable while work waited (their delays double).
        public var offlineProbes = 0
        /// The pass under way was started by the long poll's changes: unless its pull moves the feed's cursor, the
        /// answer was no change, and the long poll backs off as after a failure.
        public var changesAnnounced = false

        /// A watcher that has not started.
        public init() {}
    }

    /// Whether a pass runs.
    public enum Phase: Sendable, Equatable {
        /// No pass runs.
        case idle
        /// A pass runs.
        case syncing
        /// SIGTERM came during a pass: the watcher stops when the pass has ended.
        case stopping
        /// The watcher has stopped; every event is ignored.
        case stopped
    }

    /// What is known of the server's reachability.
    public enum Network: Sendable, Equatable {
        /// Not asked yet (at the start, after SIGHUP).
        case unknown
        /// The last pass or question reached it.
        case reachable
        /// It could not be reached: the watcher waits for a network-change notice.
        case offline
    }

    /// Network-change notices being waited out before reachability is asked.
    public struct Debounce: Sendable, Equatable {
        /// When the first notice of the burst came.
        public var since: Date
        /// When the question is asked unless another notice comes first.
        public var until: Date

        /// Creates a debounce.
        public init(since: Date, until: Date) {
            self.since = since
            self.until = until
        }
    }

    /// Why the watcher retries nothing on its own.
    public enum Halt: Sendable, Equatable {
        /// The server refused the credentials.
        case credentialsRefused
        /// The pass could not start (no server, a CA bundle that does not read, the database…).
        case setupError
    }

    /// Something that happened.
    public enum Event: Sendable, Equatable {
        /// The watcher began.
        case started
        /// A `recipes` process committed an edit.
        case localEdit
        /// The kernel announced a change of links, addresses or routes.
        case networkChanged
        /// The reachability question was answered.
        case reachabilityAnswered(Bool)
        /// The long poll ended.
        case longPollAnswered(LongPollAnswer)
        /// The sync pass ended; `movedCursor`: its pull moved the feed's cursor (or the server has no feed: Mealie).
        case passEnded(PassEnd, movedCursor: Bool = false)
        /// The retry timer fired.
        case timerFired
        /// SIGHUP.
        case hangUp
        /// SIGTERM or SIGINT.
        case terminate
    }

    /// How a long poll ended.
    public enum LongPollAnswer: Sendable, Equatable {
        /// The server has changes after this home's cursor (or is another server): a pass pulls them.
        case changes
        /// The wait passed without a change.
        case empty
        /// The connection could not be opened.
        case unreachable
        /// The server answered with an error, or too early, or something else went wrong; `retryAfter` in seconds when
        /// the server said.
        case failed(retryAfter: TimeInterval?)
        /// The server refused the credentials (a pass finds out and reports it).
        case refused
    }

    /// How a sync pass ended.
    public enum PassEnd: Sendable, Equatable {
        /// Nothing is left to do.
        case done
        /// The server could not be reached: nothing was sent and no attempt counted; `unsent`: work waits to be sent.
        case waitingForNetwork(unsent: Bool)
        /// A recipe's retry comes due at this time (or another process's lease on a due recipe lapses then).
        case backoff(until: Date)
        /// The server refused the credentials.
        case credentialsRefused
        /// The pass could not start; the words say why.
        case setupError(String)
    }

    /// Something the watcher must do.
    public enum Action: Sendable, Equatable {
        /// Start a sync pass (pull, then push).
        case startPass
        /// Interrupt the pass under way (it ends soon with its leases released).
        case interruptPass
        /// Start the long poll at this time, replacing any under way.
        case startLongPoll(at: Date)
        /// Stop the long poll.
        case cancelLongPoll
        /// Fire the retry timer at this time, replacing any armed.
        case armTimer(at: Date)
        /// Disarm the retry timer.
        case cancelTimer
        /// Ask whether the server can be reached at this time, replacing any question pending.
        case askReachability(at: Date)
        /// Drop the question pending (a pass finds out for itself).
        case cancelReachability
        /// Re-read the configuration.
        case reloadConfiguration
        /// End the watcher.
        case stop
    }

    /// A new state and what to do.
    public struct Transition: Sendable, Equatable {
        /// The state after the event.
        public var state: State
        /// The actions, in order.
        public var actions: [Action]

        /// Creates a transition.
        public init(state: State, actions: [Action]) {
            self.state = state
            self.actions = actions
        }
    }

    /// How long network-change notices must be quiet before reachability is asked.
    public static let debounce: TimeInterval = 0.5
    /// The longest a burst of notices may put the question off, from its first notice.
    public static let longestDebounce: TimeInterval = 2
    /// The longest wait before renewing a failing long poll (its delays double from 1 s up to this).
    public static let longestLongPollDelay: TimeInterval = 300
    /// The first wait before a connect probe asks again for a server that could not be reached while work waits.
    public static let firstOfflineProbeDelay: TimeInterval = 2
    /// The longest such wait (the delays double from `firstOfflineProbeDelay` up to this).
    public static let longestOfflineProbeDelay: TimeInterval = 60
    /// The longest `Retry-After` of a long poll that is honoured.
    public static let longestRetryAfter: TimeInterval = 3600
}
