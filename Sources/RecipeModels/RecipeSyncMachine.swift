import Foundation

/// What `recipes cancel` did to one recipe.
public enum CancelResult: Sendable, Equatable {
    /// The recipe was queued or waiting for a retry; it is now `cancelled`.
    case cancelledQueued
    /// The recipe is being uploaded by process `processID` (the owner string when it names no pid); that
    /// process notices the request within its polling interval and aborts the transfer.
    case cancelledInFlight(owner: String, processID: Int32?)
    /// Nothing was queued or running: the recipe is in `state`.
    case nothingToCancel(state: SyncState)
}

/// What the sync state machine of one recipe reads and writes: its sync bookkeeping and its local image.
public struct SyncRecord: Sendable, Equatable {
    /// The bookkeeping.
    public var sync: SyncInfo
    /// The attached image: its SHA-256 and the local copy's file name are what the machine looks at.
    public var image: ImageReference?

    /// Creates a record.
    public init(sync: SyncInfo, image: ImageReference? = nil) {
        self.sync = sync
        self.image = image
    }
}

/// The life of one recipe with the server as a pure function: `(record, event) -> transition`.
///
/// Every change the store makes to a recipe's sync bookkeeping — an edit, a deletion, a claim, a failed attempt, a
/// chain's end, a cancellation, a lease renewed or released, the server found offline — is decided here, on values;
/// the store only reads the row, asks, and writes the answer (see `RecipeStore+Sync`). The rules:
/// - an edit makes the recipe `pending` at the next revision and forgets attempts, errors and cancellation;
/// - revision fencing: a chain's success counts as `synced` only while the revision it uploaded is the current one;
///   an end of any kind says nothing about an edit made meanwhile, which stays as the edit left it;
/// - an image the server confirmed is remembered while this process still holds the lease of a recipe not deleted;
///   the local copy is let go once the server has the very image the recipe refers to;
/// - a deletion goes through the server only when the server may have had the recipe (`sentRevision`);
/// - a conflict keeps the recipe from being due until a person resolves it, or edits settle every part of it.
public enum RecipeSyncMachine {
    /// Something that happens to a recipe.
    public enum Event: Sendable, Equatable {
        /// The user changed a field.
        case edited
        /// The user deleted the recipe.
        case deleted
        /// A sync process claims the recipe (`explicit`: `recipes sync <id>`, which resumes cancelled and failed
        /// recipes and skips their backoff).
        case claimed(owner: String, now: Date, leaseDuration: TimeInterval, explicit: Bool)
        /// An attempt failed and will be retried within the run (persisted so that `kill -9` keeps the count).
        case attemptFailed(owner: String, attempts: Int, nextAttemptAt: Date, error: String)
        /// The chain that uploaded `claimedRevision` ended with `result`.
        case chainEnded(owner: String, claimedRevision: Int64, result: ChainResult, confirmedImage: ConfirmedImage?)
        /// `recipes cancel`; `leaseAlive`: a live process holds the recipe's lease.
        case cancelRequested(leaseAlive: Bool)
        /// The lease holder extends its lease.
        case leaseRenewed(owner: String, until: Date)
        /// The lease holder lets go of its lease.
        case leaseReleased(owner: String)
        /// The server could not be reached while the recipe was due.
        case offline(since: Date)
        /// The recipe's fields were set from a merge with the server's version `version` (a pull, a push answered
        /// 412, a resolution): `base` is that version's fields, `outcome` says what is left, `fieldsChanged` whether the
        /// local fields changed (a change bumps the revision), `deleted` whether the recipe stays deleted here.
        case merged(version: Int64?, base: RecipeFields?, outcome: MergeOutcome, fieldsChanged: Bool, deleted: Bool)
        /// The server deleted the recipe and this device had not changed it: it goes here too.
        case removedOnServer
        /// The server's copy at exactly the version the draft is based on, seen by a pull, for a recipe whose base is
        /// unknown (a home migrated from before two-way sync): that copy is the base, and nothing else changes.
        case baseRecovered(version: Int64, fields: RecipeFields)
        /// The user changed a field of a recipe in conflict: an edit, and `left` is the conflict it did not settle (nil:
        /// none, the recipe is an ordinary pending edit based on the server version it was merged against).
        case editedInConflict(left: RecipeConflict?)
        /// A person chose how to resolve the recipe's conflict (`recipes resolve`); its fields, if any, are written.
        case resolved(Resolution)
    }

    /// What a person's choice does to a recipe in conflict (`recipes resolve`). Each is a change: the revision moves
    /// on, and attempts, errors, backoff and cancellation are forgotten; the server version it is based on stays.
    public enum Resolution: Sendable, Equatable {
        /// The chosen fields are the draft now: `left` is what is still in conflict (nil: nothing); `matchesServer`
        /// whether the draft equals the server's copy (the base), which makes it synced without a push.
        case fields(left: RecipeConflict?, matchesServer: Bool)
        /// Deleted on the server, kept here: pending, pushed as the tombstone's version + 1.
        case recreate
        /// Deleted here, and that is chosen: the deletion is due again (a `DELETE` of the server's version).
        case delete
        /// Deleted here, the server's copy chosen (its fields written): no longer deleted, synced at that version.
        case restore
    }

    /// What a merge left.
    public enum MergeOutcome: Sendable, Equatable {
        /// The draft is what the server has: nothing to push.
        case synced
        /// The draft differs from the server's: it is pushed as the next version.
        case pending
        /// A person must choose: neither pushed nor failed until resolved.
        case conflict(RecipeConflict)
    }

    /// What the store does besides writing the new record.
    public enum Effect: Sendable, Equatable {
        /// The recipe's row goes: a recipe the server never saw was deleted, or the server confirmed a deletion.
        case removeRecipe
        /// The local media copy is no longer needed (the store deletes it once no row refers to it).
        case releaseMedia(String)
    }

    /// The outcome of one event.
    public struct Transition: Sendable, Equatable {
        /// The record after the event.
        public var record: SyncRecord
        /// What else to do.
        public var effects: [Effect] = []
        /// For a chain's end: the recipe was edited while the chain ran, so the edit is still due.
        public var editedMeanwhile = false
        /// For a cancellation: what it did.
        public var cancel: CancelResult?
    }

    /// The states of a recipe with work left for a sync: due now, or later after a backoff.
    public static let unsyncedStates: Set<SyncState> = [.pending, .waiting, .deleting, .uploading]

    /// The states of a recipe not on the server that a sync without ids leaves alone until a person acts: `failed`
    /// (after a permanent error or too many attempts) and `cancelled`. Each such run reminds of them.
    public static let stoppedStates: Set<SyncState> = [.failed, .cancelled]

    /// Whether background sync should upload `record` at `now`: it has work left and no backoff ahead (a wait
    /// further ahead than any a sync records is one a clock set back made: `SyncInfo.longestWait`).
    public static func isDue(_ record: SyncRecord, at now: Date) -> Bool {
        guard unsyncedStates.contains(record.sync.state), record.sync.conflict == nil else { return false }
        return !record.sync.waitIsAhead(at: now)
    }

    /// Whether an explicit `recipes sync <id>` has nothing to send: the server has the current revision.
    public static func isOnServer(_ record: SyncRecord) -> Bool {
        !record.sync.deleted && record.sync.state == .synced && record.sync.revision <= record.sync.syncedRevision
            && record.sync.serverVersion != nil  // nil: synced to a server this home has left, not to this one
    }

    /// The process holding `record`'s lease when it is another live one (`isOwnerAlive`), else nil.
    public static func leaseHolderElsewhere(
        _ record: SyncRecord, owner: String, now: Date, isOwnerAlive: (String) -> Bool
    ) -> String? {
        guard let holder = record.sync.leaseOwner, holder != owner, record.sync.hasLiveLease(at: now),
            isOwnerAlive(holder)
        else { return nil }
        return holder
    }

    /// The record after `event`, and what else to do.
    public static func transition(_ record: SyncRecord, on event: Event) -> Transition {
        var next = record
        switch event {
        case .edited:
            next.sync.edit()
            return Transition(record: next)
        case .deleted:
            guard record.sync.syncedRevision > 0 || record.sync.sentRevision > 0 else {
                return Transition(record: next, effects: [.removeRecipe])
            }
            next.sync.edit()
            next.sync.state = .deleting
            next.sync.deleted = true
            return Transition(record: next)
        case .claimed(let owner, let now, let duration, let explicit):
            if explicit { resume(&next.sync) }
            next.sync.leaseOwner = owner
            next.sync.leaseExpiresAt = now.addingTimeInterval(duration)
            next.sync.cancelRequested = false
            // From here on the server may get this revision, so a deletion must go through the server.
            if !next.sync.deleted { next.sync.sentRevision = max(next.sync.sentRevision, next.sync.revision) }
            return Transition(record: next)
        case .attemptFailed(let owner, let attempts, let nextAttemptAt, let error):
            guard record.sync.leaseOwner == owner else { return Transition(record: next) }
            next.sync.attempts = attempts
            next.sync.nextAttemptAt = nextAttemptAt
            next.sync.lastError = error
            next.sync.offlineSince = nil
            if [.pending, .deleting, .uploading].contains(record.sync.state) { next.sync.state = .waiting }
            return Transition(record: next)
        case .chainEnded(let owner, let claimedRevision, let result, let confirmedImage):
            return chainEnded(record, owner: owner, claimedRevision: claimedRevision, result: result, confirmed: confirmedImage)
        case .cancelRequested(let leaseAlive):
            if [.synced, .failed, .cancelled].contains(record.sync.state), !leaseAlive {
                return Transition(record: next, cancel: .nothingToCancel(state: record.sync.state))
            }
            next.sync.state = .cancelled
            next.sync.cancelRequested = leaseAlive
            next.sync.nextAttemptAt = nil
            if leaseAlive, let holder = record.sync.leaseOwner {
                return Transition(record: next, cancel: .cancelledInFlight(owner: holder, processID: record.sync.leaseProcessID))
            }
            return Transition(record: next, cancel: .cancelledQueued)
        case .leaseRenewed(let owner, let until):
            if record.sync.leaseOwner == owner { next.sync.leaseExpiresAt = until }
            return Transition(record: next)
        case .leaseReleased(let owner):
            if record.sync.leaseOwner == owner { next.sync.releaseLease() }
            return Transition(record: next)
        case .offline(let since):
            next.sync.offlineSince = record.sync.offlineSince ?? since
            return Transition(record: next)
        case .merged(let version, let base, let outcome, let changed, let deleted):
            if changed { next.sync.revision += 1 }
            next.sync.serverVersion = version
            next.sync.base = base
            next.sync.deleted = deleted
            next.sync.attempts = 0
            next.sync.nextAttemptAt = nil
            next.sync.lastError = nil
            next.sync.cancelRequested = false
            next.sync.conflict = nil
            var effects: [Effect] = []
            adoptServerImage(of: base, synced: outcome == .synced, &next, &effects)
            switch outcome {
            case .synced:
                next.sync.state = .synced
                next.sync.syncedRevision = next.sync.revision
            case .pending:
                next.sync.state = deleted ? .deleting : .pending
            case .conflict(let conflict):
                next.sync.state = deleted ? .deleting : .pending
                next.sync.conflict = conflict
            }
            return Transition(record: next, effects: effects)
        case .removedOnServer:
            return Transition(record: next, effects: [.removeRecipe] + (record.image?.localFileName.map { [.releaseMedia($0)] } ?? []))
        case .baseRecovered(let version, let fields):
            if record.sync.base == nil, record.sync.serverVersion == version { next.sync.base = fields }
            return Transition(record: next)
        case .editedInConflict(let left):
            next.sync.edit()
            next.sync.conflict = left
            return Transition(record: next)
        case .resolved(let resolution):
            return resolved(record, resolution)
        }
    }

    /// A person's resolution of `record`'s conflict (see `Resolution`).
    private static func resolved(_ record: SyncRecord, _ resolution: Resolution) -> Transition {
        var next = record
        var effects: [Effect] = []
        next.sync.edit()
        next.sync.offlineSince = nil
        next.sync.conflict = nil
        switch resolution {
        case .fields(let left, let matchesServer):
            next.sync.conflict = left
            let synced = left == nil && matchesServer
            adoptServerImage(of: record.sync.base, synced: synced, &next, &effects)
            if synced {
                next.sync.state = .synced
                next.sync.syncedRevision = next.sync.revision
            }
        case .recreate:
            next.sync.deleted = false
        case .delete:
            next.sync.deleted = true
            next.sync.state = .deleting
        case .restore:
            next.sync.deleted = false
            next.sync.state = .synced
            next.sync.syncedRevision = next.sync.revision
            adoptServerImage(of: record.sync.base, synced: true, &next, &effects)
        }
        return Transition(record: next, effects: effects)
    }

    /// When the server's copy `base` holds the very image of `next`, remembers the server's URL (a later push need not
    /// send the bytes) and, once `synced`, lets the local media copy go.
    private static func adoptServerImage(
        of base: RecipeFields?, synced: Bool, _ next: inout SyncRecord, _ effects: inout [Effect]
    ) {
        guard let image = base?.image, let url = image.serverURL, next.image?.sha256 == image.sha256 else { return }
        next.sync.remoteImageSHA256 = image.sha256
        next.sync.remoteImageURL = url
        if synced, let localFile = next.image?.localFileName {
            next.image?.localFileName = nil
            effects.append(.releaseMedia(localFile))
        }
    }

    /// An explicit sync: a cancelled, failed, waiting or stale uploading recipe is due again at once (a failed one from
    /// attempt 1).
    private static func resume(_ sync: inout SyncInfo) {
        if sync.state == .failed { sync.attempts = 0 }
        if [.cancelled, .failed, .waiting, .uploading].contains(sync.state) {
            sync.state = sync.deleted ? .deleting : .pending
        }
        sync.nextAttemptAt = nil
    }

    /// A chain's end (see the type's rules).
    private static func chainEnded(
        _ record: SyncRecord, owner: String, claimedRevision: Int64, result: ChainResult, confirmed: ConfirmedImage?
    ) -> Transition {
        var next = record
        var effects: [Effect] = []
        // The confirmed image counts only while this process holds the lease of a recipe not being deleted.
        let holdsLease = record.sync.leaseOwner == owner && !record.sync.deleted
        let confirmed = holdsLease ? confirmed : nil
        let remote = confirmed?.sha256 ?? record.sync.remoteImageSHA256
        let localFile = record.image?.localFileName
        let mediaDone = localFile != nil && record.image?.sha256 == remote
        func letMediaGo() {
            guard mediaDone, let localFile else { return }
            next.image?.localFileName = nil
            effects.append(.releaseMedia(localFile))
        }
        if let confirmed {
            next.sync.remoteImageSHA256 = confirmed.sha256
            next.sync.remoteImageURL = confirmed.url
        }
        if case .uploaded(_, let version, let base) = result {
            // The server has this version now, whatever happened here meanwhile: later drafts are based on it.
            next.sync.serverVersion = version
            next.sync.base = base
        }
        if case .uploaded(let uploaded, _, _) = result, record.sync.revision == uploaded {
            next.sync.syncedRevision = max(record.sync.syncedRevision, uploaded)
            next.sync.state = .synced
            next.sync.attempts = 0
            next.sync.nextAttemptAt = nil
            next.sync.lastError = nil
            next.sync.offlineSince = nil
            next.sync.cancelRequested = false
            letMediaGo()
            if record.sync.leaseOwner == owner { next.sync.releaseLease() }
            return Transition(record: next, effects: effects)
        }
        // A failure of revision N says nothing about an edit made meanwhile: that stays as the edit left it.
        let editedMeanwhile = record.sync.revision != claimedRevision
        let open = !editedMeanwhile && unsyncedStates.contains(record.sync.state)
        switch result {
        case .uploaded(let uploaded, _, _):
            // An older revision than the current one: the edit made meanwhile is still due.
            next.sync.syncedRevision = max(record.sync.syncedRevision, uploaded)
            next.sync.offlineSince = nil
            letMediaGo()
        case .deleted:
            if let localFile { effects.append(.releaseMedia(localFile)) }
            if record.sync.deleted { effects.append(.removeRecipe) }
        case .retryLater(let at, let attempts, let error):
            if open {
                next.sync.state = .waiting
                next.sync.attempts = attempts
                next.sync.nextAttemptAt = at
            }
            next.sync.lastError = error
            next.sync.offlineSince = nil
        case .failed(let attempts, let error):
            if open {
                next.sync.state = .failed
                next.sync.attempts = attempts
                next.sync.nextAttemptAt = nil
            }
            next.sync.lastError = error
            next.sync.offlineSince = nil
        case .cancelledByUser:
            if record.sync.state != .cancelled, !editedMeanwhile { next.sync.state = .cancelled }
            next.sync.cancelRequested = false
        case .interrupted(let error):
            if let error { next.sync.lastError = error }
        case .offline(let since):
            next.sync.offlineSince = record.sync.offlineSince ?? since
        }
        if record.sync.leaseOwner == owner { next.sync.releaseLease() }
        return Transition(record: next, effects: effects, editedMeanwhile: editedMeanwhile)
    }
}

extension SyncInfo {
    /// An edit: the next revision is due, from attempt 1, with no error, backoff or cancellation to remember (the base
    /// it was edited from, and any conflict, stay).
    mutating func edit() {
        revision += 1
        state = .pending
        attempts = 0
        nextAttemptAt = nil
        lastError = nil
        cancelRequested = false
    }

    /// Lets go of the lease.
    mutating func releaseLease() {
        leaseOwner = nil
        leaseExpiresAt = nil
    }
}
