import Foundation
import OperationEngine
import RecipeStore
import Transport

/// What one `recipes sync` asks for.
public struct SyncOptions: Sendable, Equatable {
    /// Exactly these recipes, now (resuming cancelled and failed ones, skipping backoff); nil: every due recipe.
    public var ids: [Int64]?
    /// How many recipes upload at once on a link with a short round trip (the connections a run starts with).
    public var jobs: Int
    /// The most connections a run opens to its server: on a long round trip it opens more than `jobs`
    /// (`ConnectionPlan`), never more than this. A number of jobs the user chose for this run (`--jobs`) is exact:
    /// `maxConnections` is then `jobs`.
    public var maxConnections: Int = 16
    /// The longest retry wait slept out inside the run; a longer one is recorded for a later run.
    public var maxWait: Duration
    /// How long to wait for an unreachable server to come back before giving up for this run.
    public var waitForNetwork: Duration
    /// Which way to sync: both (pull, then push), or one of them.
    public var direction: Direction

    /// Which way a run syncs.
    public enum Direction: Sendable, Equatable {
        /// Pull the server's changes, then push this device's (`recipes sync`).
        case both
        /// Only pull (`--pull-only`).
        case pullOnly
        /// Only push (`--push-only`, and a sync of chosen recipes).
        case pushOnly
    }

    /// Creates options; the defaults are the contract's (4 jobs, 30 s, no waiting for the network, both ways; a sync
    /// of chosen recipes only pushes them).
    public init(
        ids: [Int64]? = nil, jobs: Int = 4, maxWait: Duration = .seconds(30), waitForNetwork: Duration = .zero,
        direction: Direction = .both
    ) {
        self.ids = ids
        self.jobs = max(1, jobs)
        self.maxWait = maxWait
        self.waitForNetwork = waitForNetwork
        self.direction = ids == nil ? direction : .pushOnly
    }

    /// The most transfers the run's client may run at once: `maxConnections`, or `jobs` when more.
    public var connectionCeiling: Int { max(jobs, maxConnections) }

    /// These options with exactly `jobs` transfers at once, whatever the link (`recipes sync --jobs N`).
    public func exactly(jobs: Int) -> SyncOptions {
        var options = self
        options.jobs = max(1, jobs)
        options.maxConnections = options.jobs
        return options
    }

    /// Whether the run pulls.
    public var pulls: Bool { direction != .pushOnly }
    /// Whether the run pushes.
    public var pushes: Bool { direction != .pullOnly }
}

/// Where and how a run uploads, and everything it takes from the outside world — time, randomness, reachability,
/// the process's identity — so that tests can inject them.
public struct SyncSettings: Sendable {
    /// The server's requests; nil when none is configured (a run with nothing due still succeeds).
    public var api: ServerAPI?
    /// What kind of server `api` names (`server.kind`): the contract server or a Mealie.
    public var kind: DestinationKind
    /// The bearer token, if any (never printed; redacted from every message).
    public var token: String?
    /// An extra CA bundle for TLS, joined to the system's.
    public var caBundlePath: String?
    /// The one answer to "can the server be reached?" for everything this configuration runs (the run, its steps,
    /// the feed check, the watcher), made from the `probe` given to `init`.
    public var reachability: Reachability
    /// The engine's clock for retry waits.
    public var clock: any EngineClock
    /// The jitter of retry waits.
    public var random: any RandomSource
    /// The wall clock, for stamps in the database and events.
    public var now: @Sendable () -> Date
    /// This process's lease owner string.
    public var owner: String
    /// Whether the process named by a lease owner still runs.
    public var isOwnerAlive: @Sendable (String) -> Bool
    /// How long a lease lasts unless renewed (renewed every third of it).
    public var leaseDuration: TimeInterval
    /// How often the run looks for cancellation requests from other processes (the contract allows 100 ms).
    public var pollInterval: Duration
    /// The most attempts per recipe before it is `failed`.
    public var maxAttempts: Int
    /// The backoff ceiling before the first retry (it doubles with each further attempt).
    public var baseDelay: Duration
    /// The highest backoff ceiling.
    public var maxDelay: Duration
    /// How often reachability is checked again while waiting for the network.
    public var networkPollInterval: Duration

    /// Creates settings with the contract's defaults and the live world (clock, randomness, TCP probe, /proc).
    public init(
        api: ServerAPI?, kind: DestinationKind = .http, token: String? = nil, caBundlePath: String? = nil,
        probe: ConnectProbe = .live(), clock: any EngineClock = ContinuousEngineClock(),
        random: any RandomSource = SystemRandomSource(), now: @escaping @Sendable () -> Date = { Date() },
        owner: String = LeaseOwner.current, isOwnerAlive: @escaping @Sendable (String) -> Bool = LeaseOwner.isAlive,
        leaseDuration: TimeInterval = 60, pollInterval: Duration = .milliseconds(50), maxAttempts: Int = 8,
        baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(300), networkPollInterval: Duration = .seconds(1)
    ) {
        self.api = api
        self.kind = kind
        self.token = token
        self.caBundlePath = caBundlePath
        self.reachability = Reachability(probe: probe, now: now)
        self.clock = clock
        self.random = random
        self.now = now
        self.owner = owner
        self.isOwnerAlive = isOwnerAlive
        self.leaseDuration = leaseDuration
        self.pollInterval = pollInterval
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.networkPollInterval = networkPollInterval
    }
}

/// The kinds of destination a run syncs with (`server.kind`, docs/sync-engine.md "The destination seam").
public enum DestinationKind: String, Sendable, Equatable, CaseIterable {
    /// A server of the HTTP contract (`HTTPDestination`).
    case http
    /// A Mealie 2.x (`MealieDestination`, docs/mealie.md).
    case mealie
}
