import Foundation
import GRDB
import RecipeModels
import RecipeStore
import RecipesTestSupport
import Testing

/// The sync state machine of the store, on a real SQLite database in a temporary home.
@Suite("RecipeStore sync bookkeeping: claims, leases, fencing, cancellation, outbox GC")
struct StoreSyncStateTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let me = "100:1"
    static let other = "200:2"
    static let alive: @Sendable (String) -> Bool = { _ in true }

    /// A home with one recipe in each state background sync must leave alone, plus two pending ones.
    struct Fixture {
        let home: ClientHome
        var store: RecipeStore { home.store }
        let pending: Int64
        let pending2: Int64
        let cancelled: Int64
        let failed: Int64
        let synced: Int64
        let waitingNotDue: Int64
        let waitingDue: Int64

        init() throws {
            home = try ClientHome()
            let store = home.store
            func make(_ title: String) throws -> Int64 { try store.create(title: title).id }
            pending = try make("pending")
            cancelled = try make("cancelled")
            failed = try make("failed")
            synced = try make("synced")
            waitingNotDue = try make("waiting, not due")
            waitingDue = try make("waiting, due")
            pending2 = try make("pending 2")

            #expect(try store.requestCancel(id: cancelled, now: now, isOwnerAlive: alive) == .cancelledQueued)
            let batch = try store.claim(
                ids: [failed, synced, waitingNotDue, waitingDue], owner: me, now: now, leaseDuration: 60,
                isOwnerAlive: alive)
            // Their four ends in one batch, as a run records them.
            try store.finishChains(batch.claims.map { claim in
                switch claim.recipe.id {
                case failed: ChainEnding(claim, .failed(attempts: 8, error: "gave up"))
                case synced: ChainEnding(claim, .uploaded(revision: claim.revision, version: claim.revision, base: RecipeFields(title: "x")))
                case waitingNotDue:
                    ChainEnding(claim, .retryLater(at: now.addingTimeInterval(120), attempts: 1, error: "HTTP 503"))
                default: ChainEnding(claim, .retryLater(at: now.addingTimeInterval(-1), attempts: 2, error: "HTTP 503"))
                }
            }, owner: me)
        }
    }

    @Test("a claimed batch carries each recipe's own ingredients and steps, in order, and leases every one of them")
    func claimedBatchCarriesParts() throws {
        let home = try ClientHome()
        let store = home.store
        let soup = try store.create(title: "soup").id
        let bread = try store.create(title: "bread").id
        let plain = try store.create(title: "no parts").id
        let soupChanges: [RecipeChange] = [.addIngredient("2 tomatoes"), .addIngredient("1 onion"), .addStep("Chop."), .addStep("Boil.")]
        for change in soupChanges {
            _ = try store.apply(change, to: soup)
        }
        for change in [RecipeChange.addStep("Knead."), .addIngredient("500 g flour"), .addStep("Bake.")] {
            _ = try store.apply(change, to: bread)
        }
        let claims = try store.claimDue(
            owner: Self.me, now: Self.now, leaseDuration: 60, limit: 10, after: 0, isOwnerAlive: Self.alive).claims
        #expect(claims.map(\.recipe.id) == [soup, bread, plain])
        #expect(claims.map { $0.recipe.ingredients.map(\.text) } == [["2 tomatoes", "1 onion"], ["500 g flour"], []])
        #expect(claims.map { $0.recipe.steps.map(\.text) } == [["Chop.", "Boil."], ["Knead.", "Bake."], []])
        #expect(claims.allSatisfy { claim in
            claim.recipe.sync.leaseOwner == Self.me && claim.recipe.sync.leaseExpiresAt == Self.now.addingTimeInterval(60)
        })
        #expect(try store.leaseReport(owner: Self.me).held == [soup, bread, plain])
        #expect(try [soup, bread, plain].map { try home.column("sent_revision", of: $0, as: Int64.self) }
            == claims.map(\.revision))
    }

    @Test("renewLeases extends this owner's leases only")
    func renewOwnLeases() throws {
        let f = try Fixture()
        _ = try f.store.claim(ids: [f.pending], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        _ = try f.store.claim(ids: [f.pending2], owner: Self.other, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        try f.store.renewLeases(owner: Self.me, until: Self.now.addingTimeInterval(600))
        #expect(try f.home.recipe(f.pending).sync.leaseExpiresAt == Self.now.addingTimeInterval(600))
        #expect(try f.home.recipe(f.pending2).sync.leaseExpiresAt == Self.now.addingTimeInterval(60))
        #expect(try f.store.leaseReport(owner: Self.me).held == [f.pending])
    }

    @Test("one batch of ends records each as it would alone and answers in order: an edit made meanwhile stays pending")
    func batchOfEnds() throws {
        let f = try Fixture()
        let claims = try f.store.claim(
            ids: [f.pending, f.pending2], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive).claims
        #expect(claims.map(\.recipe.id) == [f.pending, f.pending2])
        try #require(claims.count == 2)
        try f.home.otherProcessView().apply(.title("edited while uploading"), to: f.pending)
        let finished = try f.store.finishChains(
            claims.map { ChainEnding($0, .uploaded(revision: $0.revision, version: $0.revision, base: RecipeFields(title: "x"))) }, owner: Self.me)
        #expect(finished.map(\.editedMeanwhile) == [true, false])
        let edited = try f.home.recipe(f.pending).sync
        #expect(edited.state == .pending && edited.syncedRevision == claims[0].revision && edited.leaseOwner == nil)
        let done = try f.home.recipe(f.pending2).sync
        #expect(done.state == .synced && done.syncedRevision == claims[1].revision && done.leaseOwner == nil)
        #expect(try f.store.finishChains([], owner: Self.me).isEmpty)
    }

    @Test("claimDue takes pending and due-waiting recipes; never cancelled, failed, synced or not-yet-due ones")
    func claimDueSkips() throws {
        let f = try Fixture()
        let batch = try f.store.claimDue(owner: Self.me, now: Self.now, leaseDuration: 60, limit: 100, after: 0, isOwnerAlive: Self.alive)
        #expect(Set(batch.claims.map(\.recipe.id)) == [f.pending, f.waitingDue, f.pending2])
        #expect(batch.busy.isEmpty)
        #expect(batch.isExhausted)
        for claim in batch.claims {
            let recipe = try f.home.recipe(claim.recipe.id)
            #expect(recipe.sync.leaseOwner == Self.me)
            #expect(recipe.sync.leaseExpiresAt == Self.now.addingTimeInterval(60))
        }
        // The failed recipe keeps its attempts, the cancelled one its state.
        #expect(try f.home.recipe(f.failed).sync.state == .failed)
        #expect(try f.home.recipe(f.failed).sync.attempts == 8)
        #expect(try f.home.recipe(f.cancelled).sync.state == .cancelled)
        #expect(try f.home.recipe(f.waitingNotDue).sync.leaseOwner == nil)
        // ... and the not-yet-due one becomes due once its time has come.
        let later = try f.store.claimDue(
            owner: Self.me, now: Self.now.addingTimeInterval(121), leaseDuration: 60, limit: 100, after: 0,
            isOwnerAlive: Self.alive)
        #expect(later.claims.map(\.recipe.id).contains(f.waitingNotDue))
    }

    @Test("claimDue works in batches: limit and cursor")
    func claimDueBatches() throws {
        let f = try Fixture()
        let first = try f.store.claimDue(owner: Self.me, now: Self.now, leaseDuration: 60, limit: 2, after: 0, isOwnerAlive: Self.alive)
        #expect(first.claims.map(\.recipe.id) == [f.pending, f.waitingDue])
        #expect(!first.isExhausted)
        let second = try f.store.claimDue(
            owner: Self.me, now: Self.now, leaseDuration: 60, limit: 2, after: first.cursor, isOwnerAlive: Self.alive)
        #expect(second.claims.map(\.recipe.id) == [f.pending2])
        #expect(second.isExhausted)
    }

    @Test("a live lease of another process is reported busy and left alone")
    func liveLeaseIsBusy() throws {
        let f = try Fixture()
        _ = try f.store.claim(ids: [f.pending], owner: Self.other, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        let batch = try f.store.claimDue(
            owner: Self.me, now: Self.now.addingTimeInterval(1), leaseDuration: 60, limit: 100, after: 0,
            isOwnerAlive: Self.alive)
        #expect(!batch.claims.map(\.recipe.id).contains(f.pending))
        #expect(batch.busy.map(\.id) == [f.pending])
        #expect(batch.busy.first?.processID == 200)
        #expect(try f.home.recipe(f.pending).sync.leaseOwner == Self.other)
        // claim(ids:) does not take it either.
        let explicit = try f.store.claim(
            ids: [f.pending], owner: Self.me, now: Self.now.addingTimeInterval(1), leaseDuration: 60, isOwnerAlive: Self.alive)
        #expect(explicit.claims.isEmpty)
        #expect(explicit.busy.map(\.id) == [f.pending])
    }

    @Test("a lapsed lease of another process is taken over")
    func lapsedLeaseTakenOver() throws {
        let f = try Fixture()
        _ = try f.store.claim(ids: [f.pending], owner: Self.other, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        let batch = try f.store.claimDue(
            owner: Self.me, now: Self.now.addingTimeInterval(61), leaseDuration: 60, limit: 100, after: 0,
            isOwnerAlive: Self.alive)
        #expect(batch.claims.map(\.recipe.id).contains(f.pending))
        #expect(batch.busy.isEmpty)
        #expect(try f.home.recipe(f.pending).sync.leaseOwner == Self.me)
    }

    @Test("a live lease of a process that is gone is taken over")
    func deadOwnerTakenOver() throws {
        let f = try Fixture()
        _ = try f.store.claim(ids: [f.pending], owner: Self.other, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        let batch = try f.store.claimDue(
            owner: Self.me, now: Self.now.addingTimeInterval(1), leaseDuration: 60, limit: 100, after: 0,
            isOwnerAlive: { $0 != Self.other })
        #expect(batch.claims.map(\.recipe.id).contains(f.pending))
        #expect(batch.busy.isEmpty)
        #expect(try f.home.recipe(f.pending).sync.leaseOwner == Self.me)
    }

    @Test("claim(ids:) resumes a cancelled and a failed recipe, resetting the failed one's attempts")
    func claimIdsResumes() throws {
        let f = try Fixture()
        let first = try #require(f.store.claim(
            ids: [f.pending], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive).claims.first)
        try f.store.finishChains(
            [ChainEnding(first, .retryLater(at: Self.now.addingTimeInterval(-1), attempts: 3, error: "x"))], owner: Self.me)
        #expect(try f.store.requestCancel(id: f.pending, now: Self.now, isOwnerAlive: Self.alive) == .cancelledQueued)
        let batch = try f.store.claim(
            ids: [f.pending, f.failed, f.waitingNotDue], owner: Self.me, now: Self.now, leaseDuration: 60,
            isOwnerAlive: Self.alive)
        #expect(batch.claims.map(\.recipe.id) == [f.pending, f.failed, f.waitingNotDue])
        let cancelled = try f.home.recipe(f.pending)
        #expect(cancelled.sync.state == .pending)
        #expect(cancelled.sync.attempts == 3)  // a cancelled recipe keeps its count
        let failed = try f.home.recipe(f.failed)
        #expect(failed.sync.state == .pending)
        #expect(failed.sync.attempts == 0)
        try #require(batch.claims.count > 1)
        #expect(batch.claims[1].attempts == 0)
        let waiting = try f.home.recipe(f.waitingNotDue)
        #expect(waiting.sync.state == .pending)
        #expect(waiting.sync.nextAttemptAt == nil)  // the backoff is skipped
        #expect(waiting.sync.attempts == 1)
    }

    @Test("claim(ids:) leaves a recipe the server has at its revision alone")
    func claimIdsSkipsSynced() throws {
        let f = try Fixture()
        let batch = try f.store.claim(ids: [f.synced], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        #expect(batch.claims.isEmpty)
        #expect(try f.home.recipe(f.synced).sync.leaseOwner == nil)
    }

    @Test("claim(ids:) with an unknown id throws and changes nothing")
    func claimIdsUnknown() throws {
        let f = try Fixture()
        let before = try f.store.recipes()
        #expect(throws: StoreError(.unknownRecipe(id: 999))) {
            try f.store.claim(
                ids: [f.cancelled, f.failed, 999], owner: Self.me, now: Self.now, leaseDuration: 60,
                isOwnerAlive: Self.alive)
        }
        #expect(try f.store.recipes() == before)
        #expect(try f.home.recipe(f.cancelled).sync.state == .cancelled)
        #expect(try f.home.recipe(f.failed).sync.leaseOwner == nil)
    }

    @Test("revision fencing: an acknowledged revision that is no longer current leaves the recipe pending")
    func revisionFencing() throws {
        let f = try Fixture()
        let claim = try #require(
            try f.store.claim(ids: [f.pending], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive).claims.first)
        #expect(claim.revision == 1)
        try f.home.otherProcessView().apply(.title("edited while uploading"), to: f.pending)  // revision 2
        try f.store.finishChains([ChainEnding(claim, .uploaded(revision: 1, version: 1, base: RecipeFields(title: "x")))], owner: Self.me)
        let recipe = try f.home.recipe(f.pending)
        #expect(recipe.sync.state == .pending)
        #expect(recipe.sync.revision == 2)
        #expect(recipe.sync.syncedRevision == 1)
        #expect(recipe.sync.leaseOwner == nil)
        // The current revision, acknowledged, makes it synced.
        let next = try #require(
            try f.store.claimDue(owner: Self.me, now: Self.now, leaseDuration: 60, limit: 100, after: 0, isOwnerAlive: Self.alive)
                .claims.first { $0.recipe.id == f.pending })
        #expect(next.revision == 2)
        #expect(next.recipe.title == "edited while uploading")
        try f.store.finishChains([ChainEnding(next, .uploaded(revision: 2, version: 2, base: RecipeFields(title: "x")))], owner: Self.me)
        #expect(try f.home.recipe(f.pending).sync.state == .synced)
        #expect(try f.home.recipe(f.pending).sync.syncedRevision == 2)
    }

    @Test("the usual end: synced, image recorded, media copy let go, lease released; a row changed under the lease is read and decided instead")
    func usualEndAndItsFallback() throws {
        let home = try ClientHome()
        let asClaimed = try home.makeRecipe("as claimed", image: pngBytes(seed: 3))
        let changed = try home.makeRecipe("changed under the lease", image: pngBytes(seed: 4))
        let claims = try home.store.claimDue(
            owner: Self.me, now: Self.now, leaseDuration: 60, limit: 10, after: 0, isOwnerAlive: Self.alive).claims
        #expect(claims.map(\.recipe.id) == [asClaimed.id, changed.id])
        // The media copy of `changed` is renamed while it is leased (by hand: no command does this), so its row is no
        // longer as claimed: its end must read the row and let go of the copy under its current name, not the
        // claimed one.
        let queue = try DatabaseQueue(path: home.store.home.databaseURL.path)
        try queue.write { db in
            try db.execute(sql: "UPDATE recipes SET image_file = 'renamed.png' WHERE id = ?", arguments: [changed.id])
        }
        for claim in claims {
            let image = try #require(claim.recipe.image)
            let confirmed = ConfirmedImage(sha256: image.sha256, url: "https://example.test/v1/images/\(image.sha256)")
            let finished = try #require(try home.store.finishChains(
                [ChainEnding(claim, .uploaded(revision: claim.revision, version: claim.revision, base: RecipeFields(title: "x")), confirmedImage: confirmed)], owner: Self.me).first)
            let expectedFile = claim.recipe.id == changed.id ? "renamed.png" : try #require(image.localFileName)
            #expect(finished.unneededMedia == [expectedFile])
            #expect(finished.editedMeanwhile == false)
            let recipe = try home.recipe(claim.recipe.id)
            #expect(recipe.sync.state == .synced)
            #expect(recipe.sync.syncedRevision == claim.revision)
            #expect(recipe.sync.remoteImageSHA256 == image.sha256)
            #expect(recipe.sync.remoteImageURL == "https://example.test/v1/images/\(image.sha256)")
            #expect(recipe.image?.localFileName == nil)
            #expect(recipe.sync.leaseOwner == nil && recipe.sync.leaseExpiresAt == nil)
        }
    }

    @Test("a cancellation from the user during the upload of an older revision does not cancel a newer edit")
    func cancelledByUserFenced() throws {
        let f = try Fixture()
        let claim = try #require(
            try f.store.claim(ids: [f.pending], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive).claims.first)
        try f.store.apply(.title("newer"), to: f.pending)
        try f.store.finishChains([ChainEnding(claim, .cancelledByUser)], owner: Self.me)
        #expect(try f.home.recipe(f.pending).sync.state == .pending)
    }

    @Test("requestCancel: queued and waiting become cancelled at once")
    func cancelQueuedAndWaiting() throws {
        let f = try Fixture()
        #expect(try f.store.requestCancel(id: f.pending, now: Self.now, isOwnerAlive: Self.alive) == .cancelledQueued)
        #expect(try f.store.requestCancel(id: f.waitingNotDue, now: Self.now, isOwnerAlive: Self.alive) == .cancelledQueued)
        for id in [f.pending, f.waitingNotDue] {
            let recipe = try f.home.recipe(id)
            #expect(recipe.sync.state == .cancelled)
            #expect(recipe.sync.nextAttemptAt == nil)
            #expect(!recipe.sync.cancelRequested)
        }
        let batch = try f.store.claimDue(
            owner: Self.me, now: Self.now.addingTimeInterval(1_000), leaseDuration: 60, limit: 100, after: 0,
            isOwnerAlive: Self.alive)
        #expect(Set(batch.claims.map(\.recipe.id)).isDisjoint(with: [f.pending, f.waitingNotDue]))
    }

    @Test("requestCancel: an upload in flight in a live process is flagged for that process to abort")
    func cancelInFlight() throws {
        let f = try Fixture()
        let claim = try #require(
            try f.store.claim(ids: [f.pending], owner: Self.other, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive).claims.first)
        #expect(try f.store.leaseReport(owner: Self.other).cancelRequested.isEmpty)
        let result = try f.home.otherProcessView().requestCancel(id: f.pending, now: Self.now, isOwnerAlive: Self.alive)
        #expect(result == .cancelledInFlight(owner: Self.other, processID: 200))
        #expect(try f.store.leaseReport(owner: Self.other) == LeaseReport(held: [f.pending], cancelRequested: [f.pending]))
        #expect(try f.store.leaseReport(owner: Self.me) == LeaseReport())
        #expect(try f.home.recipe(f.pending).sync.state == .cancelled)
        #expect(try f.store.isLeased(id: f.pending, by: Self.other))
        // The uploading process records it and lets go.
        try f.store.finishChains([ChainEnding(claim, .cancelledByUser)], owner: Self.other)
        #expect(try f.store.leaseReport(owner: Self.other).cancelRequested.isEmpty)
        #expect(!(try f.store.isLeased(id: f.pending, by: Self.other)))
        #expect(try f.home.recipe(f.pending).sync.state == .cancelled)
    }

    @Test("requestCancel: a lease of a dead process is not 'in flight'; the recipe is just cancelled")
    func cancelDeadLease() throws {
        let f = try Fixture()
        _ = try f.store.claim(ids: [f.pending], owner: Self.other, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        let result = try f.store.requestCancel(id: f.pending, now: Self.now, isOwnerAlive: { _ in false })
        #expect(result == .cancelledQueued)
        #expect(try f.home.recipe(f.pending).sync.state == .cancelled)
        #expect(!(try f.home.recipe(f.pending).sync.cancelRequested))
    }

    @Test("requestCancel: synced, failed and cancelled recipes have nothing to cancel and stay as they are")
    func cancelNothing() throws {
        let f = try Fixture()
        #expect(try f.store.requestCancel(id: f.synced, now: Self.now, isOwnerAlive: Self.alive) == .nothingToCancel(state: .synced))
        #expect(try f.store.requestCancel(id: f.failed, now: Self.now, isOwnerAlive: Self.alive) == .nothingToCancel(state: .failed))
        #expect(
            try f.store.requestCancel(id: f.cancelled, now: Self.now, isOwnerAlive: Self.alive) == .nothingToCancel(state: .cancelled))
        #expect(try f.home.recipe(f.synced).sync.state == .synced)
        #expect(try f.home.recipe(f.failed).sync.state == .failed)
        #expect(throws: StoreError(.unknownRecipe(id: 999))) {
            try f.store.requestCancel(id: 999, now: Self.now, isOwnerAlive: Self.alive)
        }
    }

    @Test("requestCancel: a deletion waiting to be sent is cancelled, and an explicit claim resumes it as a deletion")
    func cancelDeletion() throws {
        let f = try Fixture()
        try f.store.delete(f.synced)
        #expect(try f.home.recipe(f.synced).sync.state == .deleting)
        #expect(try f.store.requestCancel(id: f.synced, now: Self.now, isOwnerAlive: Self.alive) == .cancelledQueued)
        #expect(try f.home.recipe(f.synced).sync.state == .cancelled)
        let claim = try #require(
            try f.store.claim(ids: [f.synced], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive).claims.first)
        #expect(claim.isDeletion)
        #expect(try f.home.recipe(f.synced).sync.state == .deleting)
    }

    @Test("a claim records that the server may get the revision: deleting the recipe afterwards goes through the server; mayUpload refuses once it is deleted or for another owner, and the lease report shows the deletion")
    func claimRecordsSentRevision() throws {
        let f = try Fixture()
        _ = try f.store.claim(ids: [f.pending], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        #expect(try f.store.mayUpload(id: f.pending, owner: Self.me))
        #expect(try !f.store.mayUpload(id: f.pending, owner: Self.other))
        try f.store.delete(f.pending)
        #expect(try f.home.recipe(f.pending).sync.state == .deleting)  // not removed locally: the server may have it
        #expect(try !f.store.mayUpload(id: f.pending, owner: Self.me))
        // What the poller reads: still leased to this process, now deleted.
        #expect(try f.store.leaseReport(owner: Self.me) == LeaseReport(held: [f.pending], deleted: [f.pending]))
    }

    @Test("outbox recycling: a finished file becomes the new one (same inode, exact bytes, old name gone); a spare collected meanwhile falls back to a new file")
    func outboxRecycling() throws {
        let f = try Fixture()
        let outbox = Outbox(directory: f.store.home.outboxURL)
        func inode(_ path: String) -> UInt { var info = stat(); return stat(path, &info) == 0 ? UInt(info.st_ino) : 0 }
        let first = try outbox.write(Data(String(repeating: "x", count: 4_000).utf8), uuid: "AAAA", revision: 1)
        let firstInode = inode(first)
        let second = try outbox.write(
            Data("{\"short\":1}".utf8), uuid: "BBBB", revision: 7, recycling: Outbox.fileName(uuid: "AAAA", revision: 1))
        #expect(second == outbox.path(of: Outbox.fileName(uuid: "bbbb", revision: 7)))
        #expect(inode(second) == firstInode)  // renamed, not created
        #expect(try Data(contentsOf: URL(fileURLWithPath: second)) == Data("{\"short\":1}".utf8))  // truncated
        #expect(outbox.fileNames() == [Outbox.fileName(uuid: "bbbb", revision: 7)])

        // The spare named is gone (another process's GC): a new file, nothing else touched.
        let third = try outbox.write(Data("3".utf8), uuid: "CCCC", revision: 2, recycling: "gone-1.json")
        #expect(try Data(contentsOf: URL(fileURLWithPath: third)) == Data("3".utf8))
        #expect(Set(outbox.fileNames()) == [Outbox.fileName(uuid: "bbbb", revision: 7), Outbox.fileName(uuid: "cccc", revision: 2)])
    }

    @Test("outbox GC keeps the current revision's file and a live-leased recipe's files, deletes the rest")
    func outboxGarbage() throws {
        let f = try Fixture()
        let outbox = Outbox(directory: f.store.home.outboxURL)
        let pending = try f.home.recipe(f.pending)
        try f.store.apply(.title("two"), to: f.pending)  // revision 2
        let synced = try f.home.recipe(f.synced)
        let leased = try f.home.recipe(f.pending2)
        try f.store.apply(.title("two"), to: f.pending2)
        try f.store.apply(.title("three"), to: f.pending2)  // revision 3
        _ = try f.store.claim(ids: [f.pending2], owner: Self.other, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        let uuid = { (recipe: Recipe) in recipe.uuid.uuidString }
        let data = Data("{}".utf8)
        _ = try outbox.write(data, uuid: uuid(pending), revision: 1)
        _ = try outbox.write(data, uuid: uuid(pending), revision: 2)
        _ = try outbox.write(data, uuid: uuid(synced), revision: 1)
        _ = try outbox.write(data, uuid: uuid(leased), revision: 2)
        _ = try outbox.write(data, uuid: uuid(leased), revision: 3)
        _ = try outbox.write(data, uuid: UUID().uuidString, revision: 1)  // nobody's

        let current = Outbox.fileName(uuid: uuid(pending), revision: 2)
        let strayName = try #require(outbox.fileNames().first { name in
            ![uuid(pending), uuid(synced), uuid(leased)].contains { name.hasPrefix($0.lowercased()) }
        })
        let removed = try f.store.collectOutboxGarbage(now: Self.now, isOwnerAlive: Self.alive)
        #expect(
            Set(removed) == [
                Outbox.fileName(uuid: uuid(pending), revision: 1), Outbox.fileName(uuid: uuid(synced), revision: 1), strayName,
            ])
        #expect(removed.count == 3)
        #expect(
            Set(outbox.fileNames()) == [
                current, Outbox.fileName(uuid: uuid(leased), revision: 2), Outbox.fileName(uuid: uuid(leased), revision: 3),
            ])

        // Once the holder is gone, only the current revision of the leased recipe stays.
        let again = try f.store.collectOutboxGarbage(now: Self.now, isOwnerAlive: { $0 != Self.other })
        #expect(again == [Outbox.fileName(uuid: uuid(leased), revision: 2)])
        #expect(Set(outbox.fileNames()) == [current, Outbox.fileName(uuid: uuid(leased), revision: 3)])
    }

    @Test("outbox GC removes a dead writer's temporary file at once; a live writer's and a young unnamed one stay")
    func outboxTemporaryFiles() throws {
        let f = try Fixture()
        let outbox = Outbox(directory: f.store.home.outboxURL)
        try FileManager.default.createDirectory(at: f.store.home.outboxURL, withIntermediateDirectories: true)
        let random = { UUID().uuidString.lowercased() }
        let dead = ".tmp-\(Self.other)@\(random())", live = ".tmp-\(Self.me)@\(random())", unnamed = ".tmp-\(random())"
        for name in [dead, live, unnamed] {
            #expect(FileManager.default.createFile(atPath: outbox.path(of: name), contents: Data("{".utf8)))
        }
        // A sync killed while writing leaves its temporary file; the next sync's collection takes it.
        let removed = try f.store.collectOutboxGarbage(now: Date(), isOwnerAlive: { $0 != Self.other })
        #expect(removed == [dead])
        #expect(Set(outbox.fileNames()) == [live, unnamed])
        // Once the grace has passed, an unnamed one goes too; the live writer's stays while it runs.
        let later = Date().addingTimeInterval(TemporaryFiles.grace + 60)
        #expect(try f.store.collectOutboxGarbage(now: later, isOwnerAlive: { $0 != Self.other }) == [unnamed])
        #expect(outbox.fileNames() == [live])
    }
}

extension StoreSyncStateTests {
    @Test("a permanent failure of revision N does not mark an edit made meanwhile (revision N+1) failed")
    func failureFencedByRevision() throws {
        let f = try Fixture()
        let claim = try #require(
            try f.store.claim(ids: [f.pending], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive).claims.first)
        try f.home.otherProcessView().apply(.title("fixed while uploading"), to: f.pending)  // revision 2
        try f.store.finishChains(
            [ChainEnding(claim, .failed(attempts: 1, error: "HTTP 422: invalid"))], owner: Self.me)
        let recipe = try f.home.recipe(f.pending)
        #expect(recipe.sync.revision == 2)
        #expect(recipe.sync.state == .pending)
        #expect(recipe.sync.attempts == 0)
        #expect(recipe.sync.leaseOwner == nil)
        #expect(try f.store.hasDueWork(at: Self.now))
    }
}

extension StoreSyncStateTests {
    @Test("hasNothingToSync: true only with no recipe pending, waiting, deleting, uploading, failed or cancelled, no migration missing and no file recipes wrote in media/ or outbox/; the database and its WAL keep their bytes")
    func nothingToSync() throws {
        let home = try ClientHome()
        let store = home.store
        let idle = { () throws -> Bool in try RecipeStore.hasNothingToSync(home: store.home) }
        let other = TemporaryDirectory()
        #expect(try !RecipeStore.hasNothingToSync(home: other.home), "a home without its folders is not known to be idle")
        try other.home.createDirectories()
        #expect(try !RecipeStore.hasNothingToSync(home: other.home), "nor one without its database")
        #expect(try !RecipeStore.hasNothingToSync(home: other.home, migrations: []), "whatever migrations are known")
        #expect(!FileManager.default.fileExists(atPath: other.home.databaseURL.path), "the check created the database")
        #expect(try idle(), "a new store with no recipe")

        func claimed(_ id: Int64) throws -> SyncClaim {
            try #require(try store.claim(ids: [id], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive).claims.first)
        }
        let soup = try store.create(title: "soup").id
        #expect(try !idle(), "pending")
        let upload = try claimed(soup)
        #expect(try !idle(), "uploading")
        try store.finishChains([ChainEnding(upload, .uploaded(revision: upload.revision, version: upload.revision, base: RecipeFields(title: "x")))], owner: Self.me)
        #expect(try idle(), "synced")

        let retried = try store.create(title: "retried").id
        try store.finishChains([ChainEnding(try claimed(retried), .retryLater(
            at: Self.now.addingTimeInterval(120), attempts: 1, error: "HTTP 503"))], owner: Self.me)
        #expect(try !idle(), "waiting for a retry: reported by a sync")
        _ = try store.requestCancel(id: retried, now: Self.now, isOwnerAlive: Self.alive)
        let failed = try store.create(title: "failed").id
        try store.finishChains([ChainEnding(try claimed(failed), .failed(
            attempts: 8, error: "gave up"))], owner: Self.me)
        #expect(try !idle(), "cancelled and failed recipes are not retried, but a sync reminds of them")
        for id in [retried, failed] {  // synced by id, as a person resumes them
            let resumed = try claimed(id)
            try store.finishChains([ChainEnding(resumed, .uploaded(
                revision: resumed.revision, version: 1, base: RecipeFields(title: "x")))], owner: Self.me)
        }
        #expect(try idle(), "resumed and on the server")

        try store.delete(soup)
        #expect(try !idle(), "a deletion to send")
        let deletion = try claimed(soup)
        try store.finishChains([ChainEnding(deletion, .uploaded(revision: deletion.revision, version: deletion.revision, base: RecipeFields(title: "x")))], owner: Self.me)
        #expect(try idle(), "the deletion sent")

        // A file under a name recipes writes is for a sync to collect; one it did not write is left alone, so it
        // keeps nothing busy.
        let ownNames = [String(repeating: "a", count: 64) + ".png", UUID().uuidString.lowercased() + "-1.json"]
        for (folder, own) in zip([store.home.mediaURL, store.home.outboxURL], ownNames) {
            let stray = folder.appendingPathComponent(own)
            #expect(FileManager.default.createFile(atPath: stray.path, contents: Data("x".utf8)))
            #expect(try !idle(), "a file in \(folder.lastPathComponent)/ for a sync to collect")
            try FileManager.default.removeItem(at: stray)
            let foreign = folder.appendingPathComponent("stray")
            #expect(FileManager.default.createFile(atPath: foreign.path, contents: Data("x".utf8)))
            #expect(try idle(), "a file recipes did not write in \(folder.lastPathComponent)/")
            try FileManager.default.removeItem(at: foreign)
        }
        #expect(try idle())
        let next = Migration.embedded + [Migration(identifier: "9000_next", sql: "CREATE TABLE next (id INTEGER)")]
        #expect(try !RecipeStore.hasNothingToSync(home: store.home, migrations: next), "a migration to apply")

        let files = [store.home.databaseURL.path, store.home.databaseURL.path + "-wal"]
        let before = files.map { FileManager.default.contents(atPath: $0) }
        #expect(try idle())
        #expect(files.map { FileManager.default.contents(atPath: $0) } == before)
    }

    @Test("hasNothingToSync on a closed home leaves its files as they were: no -wal or -shm file behind")
    func nothingToSyncLeavesNoFiles() throws {
        let dir = TemporaryDirectory()
        do { _ = try RecipeStore(home: dir.home).create(title: "soup") }
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.home.url.path).sorted()
        #expect(before == ["logs", "media", "outbox", "recipes.sqlite3"])
        let bytes = FileManager.default.contents(atPath: dir.home.databaseURL.path)
        #expect(try !RecipeStore.hasNothingToSync(home: dir.home), "the recipe is pending")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.home.url.path).sorted() == before)
        #expect(FileManager.default.contents(atPath: dir.home.databaseURL.path) == bytes)
    }

    @Test("hasNothingToSync refuses a file that is not a recipes database, as opening the store does, and leaves it untouched")
    func nothingToSyncRefusesForeignFile() throws {
        let dir = TemporaryDirectory()
        try dir.home.createDirectories()
        let text = Data("these are my notes, not a database\n".utf8)
        #expect(FileManager.default.createFile(atPath: dir.home.databaseURL.path, contents: text))
        #expect {
            try RecipeStore.hasNothingToSync(home: dir.home)
        } throws: { error in
            if case .notADatabase = (error as? StoreError)?.kind { return true }
            return false
        }
        #expect(FileManager.default.contents(atPath: dir.home.databaseURL.path) == text)
    }
}
