import Foundation

/// The sync bookkeeping of one recipe: revisions, attempts, backoff, lease and cancellation.
public struct SyncInfo: Sendable, Equatable {
    /// The stored state (`uploading` is derived from a live lease, see `effectiveState(at:)`).
    public var state: SyncState
    /// The local revision; every successful edit increments it.
    public var revision: Int64
    /// The highest revision the server has acknowledged; 0 when it has none.
    public var syncedRevision: Int64
    /// Failed attempts since the last success or edit.
    public var attempts: Int
    /// The earliest time of the next attempt, when waiting for a retry.
    public var nextAttemptAt: Date?
    /// The last failure in words, when there was one.
    public var lastError: String?
    /// The process that holds the upload lease (`pid:start`), when one does.
    public var leaseOwner: String?
    /// When the lease lapses unless renewed.
    public var leaseExpiresAt: Date?
    /// Whether the user asked to cancel this recipe's upload.
    public var cancelRequested: Bool
    /// The server URL of the recipe's image once uploaded.
    public var remoteImageURL: String?
    /// The SHA-256 of the image the server has for this recipe.
    public var remoteImageSHA256: String?
    /// When the server was last found unreachable while this recipe waited for it.
    public var offlineSince: Date?
    /// Whether the user deleted the recipe: it stays until the server confirms the deletion (kept apart from `state`
    /// so that a cancelled or failed deletion is still a deletion when it is resumed).
    public var deleted: Bool
    /// The highest revision a sync may have sent the server (recorded with its claim); 0 when none was ever sent, so
    /// that deleting it needs no word to the server.
    public var sentRevision: Int64
    /// The server version this draft is based on (two-way sync's "base"), nil when the server never had the recipe.
    public var serverVersion: Int64?
    /// The fields of version `serverVersion` as the server has them: the base of a three-way merge; nil when unknown.
    public var base: RecipeFields?
    /// What a merge left for a person to choose, if anything; the recipe is then in conflict.
    public var conflict: RecipeConflict?

    /// Creates sync bookkeeping.
    public init(
        state: SyncState, revision: Int64, syncedRevision: Int64 = 0, attempts: Int = 0, nextAttemptAt: Date? = nil,
        lastError: String? = nil, leaseOwner: String? = nil, leaseExpiresAt: Date? = nil, cancelRequested: Bool = false,
        remoteImageURL: String? = nil, remoteImageSHA256: String? = nil, offlineSince: Date? = nil,
        deleted: Bool = false, sentRevision: Int64 = 0, serverVersion: Int64? = nil, base: RecipeFields? = nil,
        conflict: RecipeConflict? = nil
    ) {
        self.state = state
        self.revision = revision
        self.syncedRevision = syncedRevision
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
        self.cancelRequested = cancelRequested
        self.remoteImageURL = remoteImageURL
        self.remoteImageSHA256 = remoteImageSHA256
        self.offlineSince = offlineSince
        self.deleted = deleted
        self.sentRevision = sentRevision
        self.serverVersion = serverVersion
        self.base = base
        self.conflict = conflict
    }

    /// The longest wait a sync records: the retry policy's longest `Retry-After` (a day) and an hour for backoff and
    /// jitter. A moment further ahead than this was recorded by a clock that has since been set back (a clock a
    /// person corrected by a month, a board without a real-time clock that booted in the future): that recipe is due
    /// now, not a month on.
    public static let longestWait: TimeInterval = 25 * 3600

    /// Whether a retry wait still lies ahead at `now`: `nextAttemptAt` is later than `now`, and no further ahead than
    /// `longestWait`.
    public func waitIsAhead(at now: Date) -> Bool {
        guard let next = nextAttemptAt else { return false }
        let ahead = next.timeIntervalSince(now)
        return ahead > 0 && ahead <= Self.longestWait
    }

    /// Whether a lease is held and has not lapsed at `now`.
    public func hasLiveLease(at now: Date) -> Bool {
        guard leaseOwner != nil, let expiry = leaseExpiresAt else { return false }
        return expiry > now
    }

    /// The state to show at `now`: conflicts read as `conflict`, a live lease as `uploading`, a lapsed backoff as
    /// `pending`.
    ///
    /// A stored `uploading` whose lease has lapsed (its process died) reads as `pending` again.
    public func effectiveState(at now: Date) -> SyncState {
        if conflict != nil { return .conflict }
        switch state {
        case .pending, .waiting, .uploading:
            if hasLiveLease(at: now) { return .uploading }
            if state == .uploading { return .pending }
            if state == .waiting, nextAttemptAt != nil, !waitIsAhead(at: now) { return .pending }
            return state
        case .synced, .failed, .cancelled, .deleting, .conflict:
            return state
        }
    }

    /// The same bookkeeping without its lease when `isOwnerAlive` says the owner's process is gone.
    public func droppingLease(unless isOwnerAlive: (String) -> Bool) -> SyncInfo {
        guard let owner = leaseOwner, !isOwnerAlive(owner) else { return self }
        var copy = self
        copy.leaseOwner = nil
        copy.leaseExpiresAt = nil
        return copy
    }

    /// The process id in the lease owner (`pid:start`), when a lease is recorded.
    public var leaseProcessID: Int32? {
        guard let owner = leaseOwner, let pid = owner.split(separator: ":").first else { return nil }
        return Int32(pid)
    }
}
