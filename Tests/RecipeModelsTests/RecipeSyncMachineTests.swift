import Foundation
import Testing
@testable import RecipeModels

@Suite("The recipe's sync state machine: every transition the store makes, as values")
struct RecipeSyncMachineTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let me = "100:1"
    static let other = "200:2"
    static let sha = String(repeating: "ab", count: 32)
    static let image = ImageReference(sha256: sha, format: .png, byteCount: 10, localFileName: "\(sha).png")

    /// One row of the table: a record before, an event, and what must come out.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var before: SyncRecord
        var event: RecipeSyncMachine.Event
        var after: SyncRecord
        var effects: [RecipeSyncMachine.Effect] = []
        var editedMeanwhile = false
        var cancel: CancelResult?
        var testDescription: String { name }
    }

    /// A record with `change` applied to a pending recipe at revision 3, synced at 2, with an image not yet sent.
    static func record(_ change: (inout SyncRecord) -> Void = { _ in }) -> SyncRecord {
        var record = SyncRecord(sync: SyncInfo(state: .pending, revision: 3, syncedRevision: 2, sentRevision: 2), image: image)
        change(&record)
        return record
    }

    /// The same recipe claimed by this process at revision 3.
    static func claimed(_ change: (inout SyncRecord) -> Void = { _ in }) -> SyncRecord {
        record { record in
            record.sync.leaseOwner = me
            record.sync.leaseExpiresAt = now + 60
            record.sync.sentRevision = 3
            change(&record)
        }
    }

    static let confirmed = ConfirmedImage(sha256: sha, url: "http://h/v1/images/\(sha)")
    static let base = RecipeFields(title: "Soup", ingredients: ["2 tomatoes"])
    static let baseWithImage = RecipeFields(title: "Soup", image: RecipeImage(serverURL: confirmed.url))

    static let stepConflict = FieldConflict(field: .step(1), base: .text("boil"), mine: .text("simmer"), theirs: .text("roast"))
    static let titleAndStep = RecipeConflict.fields([
        FieldConflict(field: .title, base: .text("Soup"), mine: .text("Stew"), theirs: .text("Broth")), stepConflict,
    ])
    static let stepOnly = RecipeConflict.fields([stepConflict])

    static func end(_ result: ChainResult, claimed revision: Int64 = 3, owner: String = me, image: ConfirmedImage? = nil)
        -> RecipeSyncMachine.Event
    {
        .chainEnded(owner: owner, claimedRevision: revision, result: result, confirmedImage: image)
    }

    static let table: [Row] = [
        // Edits and deletions.
        Row(name: "an edit: next revision, pending, attempts, error, backoff and cancellation forgotten; its base kept",
            before: record { $0.sync.state = .failed; $0.sync.attempts = 8; $0.sync.lastError = "x"; $0.sync.cancelRequested = true
                $0.sync.nextAttemptAt = now; $0.sync.serverVersion = 9 },
            event: .edited,
            after: record { $0.sync.revision = 4; $0.sync.serverVersion = 9 }),
        Row(name: "an edit keeps the lease of a running upload (fencing decides at its end)",
            before: claimed(), event: .edited, after: claimed { $0.sync.revision = 4 }),
        Row(name: "deleting a recipe the server never saw removes it at once",
            before: record { $0.sync.syncedRevision = 0; $0.sync.sentRevision = 0 }, event: .deleted,
            after: record { $0.sync.syncedRevision = 0; $0.sync.sentRevision = 0 }, effects: [.removeRecipe]),
        Row(name: "deleting a recipe a sync may have sent keeps it as deleting at the next revision",
            before: record { $0.sync.syncedRevision = 0; $0.sync.sentRevision = 3; $0.sync.attempts = 2 }, event: .deleted,
            after: record { $0.sync.syncedRevision = 0; $0.sync.sentRevision = 3; $0.sync.revision = 4; $0.sync.state = .deleting
                $0.sync.deleted = true }),
        // Claims.
        Row(name: "a background claim leases the recipe and records that the server may get this revision",
            before: record { $0.sync.cancelRequested = true },
            event: .claimed(owner: me, now: now, leaseDuration: 60, explicit: false),
            after: claimed()),
        Row(name: "a background claim of a deletion leaves the sent revision alone",
            before: record { $0.sync.deleted = true; $0.sync.state = .deleting },
            event: .claimed(owner: me, now: now, leaseDuration: 60, explicit: false),
            after: claimed { $0.sync.deleted = true; $0.sync.state = .deleting; $0.sync.sentRevision = 2 }),
        Row(name: "an explicit claim resumes a failed recipe from attempt 1",
            before: record { $0.sync.state = .failed; $0.sync.attempts = 8; $0.sync.lastError = "gave up" },
            event: .claimed(owner: me, now: now, leaseDuration: 60, explicit: true),
            after: claimed { $0.sync.lastError = "gave up" }),
        Row(name: "an explicit claim resumes a cancelled deletion as deleting, attempts kept",
            before: record { $0.sync.state = .cancelled; $0.sync.deleted = true; $0.sync.attempts = 2 },
            event: .claimed(owner: me, now: now, leaseDuration: 60, explicit: true),
            after: claimed { $0.sync.state = .deleting; $0.sync.deleted = true; $0.sync.attempts = 2; $0.sync.sentRevision = 2 }),
        Row(name: "an explicit claim skips the backoff of a waiting recipe",
            before: record { $0.sync.state = .waiting; $0.sync.attempts = 3; $0.sync.nextAttemptAt = now + 600 },
            event: .claimed(owner: me, now: now, leaseDuration: 60, explicit: true),
            after: claimed { $0.sync.attempts = 3 }),
        // Attempts within a run.
        Row(name: "a failed attempt to retry in the run is persisted: waiting until its time",
            before: claimed(),
            event: .attemptFailed(owner: me, attempts: 2, nextAttemptAt: now + 5, error: "HTTP 503"),
            after: claimed { $0.sync.state = .waiting; $0.sync.attempts = 2; $0.sync.nextAttemptAt = now + 5; $0.sync.lastError = "HTTP 503" }),
        Row(name: "a failed attempt of a lease this process lost changes nothing",
            before: claimed { $0.sync.leaseOwner = other },
            event: .attemptFailed(owner: me, attempts: 2, nextAttemptAt: now + 5, error: "HTTP 503"),
            after: claimed { $0.sync.leaseOwner = other }),
        // Chain ends.
        Row(name: "uploaded at the current revision: synced, image remembered, media copy let go, lease released",
            before: claimed { $0.sync.attempts = 2; $0.sync.lastError = "x"; $0.sync.offlineSince = now },
            event: end(.uploaded(revision: 3, version: 5, base: base), image: confirmed),
            after: record { $0.sync.state = .synced; $0.sync.syncedRevision = 3; $0.sync.sentRevision = 3
                $0.sync.remoteImageSHA256 = sha; $0.sync.remoteImageURL = confirmed.url; $0.image?.localFileName = nil
                $0.sync.serverVersion = 5; $0.sync.base = base },
            effects: [.releaseMedia("\(sha).png")]),
        Row(name: "revision fencing: uploaded 3 while 4 was made: 3 counts, 4 stays pending, the edit is still due",
            before: claimed { $0.sync.revision = 4 },
            event: end(.uploaded(revision: 3, version: 5, base: base), image: confirmed),
            after: record { $0.sync.revision = 4; $0.sync.syncedRevision = 3; $0.sync.sentRevision = 3
                $0.sync.remoteImageSHA256 = sha; $0.sync.remoteImageURL = confirmed.url; $0.image?.localFileName = nil
                $0.sync.serverVersion = 5; $0.sync.base = base },
            effects: [.releaseMedia("\(sha).png")], editedMeanwhile: true),
        Row(name: "uploaded after the image was replaced meanwhile: the new copy is kept",
            before: claimed { $0.sync.revision = 4; $0.image = ImageReference(sha256: "cd", format: .png, byteCount: 1, localFileName: "cd.png") },
            event: end(.uploaded(revision: 3, version: 5, base: base), image: confirmed),
            after: record { $0.sync.revision = 4; $0.sync.syncedRevision = 3; $0.sync.sentRevision = 3
                $0.sync.remoteImageSHA256 = sha; $0.sync.remoteImageURL = confirmed.url
                $0.image = ImageReference(sha256: "cd", format: .png, byteCount: 1, localFileName: "cd.png")
                $0.sync.serverVersion = 5; $0.sync.base = base },
            editedMeanwhile: true),
        Row(name: "lease lost: a confirmed image is not recorded for a lease another process holds, nor released",
            before: claimed { $0.sync.leaseOwner = other },
            event: end(.interrupted(error: nil), image: confirmed),
            after: claimed { $0.sync.leaseOwner = other }),
        Row(name: "the server confirmed a deletion: the row goes with its media copy",
            before: claimed { $0.sync.deleted = true; $0.sync.state = .deleting },
            event: end(.deleted),
            after: record { $0.sync.deleted = true; $0.sync.state = .deleting; $0.sync.sentRevision = 3 },
            effects: [.releaseMedia("\(sha).png"), .removeRecipe]),
        Row(name: "a transient failure left for a later run: waiting with its time and attempts",
            before: claimed(), event: end(.retryLater(at: now + 600, attempts: 3, error: "HTTP 503")),
            after: record { $0.sync.state = .waiting; $0.sync.attempts = 3; $0.sync.nextAttemptAt = now + 600
                $0.sync.lastError = "HTTP 503"; $0.sync.sentRevision = 3 }),
        Row(name: "a transient failure of revision 3 while 4 was made leaves 4 pending, error noted",
            before: claimed { $0.sync.revision = 4 }, event: end(.retryLater(at: now + 600, attempts: 3, error: "HTTP 503")),
            after: record { $0.sync.revision = 4; $0.sync.lastError = "HTTP 503"; $0.sync.sentRevision = 3 },
            editedMeanwhile: true),
        Row(name: "the 8th failed attempt: failed, with the attempts and the error",
            before: claimed { $0.sync.attempts = 7 },
            event: end(.failed(attempts: 8, error: "gave up after 8 attempts: HTTP 503")),
            after: record { $0.sync.state = .failed; $0.sync.attempts = 8; $0.sync.lastError = "gave up after 8 attempts: HTTP 503"
                $0.sync.sentRevision = 3 }),
        Row(name: "a failure of a recipe cancelled meanwhile leaves it cancelled",
            before: claimed { $0.sync.state = .cancelled; $0.sync.cancelRequested = true },
            event: end(.failed(attempts: 1, error: "x")),
            after: record { $0.sync.state = .cancelled; $0.sync.cancelRequested = true; $0.sync.lastError = "x"; $0.sync.sentRevision = 3 }),
        Row(name: "cancelled by the user: cancelled, the request answered, lease released",
            before: claimed { $0.sync.state = .cancelled; $0.sync.cancelRequested = true }, event: end(.cancelledByUser),
            after: record { $0.sync.state = .cancelled; $0.sync.sentRevision = 3 }),
        Row(name: "cancelled, then edited while the chain stopped: the edit stands (pending)",
            before: claimed { $0.sync.revision = 4 }, event: end(.cancelledByUser),
            after: record { $0.sync.revision = 4; $0.sync.sentRevision = 3 }, editedMeanwhile: true),
        Row(name: "interrupted (Ctrl-C, credentials): as it was, with the reason, lease released",
            before: claimed(), event: end(.interrupted(error: "not uploaded: the server refused the credentials")),
            after: record { $0.sync.lastError = "not uploaded: the server refused the credentials"; $0.sync.sentRevision = 3 }),
        Row(name: "offline: the first time the server was found unreachable is kept",
            before: claimed { $0.sync.offlineSince = now - 60 }, event: end(.offline(since: now)),
            after: record { $0.sync.offlineSince = now - 60; $0.sync.sentRevision = 3 }),
        // Two-way sync: merges, removal, conflicts.
        Row(name: "a pulled change replacing unedited fields: the next revision, synced at the server's version, its base",
            before: record { $0.sync.state = .synced; $0.sync.revision = 2; $0.sync.serverVersion = 2 },
            event: .merged(version: 6, base: base, outcome: .synced, fieldsChanged: true, deleted: false),
            after: record { $0.sync.state = .synced; $0.sync.revision = 3; $0.sync.syncedRevision = 3; $0.sync.serverVersion = 6
                $0.sync.base = base }),
        Row(name: "a merge to push: pending at the next revision, based on the server's version",
            before: record { $0.sync.attempts = 2; $0.sync.lastError = "x" },
            event: .merged(version: 6, base: base, outcome: .pending, fieldsChanged: true, deleted: false),
            after: record { $0.sync.revision = 4; $0.sync.serverVersion = 6; $0.sync.base = base }),
        Row(name: "a merge with conflicts: the conflict kept, neither pushed (not due) nor failed",
            before: record(),
            event: .merged(version: 6, base: base, outcome: .conflict(.deletedOnServer), fieldsChanged: false, deleted: false),
            after: record { $0.sync.serverVersion = 6; $0.sync.base = base; $0.sync.conflict = .deletedOnServer }),
        Row(name: "the server's copy acknowledges the draft: synced there without a revision bump",
            before: record(),
            event: .merged(version: 6, base: base, outcome: .synced, fieldsChanged: false, deleted: false),
            after: record { $0.sync.state = .synced; $0.sync.syncedRevision = 3; $0.sync.serverVersion = 6; $0.sync.base = base }),
        Row(name: "the server's copy acknowledges the draft and holds its image: the server's URL kept, the media copy let go",
            before: record(),
            event: .merged(version: 6, base: baseWithImage, outcome: .synced, fieldsChanged: false, deleted: false),
            after: record { $0.sync.state = .synced; $0.sync.syncedRevision = 3; $0.sync.serverVersion = 6; $0.sync.base = baseWithImage
                $0.sync.remoteImageSHA256 = sha; $0.sync.remoteImageURL = confirmed.url; $0.image?.localFileName = nil },
            effects: [.releaseMedia("\(sha).png")]),
        Row(name: "a merge to push whose image the server holds: the URL kept (no upload again), the media copy kept for now",
            before: record(),
            event: .merged(version: 6, base: baseWithImage, outcome: .pending, fieldsChanged: true, deleted: false),
            after: record { $0.sync.revision = 4; $0.sync.serverVersion = 6; $0.sync.base = baseWithImage
                $0.sync.remoteImageSHA256 = sha; $0.sync.remoteImageURL = confirmed.url }),
        Row(name: "a deletion here meeting a change on the server stays a deletion, in conflict",
            before: record { $0.sync.state = .deleting; $0.sync.deleted = true },
            event: .merged(version: 6, base: base, outcome: .conflict(.deletedHere), fieldsChanged: false, deleted: true),
            after: record { $0.sync.state = .deleting; $0.sync.deleted = true; $0.sync.serverVersion = 6; $0.sync.base = base
                $0.sync.conflict = .deletedHere }),
        Row(name: "the server's copy at the draft's own version teaches a migrated recipe its base, and nothing else",
            before: record { $0.sync.serverVersion = 6 },
            event: .baseRecovered(version: 6, fields: base),
            after: record { $0.sync.serverVersion = 6; $0.sync.base = base }),
        Row(name: "a copy at another version, or for a recipe that knows its base, teaches nothing",
            before: record { $0.sync.serverVersion = 6; $0.sync.base = baseWithImage },
            event: .baseRecovered(version: 6, fields: base),
            after: record { $0.sync.serverVersion = 6; $0.sync.base = baseWithImage }),
        Row(name: "deleted on the server, not changed here: the recipe goes with its media copy",
            before: record(), event: .removedOnServer, after: record(),
            effects: [.removeRecipe, .releaseMedia("\(sha).png")]),
        // Conflicts settled by an edit or resolved by a person.
        Row(name: "an edit settling part of a conflict: the next revision, pending, the rest of the conflict kept",
            before: record { $0.sync.conflict = titleAndStep; $0.sync.serverVersion = 6; $0.sync.attempts = 1 },
            event: .editedInConflict(left: stepOnly),
            after: record { $0.sync.revision = 4; $0.sync.conflict = stepOnly; $0.sync.serverVersion = 6 }),
        Row(name: "an edit settling the whole conflict: an ordinary pending edit based on the same server version",
            before: record { $0.sync.conflict = stepOnly; $0.sync.serverVersion = 6 },
            event: .editedInConflict(left: nil),
            after: record { $0.sync.revision = 4; $0.sync.serverVersion = 6 }),
        Row(name: "a resolution leaving conflicts: the next revision, still in conflict, attempts and error forgotten",
            before: record { $0.sync.conflict = titleAndStep; $0.sync.serverVersion = 6; $0.sync.base = base
                $0.sync.lastError = "x"; $0.sync.attempts = 2 },
            event: .resolved(.fields(left: stepOnly, matchesServer: false)),
            after: record { $0.sync.revision = 4; $0.sync.conflict = stepOnly; $0.sync.serverVersion = 6; $0.sync.base = base }),
        Row(name: "a resolution of every conflict: pending, based on the version it was merged against",
            before: record { $0.sync.conflict = titleAndStep; $0.sync.serverVersion = 6; $0.sync.base = base },
            event: .resolved(.fields(left: nil, matchesServer: false)),
            after: record { $0.sync.revision = 4; $0.sync.serverVersion = 6; $0.sync.base = base }),
        Row(name: "a resolution equal to the server's copy: synced there, no push; its image's media copy let go",
            before: record { $0.sync.conflict = titleAndStep; $0.sync.serverVersion = 6; $0.sync.base = baseWithImage },
            event: .resolved(.fields(left: nil, matchesServer: true)),
            after: record { $0.sync.state = .synced; $0.sync.revision = 4; $0.sync.syncedRevision = 4; $0.sync.serverVersion = 6
                $0.sync.base = baseWithImage; $0.sync.remoteImageSHA256 = sha; $0.sync.remoteImageURL = confirmed.url
                $0.image?.localFileName = nil },
            effects: [.releaseMedia("\(sha).png")]),
        Row(name: "deleted on the server, kept here: pending at the next revision, based on the tombstone's version",
            before: record { $0.sync.conflict = .deletedOnServer; $0.sync.serverVersion = 7 },
            event: .resolved(.recreate),
            after: record { $0.sync.revision = 4; $0.sync.serverVersion = 7 }),
        Row(name: "deleted here, the deletion chosen: deleting and due again, against the server's version",
            before: record { $0.sync.state = .deleting; $0.sync.deleted = true; $0.sync.conflict = .deletedHere
                $0.sync.serverVersion = 6; $0.sync.base = base },
            event: .resolved(.delete),
            after: record { $0.sync.state = .deleting; $0.sync.deleted = true; $0.sync.revision = 4; $0.sync.serverVersion = 6
                $0.sync.base = base }),
        Row(name: "deleted here, the server's copy chosen: not deleted, synced at the server's version",
            before: record { $0.sync.state = .deleting; $0.sync.deleted = true; $0.sync.conflict = .deletedHere
                $0.sync.serverVersion = 6; $0.sync.base = baseWithImage },
            event: .resolved(.restore),
            after: record { $0.sync.state = .synced; $0.sync.revision = 4; $0.sync.syncedRevision = 4; $0.sync.serverVersion = 6
                $0.sync.base = baseWithImage; $0.sync.remoteImageSHA256 = sha; $0.sync.remoteImageURL = confirmed.url
                $0.image?.localFileName = nil },
            effects: [.releaseMedia("\(sha).png")]),
        // Cancellation and leases.
        Row(name: "cancel of a queued recipe: cancelled, backoff dropped",
            before: record { $0.sync.state = .waiting; $0.sync.nextAttemptAt = now + 60 }, event: .cancelRequested(leaseAlive: false),
            after: record { $0.sync.state = .cancelled }, cancel: .cancelledQueued),
        Row(name: "cancel of an upload in flight elsewhere: cancelled and requested of its process",
            before: claimed { $0.sync.leaseOwner = other }, event: .cancelRequested(leaseAlive: true),
            after: claimed { $0.sync.leaseOwner = other; $0.sync.state = .cancelled; $0.sync.cancelRequested = true },
            cancel: .cancelledInFlight(owner: other, processID: 200)),
        Row(name: "cancel of a synced recipe: nothing to cancel, nothing changes",
            before: record { $0.sync.state = .synced }, event: .cancelRequested(leaseAlive: false),
            after: record { $0.sync.state = .synced }, cancel: .nothingToCancel(state: .synced)),
        Row(name: "a renewal extends only this process's lease",
            before: claimed(), event: .leaseRenewed(owner: me, until: now + 120), after: claimed { $0.sync.leaseExpiresAt = now + 120 }),
        Row(name: "a renewal by another process changes nothing",
            before: claimed(), event: .leaseRenewed(owner: other, until: now + 120), after: claimed()),
        Row(name: "a release lets go of this process's lease only",
            before: claimed(), event: .leaseReleased(owner: me), after: record { $0.sync.sentRevision = 3 }),
        Row(name: "offline while due: since the first time",
            before: record(), event: .offline(since: now), after: record { $0.sync.offlineSince = now }),
    ]

    @Test("each transition", arguments: table)
    func transition(row: Row) {
        let result = RecipeSyncMachine.transition(row.before, on: row.event)
        #expect(result.record == row.after)
        #expect(result.effects == row.effects)
        #expect(result.editedMeanwhile == row.editedMeanwhile)
        #expect(result.cancel == row.cancel)
    }

    @Test("due: work left and no backoff ahead; never cancelled, failed, synced or in conflict")
    func due() {
        #expect(!RecipeSyncMachine.isDue(Self.record { $0.sync.conflict = .deletedHere }, at: Self.now))
        #expect(RecipeSyncMachine.isDue(Self.record(), at: Self.now))
        #expect(RecipeSyncMachine.isDue(Self.record { $0.sync.state = .deleting }, at: Self.now))
        #expect(!RecipeSyncMachine.isDue(Self.record { $0.sync.state = .waiting; $0.sync.nextAttemptAt = Self.now + 1 }, at: Self.now))
        #expect(RecipeSyncMachine.isDue(Self.record { $0.sync.state = .waiting; $0.sync.nextAttemptAt = Self.now }, at: Self.now))
        for state in [SyncState.cancelled, .failed, .synced] {
            #expect(!RecipeSyncMachine.isDue(Self.record { $0.sync.state = state }, at: Self.now))
        }
    }

    @Test("a wait further ahead than any a sync records was recorded by a clock since set back: due now, shown pending")
    func waitFromAClockSetBack() {
        let day = Self.record { $0.sync.state = .waiting; $0.sync.nextAttemptAt = Self.now + 24 * 3600 }
        #expect(!RecipeSyncMachine.isDue(day, at: Self.now), "the longest Retry-After (a day) is still a wait")
        #expect(day.sync.effectiveState(at: Self.now) == .waiting)
        let month = Self.record { $0.sync.state = .waiting; $0.sync.nextAttemptAt = Self.now + 30 * 24 * 3600 }
        #expect(RecipeSyncMachine.isDue(month, at: Self.now), "a recipe must not wait a month for a clock corrected by one")
        #expect(month.sync.effectiveState(at: Self.now) == .pending)
        let edge = Self.record { $0.sync.state = .waiting; $0.sync.nextAttemptAt = Self.now + SyncInfo.longestWait }
        #expect(!RecipeSyncMachine.isDue(edge, at: Self.now))
        #expect(RecipeSyncMachine.isDue(edge, at: Self.now - 1))
    }

    @Test("on the server: synced at its revision, based on a version of this server, and not deleted")
    func onServer() {
        func synced(_ change: (inout SyncRecord) -> Void = { _ in }) -> SyncRecord {
            Self.record { record in
                record.sync.state = .synced
                record.sync.syncedRevision = 3
                record.sync.serverVersion = 3
                change(&record)
            }
        }
        #expect(RecipeSyncMachine.isOnServer(synced()))
        #expect(!RecipeSyncMachine.isOnServer(synced { $0.sync.syncedRevision = 2 }))
        #expect(!RecipeSyncMachine.isOnServer(synced { $0.sync.deleted = true }))
        // Synced to a server this home has left (a new server's first pass owes it an upload).
        #expect(!RecipeSyncMachine.isOnServer(synced { $0.sync.serverVersion = nil }))
    }

    @Test("busy elsewhere: another live process's unexpired lease; never this process's, a lapsed or a dead one")
    func busyElsewhere() {
        let held = Self.claimed { $0.sync.leaseOwner = Self.other }
        #expect(RecipeSyncMachine.leaseHolderElsewhere(held, owner: Self.me, now: Self.now) { _ in true } == Self.other)
        #expect(RecipeSyncMachine.leaseHolderElsewhere(held, owner: Self.me, now: Self.now) { _ in false } == nil)
        #expect(RecipeSyncMachine.leaseHolderElsewhere(held, owner: Self.me, now: Self.now + 61) { _ in true } == nil)
        #expect(RecipeSyncMachine.leaseHolderElsewhere(Self.claimed(), owner: Self.me, now: Self.now) { _ in true } == nil)
    }
}
