import Foundation
import GRDB
import Locking
import OperationEngine
import RecipeModels
import RecipeStore
import RecipeSync
import RecipesTestSupport
import ReferenceServer
import Testing
import Transport

#if canImport(Glibc)
import Glibc
#endif

/// More `SyncRun` cases: other processes (busy, dead, taking a lease over), cancelling a retry wait, requests that
/// change nothing, and edits racing a failing upload. Part of the serialized `SyncRunTests` suite.
extension SyncRunTests {
    // MARK: Other processes

    @Test("a recipe leased by another live process is reported busy (skipped), nothing is sent, exit 75")
    func busyInAnotherProcess() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("busy elsewhere")
            let batch = try home.otherProcessView().claim(
                ids: [recipe.id], owner: "other-host:1", now: Date(), leaseDuration: 60, isOwnerAlive: { _ in true })
            #expect(batch.claims.count == 1)
            let recorder = EventRecorder()
            let summary = try await home.sync(server, recorder: recorder)
            #expect(summary.verdict == .workLeft)
            #expect(recorder.events.map(\.kind) == [.skipped])
            #expect(recorder.events.first?.error?.contains("another process") == true)
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests().isEmpty)
            #expect(try home.recipe(recipe.id).sync.leaseOwner == "other-host:1")
        }
    }

    @Test("the lease of a process that died (kill -9) is taken over and the recipe uploaded")
    func deadProcessLeaseTakenOver() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("orphaned", image: pngBytes(size: 4096, seed: 12))
            let dead = "2147483646:5"  // no such pid
            #expect(!LeaseOwner.isAlive(dead))
            _ = try home.otherProcessView().claim(
                ids: [recipe.id], owner: dead, now: Date(), leaseDuration: 600, isOwnerAlive: { _ in true })
            #expect(try await home.sync(server).verdict == .complete)
            let synced = try home.recipe(recipe.id)
            #expect(synced.sync.state == .synced)
            #expect(synced.sync.leaseOwner == nil)
        }
    }

    @Test("a run first collects the temporary files its settings' liveness check calls gone, in media/ and outbox/")
    func collectsTemporaryFilesOfGoneWriters() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("due")
            try FileManager.default.createDirectory(at: home.store.home.outboxURL, withIntermediateDirectories: true)
            // Owner strings `LeaseOwner.isAlive` cannot judge (it calls them alive): only the run's own check decides.
            let gone = ".tmp-writer-gone:1@\(UUID().uuidString.lowercased())"
            let running = ".tmp-writer-running:2@\(UUID().uuidString.lowercased())"
            for folder in [home.store.home.mediaURL, home.store.home.outboxURL] {
                for name in [gone, running] {
                    #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data([1])))
                }
            }
            var settings = home.settings(server)
            settings.isOwnerAlive = { $0 != "writer-gone:1" }
            let summary = try await SyncRun(
                store: home.store, settings: settings, options: SyncOptions(ids: nil, jobs: 4), emit: EventRecorder().emit
            ).run()
            #expect(summary == SyncSummary(done: 1))
            #expect(try home.recipe(recipe.id).sync.state == .synced)
            #expect(home.mediaFiles == [running])
            #expect(home.outboxFiles == [running])
        }
    }

    @Test("a lease taken over by another process stops this run's upload of it at once, leaving the lease alone")
    func leaseLostStopsUpload() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: stall first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("taken over", image: pngBytes(size: 64 * 1024, seed: 13))
            let recorder = EventRecorder()
            let (_, task) = try await startStalledUpload(home, server, leaseDuration: 0.3, recorder: recorder)
            var summary = SyncSummary()
            let took = try await elapsed {
                // Another process decides this one is gone and takes the recipe over.
                let other = try home.otherProcessView().claimDue(
                    owner: "other-host:2", now: Date().addingTimeInterval(1), leaseDuration: 600, limit: 10, after: 0,
                    isOwnerAlive: { $0 != LeaseOwner.current })
                #expect(other.claims.map(\.recipe.id) == [recipe.id])
                summary = try await task.value
            }
            #expect(took < .seconds(20), "ended by the cancellation, before the stalled transfer's 30-s low-speed limit")
            #expect(summary.verdict == .workLeft)
            #expect(recorder.events(.cancelled).map(\.id) == [recipe.id])
            let stored = try home.recipe(recipe.id)
            #expect(stored.sync.leaseOwner == "other-host:2", "the run must not release a lease it no longer holds")
            #expect(stored.sync.state == .pending)
            #expect(server.requests().filter(\.isRecipePut).isEmpty)
        }
    }

    @Test("--wait-for-network: the run waits for the server to come back, then uploads")
    func waitsForNetwork() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("patience")
            let probes = Locked(0)
            let probe = ConnectProbe { _, _ in
                probes.withLock { count in
                    count += 1
                    return count > 3  // unreachable for the first three probes
                }
            }
            let run = home.makeRun(server, waitForNetwork: .seconds(5), probe: probe, recorder: EventRecorder())
            #expect(try await run.run().verdict == .complete)
            #expect(probes.withLock { $0 } > 3)
            let synced = try home.recipe(recipe.id)
            #expect(synced.sync.state == .synced)
            #expect(synced.sync.offlineSince == nil)
        }
    }

    // MARK: Cancelling a wait

    @Test("recipes cancel during an in-run retry wait ends the run at once; cancelled, attempts kept")
    func cancelDuringRetryWait() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: status=503 retry-after=25 first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("cancel the wait")
            let recorder = EventRecorder()
            let run = home.makeRun(server, recorder: recorder)
            let task = Task { try await run.run() }
            try #require(await recorder.wait { $0.kind == .retry } != nil)
            var summary = SyncSummary()
            let took = try await elapsed {
                let result = try home.otherProcessView().requestCancel(
                    id: recipe.id, now: Date(), isOwnerAlive: LeaseOwner.isAlive)
                #expect(result == .cancelledInFlight(owner: LeaseOwner.current, processID: getpid()))
                summary = try await task.value
            }
            #expect(took < .seconds(20), "ended by the cancellation, before the 25-s retry wait (within the 30-s --max-wait) ran out")
            #expect(summary.verdict == .workLeft)
            let stored = try home.recipe(recipe.id)
            #expect(stored.sync.state == .cancelled)
            #expect(stored.sync.attempts == 1)
            #expect(stored.sync.nextAttemptAt == nil)
            #expect(stored.sync.leaseOwner == nil)
            #expect(server.requests().filter(\.isRecipePut).count == 1)
        }
    }

    // MARK: Runs that change nothing

    @Test("a run naming an unknown id throws before anything is claimed or sent")
    func unknownIdChangesNothing() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("known")
            let run = home.makeRun(server, ids: [recipe.id, 999], recorder: EventRecorder())
            await #expect(throws: StoreError(.unknownRecipe(id: 999))) { try await run.run() }
            let stored = try home.recipe(recipe.id)
            #expect(stored.sync.state == .pending)
            #expect(stored.sync.leaseOwner == nil)
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests().isEmpty)
        }
    }

    @Test("syncing a recipe the server already has by id sends nothing and reports it done")
    func explicitSyncOfSyncedRecipe() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("already there")
            #expect(try await home.sync(server).verdict == .complete)
            let before = await server.requests(atLeast: 1).count
            let recorder = EventRecorder()
            let summary = try await home.sync(server, ids: [recipe.id], recorder: recorder)
            #expect(summary.verdict == .complete)
            #expect(summary.done == 1)
            #expect(recorder.events.map(\.kind) == [.done])
            #expect(recorder.events.first?.error == nil)
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests().count == before)
        }
    }

    @Test("a recipe deferred in this run is reported once: one retry event, one closing skipped, waiting counted once")
    func deferredReportedOnce() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: status=503 retry-after=120 first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("once")
            let recorder = EventRecorder()
            let summary = try await home.sync(server, maxWait: .seconds(1), recorder: recorder)
            let about = recorder.events.filter { $0.id == recipe.id }.map(\.kind)
            #expect(about.filter { $0 == .retry }.count == 1)
            #expect(about.filter { $0 == .skipped }.count == 1, "the chain ends with one skipped: \(about)")
            #expect(about.last == .skipped, "events: \(about)")
            #expect(summary.waiting == 1)
        }
    }

    // MARK: Edits racing a failing upload

    @Test("an image replaced while the old one is refused (413) leaves the new revision due; the next run uploads it")
    func editDuringPermanentFailure() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: latency=800ms first=1", "PUT /v1/images/*: status=413 first=1"]) {
            server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("too big at first", image: pngBytes(size: 16 * 1024, seed: 14))
            let recorder = EventRecorder()
            let run = home.makeRun(server, recorder: recorder)
            let task = Task { try await run.run() }
            try #require(await recorder.wait { $0.kind == .start && $0.step == .image } != nil)
            try await Task.sleep(for: .milliseconds(150))
            // The user attaches a smaller image while the first one is being refused.
            let smaller = home.folder.file("smaller.png", pngBytes(size: 2048, seed: 15))
            let other = try home.otherProcessView()
            try other.apply(.setImage(try other.media.stage(from: smaller)), to: recipe.id)
            _ = try await task.value
            #expect(recorder.events(.failed).count == 1)

            let edited = try home.recipe(recipe.id)
            #expect(edited.sync.revision == recipe.sync.revision + 1)
            #expect(edited.sync.state == .pending, "the failure of revision \(recipe.sync.revision) must not stick to the edit")
            #expect(edited.sync.attempts == 0)

            #expect(try await home.sync(server).verdict == .complete)
            let synced = try home.recipe(recipe.id)
            #expect(synced.sync.state == .synced)
            #expect(synced.sync.syncedRevision == recipe.sync.revision + 1)
        }
    }

    // MARK: Recording the ends

    @Test("an end the database refuses fails only its own recipe: the rest of its batch is recorded, it says why, exit 1")
    func unrecordableEnd() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recorded = try home.makeRecipe("recorded")
            let refused = try home.makeRecipe("refused by the database")
            // The database refuses to mark the second one synced; polls too slow to record anything during the run,
            // so both ends go in the final batch, and that batch's transaction fails.
            let queue = try DatabaseQueue(path: home.store.home.databaseURL.path)
            try await queue.write { db in
                try db.execute(sql: """
                    CREATE TRIGGER refuse BEFORE UPDATE OF state ON recipes
                    WHEN NEW.state = 'synced' AND NEW.id = \(refused.id) BEGIN SELECT RAISE(ABORT, 'refused'); END
                    """)
            }
            var settings = home.settings(server)
            settings.pollInterval = .seconds(60)
            let recorder = EventRecorder()
            // Pushes only: the pull after it would find the refused recipe on the server and try to mark it synced too.
            let run = SyncRun(store: home.store, settings: settings, options: SyncOptions(jobs: 4, direction: .pushOnly),
                              emit: recorder.emit)
            let summary = try await run.run()
            #expect(summary == SyncSummary(done: 1, failed: 1))
            #expect(summary.verdict == .someFailed)
            #expect(try home.recipe(recorded.id).sync.state == .synced)
            #expect(try home.recipe(refused.id).sync.state != .synced)
            let failed = recorder.events(.failed)
            #expect(failed.map(\.id) == [refused.id])
            #expect(failed.first?.error?.hasPrefix("cannot record the result") == true, "\(failed)")
            #expect(recorder.events(.done).map(\.id) == [recorded.id])
        }
    }
}
