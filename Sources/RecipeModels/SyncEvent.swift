import Foundation

/// One thing that happened during a sync run, as front ends show it: progress bars on a terminal, one plain line
/// per event otherwise, NDJSON with `--json`, and lines in `logs/sync.log` for background runs.
///
/// Plain values only, so that events can be buffered and sent between tasks without keeping anything alive.
public struct SyncEvent: Sendable, Equatable {
    /// What happened (the `event` field of `--json`).
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A step started its first attempt.
        case start
        /// Bytes of a step's body went out.
        case progress
        /// A step failed with a transient error; it is tried again after `delay`.
        case retry
        /// The recipe's chain finished: the server has the revision (or the deletion).
        case done
        /// The recipe failed: permanently, after too many attempts, or because the credentials were refused.
        case failed
        /// The recipe's upload was cancelled (`recipes cancel`, Ctrl-C).
        case cancelled
        /// The server could not be reached; nothing was sent and no attempt was counted.
        case offline
        /// The recipe was not uploaded in this run: busy in another process, or waiting for a later retry.
        case skipped
        /// A recipe this device did not have, or had not changed, was taken from the server.
        case pulled
        /// A change from the server was merged with local edits, field by field.
        case merged
        /// A change here and a change on the server need a person to choose (`recipes resolve`).
        case conflict
        /// A recipe deleted on the server (and not changed here) was removed here.
        case removed
        /// An image was downloaded from the server.
        case downloaded
    }

    /// Which request of the chain an event is about (the `step` field of `--json`).
    public enum Step: String, Sendable, Equatable, CaseIterable {
        /// `PUT /v1/images/{sha256}` (after a `HEAD`).
        case image
        /// `PUT /v1/recipes/{uuid}`.
        case recipe
        /// `DELETE /v1/recipes/{uuid}`.
        case delete
        /// The server's copy read after a stale write or deletion (`GET /v1/recipes/{uuid}`).
        case read
        /// The server's copy merged into the draft, before it is written again.
        case merge
    }

    /// What happened.
    public var kind: Kind
    /// The recipe's local id.
    public var id: Int64
    /// The recipe's identity on the server.
    public var uuid: UUID
    /// The recipe's title, for human-readable output (not part of the JSON contract, but written there too).
    public var title: String
    /// The step, where one applies.
    public var step: Step?
    /// The revision this chain uploads.
    public var revision: Int64?
    /// Bytes sent so far (`progress`, `done` of a step with a body).
    public var bytes: Int64?
    /// Bytes to send in total, when known.
    public var total: Int64?
    /// The attempt number (1-based, counting earlier runs).
    public var attempt: Int?
    /// Seconds until the next attempt (`retry`, `skipped` for a later retry).
    public var delay: Double?
    /// What went wrong, in words (never contains a token).
    public var error: String?
    /// When it happened.
    public var time: Date
    /// The server's version of the recipe the event leaves it at (`done`: the version the upload became; `pulled`,
    /// `merged`: the version taken from the server), where one is known: the number every device shares.
    public var version: Int64?
    /// What the person can do about it, when the event asks something of them; each output names the command in
    /// its own words (a shell's or the REPL's, see `CommandDialect`).
    public var hint: Hint?

    /// A command the person may want to run about the recipe of an event.
    public enum Hint: Sendable, Equatable {
        /// Choose between the two sides of a conflict: `recipes resolve <id> --mine` or `--theirs`.
        case resolve
        /// Sync it by id, which resumes a cancelled recipe: `recipes sync <id>` resumes it.
        case resume
        /// Sync it by id, which tries a failed recipe again from its first attempt: `recipes sync <id>` tries it again.
        case retry
    }

    /// Creates an event.
    public init(
        _ kind: Kind, id: Int64, uuid: UUID, title: String, step: Step? = nil, revision: Int64? = nil,
        bytes: Int64? = nil, total: Int64? = nil, attempt: Int? = nil, delay: Double? = nil, error: String? = nil,
        time: Date = Date(), version: Int64? = nil, hint: Hint? = nil
    ) {
        self.kind = kind
        self.id = id
        self.uuid = uuid
        self.title = title
        self.step = step
        self.revision = revision
        self.bytes = bytes
        self.total = total
        self.attempt = attempt
        self.delay = delay
        self.error = error
        self.time = time
        self.version = version
        self.hint = hint
    }
}

/// Why a run's pull stopped before the server's latest change: what stopped it, which a watcher acts on, and the words
/// a person is shown.
public struct PullStop: Sendable, Equatable {
    /// What stopped a pull.
    public enum Cause: Sendable, Equatable {
        /// The server could not be reached: a later pull, once the network is back, goes on.
        case unreachable
        /// The run was stopped (Ctrl-C, refused credentials, a set-up mistake found by another request).
        case interrupted
        /// The server answered, but not so that the pull could go on (errors past the retries, a feed that does not
        /// add up).
        case failed
    }

    /// What stopped it.
    public var cause: Cause
    /// Why, in words (`cannot reach host:port: …`).
    public var words: String

    /// A stop for `cause`, said as `words`.
    public init(_ cause: Cause, _ words: String) {
        self.cause = cause
        self.words = words
    }
}

/// How a whole sync run ended, and the exit status that says so.
public struct SyncSummary: Sendable, Equatable {
    /// Recipes whose chain finished on the server.
    public var done = 0
    /// Recipes that failed permanently or ran out of attempts.
    public var failed = 0
    /// Recipes cancelled during the run.
    public var cancelled = 0
    /// Recipes still waiting: offline, backoff, busy in another process, or edited during their upload.
    public var waiting = 0
    /// Recipes taken from the server (added or replaced).
    public var pulled = 0
    /// Changes from the server merged with local edits.
    public var merged = 0
    /// Recipes in conflict after this run (each waits for a person).
    public var conflicts = 0
    /// Recipes removed here because the server deleted them.
    public var removed = 0
    /// Recipes that failed in an earlier run and wait for a person (`recipes sync <id>`): not retried, reminded of.
    public var failedEarlier = 0
    /// Recipes cancelled earlier (`recipes cancel`), left alone until edited or synced by id: reminded of.
    public var cancelledEarlier = 0
    /// Why the pull stopped before the server's latest change (the server unreachable, failing), if it did.
    public var pullStopped: PullStop?
    /// Whether the server refused the credentials (the run stopped).
    public var credentialsRefused = false
    /// What is wrong with the set-up when the destination is not a recipes server or speaks another protocol (the run
    /// stopped; a person must fix server.url), in words.
    public var setupProblem: String?
    /// The optional requests the server lists but did not answer in this run (which request failed, how, and what the
    /// run sent instead), in words: nothing failed, the run used the requests every server answers.
    public var fallbacks: [String] = []

    /// Creates an empty summary.
    public init(
        done: Int = 0, failed: Int = 0, cancelled: Int = 0, waiting: Int = 0, credentialsRefused: Bool = false,
        pulled: Int = 0, merged: Int = 0, conflicts: Int = 0, removed: Int = 0, failedEarlier: Int = 0,
        cancelledEarlier: Int = 0
    ) {
        self.done = done
        self.failed = failed
        self.cancelled = cancelled
        self.waiting = waiting
        self.credentialsRefused = credentialsRefused
        self.pulled = pulled
        self.merged = merged
        self.conflicts = conflicts
        self.removed = removed
        self.failedEarlier = failedEarlier
        self.cancelledEarlier = cancelledEarlier
    }

    /// How the run ended for the person who started it, the most serious first: the credentials were refused, else
    /// a recipe failed (in this run or an earlier one) or is in conflict (a person must act), else some work is left
    /// for a later run (offline, backoff, busy, cancelled during the run), else everything asked for is on the server
    /// (a recipe cancelled earlier was not asked for: it is reminded of, and the run is complete).
    public enum Verdict: Sendable, Equatable {
        /// Everything asked for is on the server.
        case complete
        /// Some work is left for a later run.
        case workLeft
        /// A recipe failed, or a conflict waits for a person.
        case someFailed
        /// The server refused the credentials; the run stopped.
        case credentialsRefused
    }

    /// The run's verdict (see `Verdict`).
    public var verdict: Verdict {
        if credentialsRefused { return .credentialsRefused }
        if failed > 0 || conflicts > 0 || failedEarlier > 0 || setupProblem != nil { return .someFailed }
        if waiting > 0 || cancelled > 0 || pullStopped != nil { return .workLeft }
        return .complete
    }
}
