import HTTPTestSupport
import Foundation
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

/// `SyncRun` against the in-process reference server, with real files in temporary homes. Serialized: the cancel
/// and interrupt tests measure promptness, which parallel CPU-heavy tests would blur on a small machine.
@Suite("SyncRun against the reference server", .serialized)
struct SyncRunTests {
    // MARK: Ordering and clean-up

    @Test("every recipe's JSON starts after its image is on the server; image-less recipes send only JSON; files go")
    func orderingAndCleanUp() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            var withImages: [Recipe] = []
            for index in 0..<3 {
                withImages.append(
                    try home.makeRecipe("with image \(index)", image: pngBytes(size: 48 * 1024, seed: UInt8(index + 1)), edits: index))
            }
            let plain = [try home.makeRecipe("plain 0"), try home.makeRecipe("plain 1", edits: 2)]
            #expect(home.mediaFiles.count == 3)

            let recorder = EventRecorder()
            let summary = try await home.sync(server, probe: .live(), recorder: recorder)
            #expect(summary == SyncSummary(done: 5))
            #expect(summary.verdict == .complete)

            let log = await server.requests(atLeast: 3 * 2 + 5)
            #expect(log.count == 3 * 2 + 5)
            for recipe in withImages {
                let image = try #require(recipe.image)
                let imagePath = "/v1/images/\(image.sha256)"
                let head = try #require(log.first { $0.isImageHead && $0.path == imagePath })
                let put = try #require(log.first { $0.isImagePut && $0.path == imagePath })
                let json = try #require(log.first { $0.isRecipePut && $0.path.hasSuffix(recipe.uuid.uuidString.lowercased()) })
                #expect(head.status == 404)
                #expect(put.status == 201)
                #expect(head.end <= put.start)
                #expect(put.end <= json.start, "recipe \(recipe.id): JSON started before its image was stored")

                let stored = try home.recipe(recipe.id)
                let url = "\(server.baseURL)/v1/images/\(image.sha256)"
                #expect(stored.sync.state == .synced)
                #expect(stored.sync.syncedRevision == stored.sync.revision)
                #expect(stored.sync.remoteImageURL == url)
                #expect(stored.image?.localFileName == nil)
                let document = try #require(try await server.recipe(recipe.uuid))
                #expect(document["version"] as? Int64 == stored.sync.serverVersion)
                #expect(document["image"] as? String == url)
            }
            for recipe in plain {
                let requests = log.filter { $0.path.hasSuffix(recipe.uuid.uuidString.lowercased()) }
                #expect(requests.map(\.method) == ["PUT"])
                let stored = try home.recipe(recipe.id)
                #expect(stored.sync.state == .synced)
                #expect(stored.sync.syncedRevision == stored.sync.revision)
                let document = try #require(try await server.recipe(recipe.uuid))
                #expect(document["version"] as? Int64 == stored.sync.serverVersion)
                #expect(document["image"] == nil)
            }
            #expect(home.mediaFiles.isEmpty)
            #expect(home.outboxFiles.isEmpty)
            #expect(Set(server.storedImages()) == Set(withImages.compactMap { $0.image?.sha256 }))
            #expect(recorder.events(.done).count == 5)
            // Progress: at most one report per 100 ms per recipe, apart from the one completing a transfer.
            for recipe in withImages {
                let times = recorder.events(.progress).filter { $0.id == recipe.id && $0.bytes != $0.total }.map(\.time)
                for (earlier, later) in zip(times, times.dropFirst()) {
                    #expect(later.timeIntervalSince(earlier) >= 0.099)
                }
                #expect(recorder.events(.progress).contains { $0.id == recipe.id && $0.bytes == $0.total })
            }
        }
    }

    /// Syncs `count` new recipes with small images, one transfer at a time, to a server that leaves the last one's
    /// JSON unanswered (`stall`), so that the run cannot end while this looks: polls `holds` of the first recipe from
    /// the test, up to a minute (holding nothing the run needs: a wait inside one of the run's own callbacks held up
    /// the transport thread that records the ends, and on a loaded machine the first end was not recorded yet), then
    /// interrupts the run. Returns the run's summary and whether `holds` came true while the run went on.
    func syncWatchingFirst(
        count: Int, _ home: ClientHome, holds: @escaping @Sendable (Recipe) -> Bool
    ) async throws -> (SyncSummary, Bool) {
        var recipes: [Recipe] = []
        for index in 0..<count {
            recipes.append(try home.makeRecipe("recipe \(index)", image: pngBytes(size: 2048, seed: UInt8(index + 1))))
        }
        let first = try #require(recipes.first)
        let last = try #require(recipes.last)
        var result: (SyncSummary, Bool)?
        try await withSyncServer(faults: ["PUT /v1/recipes/\(last.uuid.lowercasedString): stall"]) { server in
            let run = SyncRun(
                store: home.store, settings: home.settings(server),
                options: SyncOptions(direction: .pushOnly).exactly(jobs: 1), emit: { _ in })
            let task = Task { try await run.run() }
            let deadline = ContinuousClock.now + .seconds(60)
            var holding = holds(first)
            while !holding && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                holding = holds(first)
            }
            run.interrupt()
            result = (try await task.value, holding)
        }
        return try #require(result)
    }

    @Test("the media copies of recipes done go while the run goes on, not only once it ends")
    func mediaCopiesGoDuringTheRun() async throws {
        let home = try ClientHome()
        let mediaDirectory = home.store.home.mediaURL.path
        let (summary, gone) = try await syncWatchingFirst(count: 40, home) { first in
            !FileManager.default.fileExists(atPath: mediaDirectory + "/" + (first.image?.localFileName ?? ""))
        }
        #expect(summary.done < 40 && summary.verdict == .workLeft, "the run was still going when it was looked at: \(summary)")
        #expect(gone, "the first recipe's media copy stayed while the run went on")
    }

    @Test("a chain's end is in the database while the run goes on, not only once it ends")
    func endsRecordedDuringTheRun() async throws {
        let home = try ClientHome()
        let (summary, recorded) = try await syncWatchingFirst(count: 10, home) { first in
            let sync = try? home.recipe(first.id).sync
            return sync?.state == .synced && sync?.leaseOwner == nil
        }
        #expect(summary.done < 10 && summary.verdict == .workLeft, "the run was still going when it was looked at: \(summary)")
        #expect(recorded, "the first recipe's end was not recorded while the run went on")
    }

    @Test("more recipes than a run keeps in flight (64): claimed in several batches, each uploaded once, none taken for lost by a poll")
    func severalBatches() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            var uuids: Set<String> = []
            for index in 0..<1_000 {
                uuids.insert(try home.store.create(title: "recipe \(index)").uuid.uuidString.lowercased())
            }
            // Polls at the default interval, as in a real run: a poll that reads while a claim commits must not take
            // the claimed recipes for lost (their chains were not running when it read). A check that did (a poll
            // newer than the claim time without the lease) cancelled some of them in 4 of 4 runs; its answer then
            // stood for the 50 ms until the next poll, where the tests' 10 ms polls corrected it too soon to show.
            var settings = home.settings(server)
            settings.pollInterval = .milliseconds(50)
            let recorder = EventRecorder()
            let run = SyncRun(store: home.store, settings: settings, options: SyncOptions(jobs: 4), emit: recorder.emit)
            let summary = try await run.run()
            let cancelled = recorder.events(.cancelled).compactMap(\.error).prefix(3)
            #expect(summary == SyncSummary(done: 1_000), "cancelled: \(cancelled)")
            let puts = server.requests().filter(\.isRecipePut).map {
                String($0.path.dropFirst("/v1/recipes/".count)).lowercased()
            }
            #expect(puts.count == 1_000 && Set(puts) == uuids, "\(puts.count) recipe PUTs for 1,000 recipes")
            #expect(try home.store.recipes().allSatisfy { $0.sync.state == .synced && $0.sync.leaseOwner == nil })
        }
    }

    @Test("an image the server already has (HEAD 200) is not uploaded again")
    func headSkipsUpload() async throws {
        try await withSyncServer { server in
            let bytes = pngBytes(size: 32 * 1024, seed: 9)
            let first = try ClientHome()
            try first.makeRecipe("first home", image: bytes)
            #expect(try await first.sync(server).verdict == .complete)
            let before = await server.requests(atLeast: 3).count

            let second = try ClientHome()
            let recipe = try second.makeRecipe("second home", image: bytes)
            #expect(try await second.sync(server).verdict == .complete)
            let log = Array(await server.requests(atLeast: before + 2).dropFirst(before))
            let sha = try #require(recipe.image?.sha256)
            #expect(log.filter(\.isImageHead).map(\.status) == [200])
            #expect(log.filter(\.isImagePut).isEmpty)
            #expect(log.filter(\.isRecipePut).count == 1)
            let document = try #require(try await server.recipe(recipe.uuid))
            #expect(document["image"] as? String == "\(server.baseURL)/v1/images/\(sha)")
            #expect(second.mediaFiles.isEmpty)
            #expect(try second.recipe(recipe.id).sync.state == .synced)
        }
    }

    // MARK: Faults that lose or cut requests

    // libcurl re-sends a request by itself when a reused keep-alive connection dies before any answer (the
    // HEAD's connection is reused for the PUT), so a fault on the first request alone never reaches the engine.
    // `first=2` makes the re-sent request, on a fresh connection, fail too: the engine's own retry is exercised.

    @Test("lost acknowledgements of the image and the JSON: done, the image stored once and not re-sent, one recipe")
    func lostAcknowledgements() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: lost-ack first=2", "PUT /v1/recipes/*: lost-ack first=2"]) {
            server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("lost ack", image: pngBytes(size: 40 * 1024, seed: 3))
            let sha = try #require(recipe.image?.sha256)
            let recorder = EventRecorder()
            let summary = try await home.sync(server, recorder: recorder)
            #expect(summary.verdict == .complete)
            #expect(summary.done == 1)
            let log = await server.requests(atLeast: 6)
            let imageRequests = log.filter { $0.path == "/v1/images/\(sha)" }
            // Every image PUT lost its answer; the engine's retry asked with HEAD and did not send the bytes again.
            #expect(imageRequests.filter(\.isImagePut).allSatisfy { $0.fault == "lost-ack" })
            #expect(imageRequests.last?.isImageHead == true)
            #expect(imageRequests.last?.status == 200)
            #expect(recorder.events(.retry).contains { $0.step == .image })
            // The JSON was retried until answered; the server holds one recipe at this revision.
            let recipePuts = log.filter(\.isRecipePut)
            #expect(recipePuts.last?.status == 200)
            #expect(recipePuts.dropLast().allSatisfy { $0.fault == "lost-ack" })
            #expect(recorder.events(.retry).contains { $0.step == .recipe })
            #expect(try await server.listedIdentifiers() == [recipe.uuid.uuidString.lowercased()])
            #expect(try await server.recipe(recipe.uuid)?["version"] as? Int64 == (try home.recipe(recipe.id).sync.serverVersion))
            #expect(server.storedImages() == [sha])
            let stored = try home.recipe(recipe.id)
            #expect(stored.sync.state == .synced)
            #expect(stored.sync.attempts == 0)
            #expect(home.mediaFiles.isEmpty && home.outboxFiles.isEmpty)
        }
    }

    @Test("the JSON the server received is byte for byte the outbox file of that revision (kept: its answer was lost)")
    func outboxHoldsTheBytesSent() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: lost-ack"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("outbox bytes", image: pngBytes(size: 8 * 1024, seed: 9), edits: 2)
            // No time to retry in this run: the chain ends waiting, its outbox file kept for the next one.
            let summary = try await home.sync(server, maxWait: .zero)
            #expect(summary.waiting == 1)
            let name = Outbox.fileName(uuid: recipe.uuid.lowercasedString, revision: recipe.sync.revision)
            #expect(home.outboxFiles == [name])
            let file = try Data(contentsOf: home.store.home.outboxURL.appendingPathComponent(name))
            let received = try await server.get("/v1/recipes/\(recipe.uuid.lowercasedString)")
            #expect(received.status == 200)
            #expect(received.body == file)
            #expect(try await server.recipe(recipe.uuid)?["version"] as? Int == 1, "the version it became: its first")
        }
    }

    @Test("connection resets mid-body on the image and the JSON: retried, done, the image stored once, no partials")
    func resets() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: reset after=16KiB first=2", "PUT /v1/recipes/*: reset first=2"]) {
            server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("reset", image: pngBytes(size: 256 * 1024, seed: 4))
            let recorder = EventRecorder()
            let summary = try await home.sync(server, recorder: recorder)
            #expect(summary.verdict == .complete)
            let log = await server.requests(atLeast: 7)
            let imagePuts = log.filter(\.isImagePut)
            #expect(imagePuts.map(\.status) == [nil, nil, 201])
            #expect(imagePuts.dropLast().allSatisfy { !$0.bodyComplete })
            #expect(log.filter(\.isImageHead).count >= 2, "the engine's retry asks with HEAD first")
            #expect(recorder.events(.retry).contains { $0.step == .image })
            #expect(log.filter(\.isRecipePut).map(\.status) == [nil, nil, 201])
            #expect(try await server.listedIdentifiers() == [recipe.uuid.uuidString.lowercased()])
            #expect(server.storedImages() == [try #require(recipe.image?.sha256)])
            let partial = (try? FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/images/.partial")) ?? []
            #expect(partial.isEmpty)
            #expect(try home.recipe(recipe.id).sync.state == .synced)
        }
    }

    // MARK: Retries

    @Test("503 with Retry-After: 1 on the JSON: the retry starts at least 1 s after the failed request ended")
    func retryAfterHonoured() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: status=503 retry-after=1 first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("busy server")
            let recorder = EventRecorder()
            let summary = try await home.sync(server, recorder: recorder)
            #expect(summary.verdict == .complete)
            let puts = await server.requests(atLeast: 2).filter(\.isRecipePut)
            try #require(puts.count == 2)
            #expect(puts[0].status == 503)
            #expect(puts[1].status == 201)
            #expect(puts[1].start.timeIntervalSince(puts[0].end) >= 0.999)
            let retries = recorder.events(.retry)
            #expect(retries.count == 1)
            #expect((retries.first?.delay ?? 0) >= 1)
            #expect(retries.first?.attempt == 2)
            #expect(retries.first?.step == .recipe)
            #expect(try home.recipe(recipe.id).sync.state == .synced)
        }
    }

    @Test("a wait longer than --max-wait is recorded: waiting, attempts 1, due in 120 s, exit 75; later runs obey it")
    func longWaitDeferred() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: status=503 retry-after=120 first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("come back later")
            let before = Date()
            let recorder = EventRecorder()
            let summary = try await home.sync(server, maxWait: .seconds(1), recorder: recorder)
            #expect(summary.verdict == .workLeft)
            let waiting = try home.recipe(recipe.id)
            #expect(waiting.sync.state == .waiting)
            #expect(waiting.sync.attempts == 1)
            let next = try #require(waiting.sync.nextAttemptAt)
            #expect(abs(next.timeIntervalSince(before) - 120) < 10)
            #expect(waiting.sync.lastError?.contains("503") == true)
            #expect(waiting.sync.leaseOwner == nil)
            #expect(recorder.events(.retry).first.map { ($0.delay ?? 0) >= 119 } == true)
            #expect(await server.requests(atLeast: 1).filter(\.isRecipePut).count == 1)

            // A background run (no ids) leaves it alone: it is not due.
            let background = EventRecorder()
            #expect(try await home.sync(server, recorder: background).verdict == .workLeft)
            #expect(background.events.map(\.kind) == [.skipped])
            #expect(server.requests().count == 1)
            #expect(try home.recipe(recipe.id).sync.state == .waiting)

            // Asked for by id, it goes now.
            #expect(try await home.sync(server, ids: [recipe.id]).verdict == .complete)
            let synced = try home.recipe(recipe.id)
            #expect(synced.sync.state == .synced)
            #expect(synced.sync.attempts == 0)
            #expect(synced.sync.nextAttemptAt == nil)
        }
    }

    @Test("8 transient failures: failed with attempts 8, exit 1, and no 9th request")
    func eightAttemptsThenFailed() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: status=500 rate=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("always 500")
            let recorder = EventRecorder()
            let summary = try await home.sync(server, baseDelay: .milliseconds(2), recorder: recorder)
            #expect(summary.verdict == .someFailed)
            #expect(summary.failed == 1)
            let failed = try home.recipe(recipe.id)
            #expect(failed.sync.state == .failed)
            #expect(failed.sync.attempts == 8)
            #expect(failed.sync.lastError?.contains("8 attempts") == true)
            #expect(failed.sync.leaseOwner == nil)
            #expect(recorder.events(.retry).map(\.attempt) == [2, 3, 4, 5, 6, 7, 8])
            #expect(recorder.events(.failed).count == 1)
            try await Task.sleep(for: .milliseconds(200))
            #expect(await server.requests(atLeast: 8).filter(\.isRecipePut).count == 8)
            // A run without ids leaves a failed recipe alone, and reminds of it (a person must act: exit 1).
            let later = try await home.sync(server)
            #expect(later.verdict == .someFailed && later.failedEarlier == 1 && later.failed == 0)
            #expect(server.requests().count == 8)
        }
    }

    // MARK: Permanent answers

    @Test("413 on the image: failed with the server's message, and its JSON never sent")
    func imageTooLarge() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: status=413"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("too big", image: pngBytes(size: 8 * 1024, seed: 5))
            let recorder = EventRecorder()
            let summary = try await home.sync(server, recorder: recorder)
            #expect(summary.verdict == .someFailed)
            let failed = try home.recipe(recipe.id)
            #expect(failed.sync.state == .failed)
            let error = try #require(failed.sync.lastError)
            #expect(error.contains("413"))
            #expect(error.contains("Fault injected by recipes-server"))
            #expect(recorder.events(.failed).first?.error == error)
            #expect(recorder.events(.failed).first?.step == .image)
            let log = await server.requests(atLeast: 2)
            #expect(log.filter(\.isImagePut).count == 1, "a permanent failure is not retried")
            #expect(log.filter(\.isRecipePut).isEmpty, "the JSON must never be sent when its image failed")
            #expect(home.mediaFiles.count == 1, "the image is not on the server: its copy stays")
        }
    }

    @Test("412: another device wrote first; the server's copy is merged field by field and pushed as its version + 1")
    func staleWriteMerged() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("soup")
            #expect(try await home.sync(server).verdict == .complete)
            #expect(try home.recipe(recipe.id).sync.serverVersion == 1)
            // Another device changes the description, based on version 1.
            let identifier = recipe.uuid.uuidString.lowercased()
            let theirs = try JSONSerialization.data(withJSONObject: [
                "@context": "https://schema.org", "@type": "Recipe", "identifier": identifier, "version": 2,
                "name": "soup", "description": "from the tablet", "recipeIngredient": ["2 tomatoes"],
                "recipeInstructions": [["@type": "HowToStep", "text": "Chop."]],
            ])
            let put = try await server.send(HTTPRequest(
                method: .put, url: "\(server.baseURL)/v1/recipes/\(identifier)", headers: ["If-Match": "\"1\""],
                body: .data(theirs, contentType: "application/json")))
            #expect(put.status == 200)
            // This device changes the title, also based on version 1.
            try home.store.apply(.title("Tomato soup"), to: recipe.id)

            let recorder = EventRecorder()
            #expect(try await home.sync(server, recorder: recorder).verdict == .complete)
            let merged = try home.recipe(recipe.id)
            #expect(merged.sync.state == .synced)
            #expect(merged.sync.serverVersion == 3)
            #expect(merged.title == "Tomato soup" && merged.description == "from the tablet", "both edits survive")
            let document = try #require(try await server.recipe(recipe.uuid))
            #expect(document["version"] as? Int == 3)
            #expect(document["name"] as? String == "Tomato soup")
            #expect(document["description"] as? String == "from the tablet")
            let puts = server.requests().filter(\.isRecipePut).map(\.status)
            #expect(puts == [201, 200, 412, 200], "one stale write, merged, then accepted: \(puts)")
            // The stale write, the read of the server's copy and the merge are steps the run sees: one report, before
            // the write of the merge, naming its revision and round.
            let reported = recorder.events(.merged)
            #expect(reported.count == 1 && reported.first?.step == .merge && reported.first?.version == 2, "\(reported)")
            let revision = try #require(reported.first?.revision)
            #expect(reported.first?.error == "another device wrote first; sending the merge as revision \(revision) (round 2 of 3)")
            #expect(revision == merged.sync.syncedRevision, "the revision reported is the one the server then acknowledged")
            #expect(recorder.events(.done).count == 1, "then one end: done")
        }
    }

    @Test("412, then the read of the server's copy answered 503 with Retry-After: 1: the read step alone is retried after it")
    func staleWriteReadRetried() async throws {
        try await withSyncServer(faults: ["GET /v1/recipes/*: status=503 retry-after=1 first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("soup")
            #expect(try await home.sync(server).verdict == .complete)
            let identifier = recipe.uuid.uuidString.lowercased()
            let theirs = try JSONSerialization.data(withJSONObject: [
                "@context": "https://schema.org", "@type": "Recipe", "identifier": identifier, "version": 2,
                "name": "soup", "description": "from the tablet", "recipeIngredient": ["2 tomatoes"],
                "recipeInstructions": [["@type": "HowToStep", "text": "Chop."]],
            ])
            let put = try await server.send(HTTPRequest(
                method: .put, url: "\(server.baseURL)/v1/recipes/\(identifier)", headers: ["If-Match": "\"1\""],
                body: .data(theirs, contentType: "application/json")))
            #expect(put.status == 200)
            try home.store.apply(.title("Tomato soup"), to: recipe.id)

            let recorder = EventRecorder()
            #expect(try await home.sync(server, recorder: recorder).verdict == .complete)
            let merged = try home.recipe(recipe.id)
            #expect(merged.sync.state == .synced && merged.sync.serverVersion == 3)
            #expect(merged.title == "Tomato soup" && merged.description == "from the tablet", "both edits survive")
            let log = await server.requests(atLeast: 6)
            let reads = log.filter { $0.method == "GET" && $0.path.hasPrefix("/v1/recipes/") }
            try #require(reads.count == 2, "\(reads)")
            #expect(reads[0].status == 503 && reads[1].status == 200)
            #expect(reads[1].start.timeIntervalSince(reads[0].end) >= 0.999, "Retry-After is honoured")
            let retries = recorder.events(.retry)
            #expect(retries.count == 1 && retries.first?.step == .read && (retries.first?.delay ?? 0) >= 1, "\(retries)")
            // The read is a step of its own: its retry reads again, without writing the stale revision again; the
            // merge is made once and written once.
            #expect(log.filter(\.isRecipePut).map(\.status) == [201, 200, 412, 200])
            #expect(recorder.events(.merged).count == 1)
            let starts = recorder.events(.start).compactMap(\.step)
            #expect(starts == [.recipe, .read, .merge, .recipe], "the steps the run sees (a retry is reported as one): \(starts)")
        }
    }

    @Test("a write answered 412 every time: three writes, each stale one read and merged, then a later run goes on")
    func staleWritesBounded() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: status=412"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("soup")
            let recorder = EventRecorder()
            let summary = try await home.sync(server, recorder: recorder)
            let log = await server.requests(atLeast: 6)
            #expect(log.filter(\.isRecipePut).count == 3, "\(log)")
            #expect(log.filter { $0.method == "GET" && $0.path.hasPrefix("/v1/recipes/") }.count == 3)
            #expect(recorder.events(.merged).count == 2, "two merges written again, the third is the bound")
            let skipped = recorder.events(.skipped)
            #expect(skipped.count == 1 && skipped.first?.step == .merge, "the merge step decided it: \(skipped)")
            #expect(skipped.first?.error == "another device kept writing this recipe while it was merged (3 rounds); "
                + "a later run goes on")
            #expect(summary.waiting == 1 && summary.failed == 0)
            #expect(try home.recipe(recipe.id).sync.state == .pending, "still due: nothing lost, nothing failed")
        }
    }

    @Test("412 with a conflicting change of the same field: a conflict for a person, neither pushed nor failed")
    func staleWriteConflict() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("soup")
            _ = try await home.sync(server)
            let identifier = recipe.uuid.uuidString.lowercased()
            let theirs = try JSONSerialization.data(withJSONObject: [
                "@context": "https://schema.org", "@type": "Recipe", "identifier": identifier, "version": 2,
                "name": "Their soup", "recipeIngredient": ["2 tomatoes"],
                "recipeInstructions": [["@type": "HowToStep", "text": "Chop."]],
            ])
            _ = try await server.send(HTTPRequest(
                method: .put, url: "\(server.baseURL)/v1/recipes/\(identifier)", headers: ["If-Match": "\"1\""],
                body: .data(theirs, contentType: "application/json")))
            try home.store.apply(.title("My soup"), to: recipe.id)

            let recorder = EventRecorder()
            let summary = try await home.sync(server, recorder: recorder)
            #expect(summary.conflicts == 1)
            #expect(summary.verdict == .someFailed, "a person must choose: exit 1")
            let stored = try home.recipe(recipe.id)
            #expect(stored.sync.effectiveState(at: Date()) == .conflict)
            #expect(stored.title == "My soup", "the draft keeps mine, theirs beside it")
            #expect(stored.sync.conflict?.summary == "changed here and on the server: title")
            #expect(recorder.events(.conflict).count == 1)
            #expect(recorder.events(.failed).isEmpty)
            // Not due: the next run sends nothing, and says again that a person must choose.
            let again = EventRecorder()
            let next = try await home.sync(server, recorder: again)
            #expect(next.conflicts == 1 && next.verdict == .someFailed)
            #expect(again.events(.conflict).isEmpty, "a reminder is no new conflict (what --background mails)")
            #expect(again.events(.skipped).map(\.id) == [recipe.id])
            #expect(again.events(.skipped).first?.error?.hasPrefix("in conflict: changed here and on the server: title") == true)
            #expect(server.requests().filter(\.isRecipePut).count == 3)
        }
    }

    @Test("unreachable: nothing is sent, offline reported and recorded, no attempt counted, exit 75; then done")
    func unreachableThenReachable() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("offline", image: pngBytes(size: 4096, seed: 6))
            let recorder = EventRecorder()
            let summary = try await home.sync(server, probe: .constant(false), recorder: recorder)
            #expect(summary.verdict == .workLeft)
            #expect(recorder.events.map(\.kind) == [.offline])
            #expect(recorder.events.first?.id == recipe.id)
            let offline = try home.recipe(recipe.id)
            #expect(offline.sync.offlineSince != nil)
            #expect(offline.sync.attempts == 0)
            #expect(offline.sync.state == .pending)
            #expect(offline.sync.leaseOwner == nil)
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests().isEmpty)

            #expect(try await home.sync(server, probe: .constant(true)).verdict == .complete)
            let synced = try home.recipe(recipe.id)
            #expect(synced.sync.state == .synced)
            #expect(synced.sync.offlineSince == nil)
        }
    }

    @Test("refused credentials: exit 77, the run stops, recipes stay pending, no token in any event")
    func refusedCredentials() async throws {
        let serverToken = "server-token-Q7x9Lm2"
        let clientToken = "client-token-Z3k8Pw5"
        try await withSyncServer(token: serverToken) { server in
            let home = try ClientHome()
            var recipes: [Recipe] = []
            for index in 0..<4 { recipes.append(try home.makeRecipe("token \(index)")) }
            let recorder = EventRecorder()
            // One transfer at a time whatever the link (`--jobs 1`): a plan from a round trip measured on a loaded
            // machine would send more at once, and each of those in flight before the refusal gets its own 401.
            let run = SyncRun(
                store: home.store, settings: home.settings(server, token: clientToken),
                options: SyncOptions(direction: .pushOnly).exactly(jobs: 1), emit: recorder.emit)
            let summary = try await run.run()
            #expect(summary.verdict == .credentialsRefused)
            #expect(summary.credentialsRefused)
            let log = await server.requests(atLeast: 1)
            #expect(log.allSatisfy { $0.status == 401 || $0.status == nil })
            #expect(log.count <= 2, "the run must stop after the refusal, not try every recipe")
            // Nothing failed: every recipe of the run says it was not uploaded because of the credentials.
            #expect(recorder.events(.failed).isEmpty)
            let skipped = recorder.events(.skipped)
            #expect(skipped.count == recipes.count)
            #expect(skipped.allSatisfy { $0.error?.contains("refused the credentials") == true })
            #expect(skipped.allSatisfy { $0.error?.hasPrefix("not ") == true })
            for event in recorder.events {
                let text = "\(event)"
                #expect(!text.contains(clientToken))
                #expect(!text.contains(serverToken))
            }
            for recipe in recipes {
                let stored = try home.recipe(recipe.id)
                #expect(stored.sync.state == .pending)
                #expect(stored.sync.attempts == 0)
                #expect(stored.sync.leaseOwner == nil)
                #expect(stored.sync.lastError?.contains(clientToken) != true)
            }
        }
    }

    // MARK: Cancellation and interruption

    /// Starts a run whose image upload stalls and returns it once the whole image body is out (the server then
    /// never answers, so the run can only end by aborting the transfer).
    func startStalledUpload(
        _ home: ClientHome, _ server: SyncServer, ids: [Int64]? = nil, leaseDuration: TimeInterval = 60,
        recorder: EventRecorder
    ) async throws -> (SyncRun, Task<SyncSummary, any Error>) {
        let run = home.makeRun(server, ids: ids, leaseDuration: leaseDuration, recorder: recorder)
        let task = Task { try await run.run() }
        let bodySent = await recorder.wait {
            $0.kind == .progress && $0.step == .image && $0.total != nil && $0.bytes == $0.total
        }
        try #require(bodySent != nil, "no progress event reported the whole image body sent")
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.requests().filter(\.isImagePut).isEmpty, "the stalled PUT must not have been answered")
        return (run, task)
    }

    @Test("recipes cancel from another process aborts a stalled upload at once; the recipe is cancelled, files kept")
    func cancelFromAnotherProcess() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: stall first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("cancel me", image: pngBytes(size: 64 * 1024, seed: 7))
            let recorder = EventRecorder()
            let (_, task) = try await startStalledUpload(home, server, recorder: recorder)

            let otherProcess = try home.otherProcessView()
            var summary = SyncSummary()
            let took = try await elapsed {
                let result = try otherProcess.requestCancel(id: recipe.id, now: Date(), isOwnerAlive: LeaseOwner.isAlive)
                #expect(result == .cancelledInFlight(owner: LeaseOwner.current, processID: getpid()))
                summary = try await task.value
            }
            #expect(took < .seconds(20), "ended by the cancellation, before the stalled transfer's 30-s low-speed limit")
            #expect(summary.cancelled == 1)
            #expect(summary.verdict == .workLeft)
            #expect(recorder.events(.cancelled).map(\.id) == [recipe.id])
            let cancelled = try home.recipe(recipe.id)
            #expect(cancelled.sync.state == .cancelled)
            #expect(cancelled.sync.leaseOwner == nil)
            #expect(!cancelled.sync.cancelRequested)
            #expect(home.mediaFiles == [try #require(recipe.image?.localFileName)])
            let log = server.requests()
            #expect(log.filter(\.isRecipePut).isEmpty)

            // Background sync leaves it alone ...
            #expect(try await home.sync(server).verdict == .complete)
            #expect(server.requests().count == log.count)
            #expect(try home.recipe(recipe.id).sync.state == .cancelled)
            // ... an explicit sync resumes it.
            #expect(try await home.sync(server, ids: [recipe.id]).verdict == .complete)
            #expect(try home.recipe(recipe.id).sync.state == .synced)
            #expect(home.mediaFiles.isEmpty)
        }
    }

    @Test("recipes cancel while the read after a 412 stalls: the read is aborted, the recipe cancelled; resumed by id")
    func cancelDuringTheReadAfterAStaleWrite() async throws {
        try await withSyncServer(faults: ["GET /v1/recipes/*: stall first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("soup")
            #expect(try await home.sync(server).verdict == .complete)
            let identifier = recipe.uuid.uuidString.lowercased()
            let theirs = try JSONSerialization.data(withJSONObject: [
                "@context": "https://schema.org", "@type": "Recipe", "identifier": identifier, "version": 2,
                "name": "soup", "description": "from the tablet", "recipeIngredient": ["2 tomatoes"],
                "recipeInstructions": [["@type": "HowToStep", "text": "Chop."]],
            ])
            _ = try await server.send(HTTPRequest(
                method: .put, url: "\(server.baseURL)/v1/recipes/\(identifier)", headers: ["If-Match": "\"1\""],
                body: .data(theirs, contentType: "application/json")))
            try home.store.apply(.title("Tomato soup"), to: recipe.id)

            let recorder = EventRecorder()
            let run = home.makeRun(server, recorder: recorder)
            let task = Task { try await run.run() }
            try #require(await recorder.wait { $0.kind == .start && $0.step == .read } != nil, "no read step started")
            try await Task.sleep(for: .milliseconds(100))
            let otherProcess = try home.otherProcessView()
            let result = try otherProcess.requestCancel(id: recipe.id, now: Date(), isOwnerAlive: LeaseOwner.isAlive)
            #expect(result == .cancelledInFlight(owner: LeaseOwner.current, processID: getpid()))
            let summary = try await task.value
            #expect(summary.cancelled == 1 && summary.done == 0)
            #expect(recorder.events(.cancelled).map(\.id) == [recipe.id])
            #expect(recorder.events(.cancelled).first?.step == .read, "the read step was the one stopped")
            let cancelled = try home.recipe(recipe.id)
            #expect(cancelled.sync.state == .cancelled && cancelled.sync.leaseOwner == nil)
            #expect(cancelled.title == "Tomato soup", "the draft is kept")
            #expect(server.requests().filter(\.isRecipePut).map(\.status) == [201, 200, 412], "nothing written again")

            // An explicit sync resumes it: read, merged, written.
            #expect(try await home.sync(server, ids: [recipe.id]).verdict == .complete)
            let merged = try home.recipe(recipe.id)
            #expect(merged.sync.state == .synced && merged.sync.serverVersion == 3 && merged.description == "from the tablet")
        }
    }

    @Test("interrupt (Ctrl-C) during a stalled upload ends the run at once; the recipe stays pending, lease released")
    func interruptKeepsPending() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: stall first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("interrupt me", image: pngBytes(size: 64 * 1024, seed: 8))
            let recorder = EventRecorder()
            let (run, task) = try await startStalledUpload(home, server, recorder: recorder)
            var summary = SyncSummary()
            let took = try await elapsed {
                run.interrupt()
                summary = try await task.value
            }
            #expect(took < .seconds(20), "ended by the cancellation, before the stalled transfer's 30-s low-speed limit")
            #expect(summary.verdict == .workLeft)
            #expect(summary.failed == 0)
            let stored = try home.recipe(recipe.id)
            #expect(stored.sync.state == .pending)
            #expect(stored.sync.leaseOwner == nil)
            #expect(stored.sync.attempts == 0)
            #expect(home.mediaFiles.count == 1)

            // Still due for the next background run.
            #expect(try await home.sync(server).verdict == .complete)
            #expect(try home.recipe(recipe.id).sync.state == .synced)
        }
    }

    // MARK: Edits and deletions

    @Test("an edit during the JSON upload: synced revision N, revision N+1 pending; the next run uploads N+1")
    func editDuringUpload() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: latency=800ms first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("before")
            let revision = recipe.sync.revision
            let recorder = EventRecorder()
            let run = home.makeRun(server, recorder: recorder)
            let task = Task { try await run.run() }
            try #require(await recorder.wait { $0.kind == .start && $0.step == .recipe } != nil)
            try await Task.sleep(for: .milliseconds(100))
            try home.otherProcessView().apply(.title("after"), to: recipe.id)
            _ = try await task.value

            let edited = try home.recipe(recipe.id)
            #expect(edited.sync.syncedRevision == revision)
            #expect(edited.sync.revision == revision + 1)
            #expect(edited.sync.state == .pending)
            let uploaded = try #require(try await server.recipe(recipe.uuid))
            #expect(uploaded["version"] as? Int == 1)
            #expect(edited.sync.serverVersion == 1, "the edit is now based on the version the server acknowledged")
            #expect(uploaded["name"] as? String == "before")
            #expect(home.outboxFiles.isEmpty)

            #expect(try await home.sync(server).verdict == .complete)
            let synced = try home.recipe(recipe.id)
            #expect(synced.sync.state == .synced)
            #expect(synced.sync.syncedRevision == revision + 1)
            let document = try #require(try await server.recipe(recipe.uuid))
            #expect(document["version"] as? Int == 2)
            #expect(document["name"] as? String == "after")
        }
    }

    @Test("an edit during the upload leaves work waiting, so the run does not exit 0 (SyncSummary.waiting's doc)")
    func editDuringUploadIsStillWaiting() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: latency=800ms first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("before")
            let recorder = EventRecorder()
            let run = home.makeRun(server, recorder: recorder)
            let task = Task { try await run.run() }
            try #require(await recorder.wait { $0.kind == .start && $0.step == .recipe } != nil)
            try await Task.sleep(for: .milliseconds(100))
            try home.otherProcessView().apply(.title("after"), to: recipe.id)
            let summary = try await task.value
            #expect(try home.recipe(recipe.id).sync.state == .pending)
            #expect(summary.waiting == 1)
            #expect(summary.verdict == .workLeft)
        }
    }

    @Test("a recipe deleted while its image uploads sends no JSON (the poller saw the deletion); the next run deletes it")
    func deletedDuringUpload() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: latency=500ms first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("deleted meanwhile", image: pngBytes(size: 2048, seed: 21))
            let recorder = EventRecorder()
            let run = home.makeRun(server, recorder: recorder)
            let task = Task { try await run.run() }
            let started = await recorder.wait { $0.kind == .start && $0.step == .image }
            try #require(started != nil, "the image step never started")
            // Deleted by another process while the image is still being answered (500 ms, within the claim's freshness,
            // so the JSON step decides from the polls, not from the database).
            try home.otherProcessView().delete(recipe.id)
            let summary = try await task.value
            #expect(summary.verdict == .workLeft)
            #expect(recorder.events(.cancelled).map(\.id) == [recipe.id])
            #expect(server.requests().filter(\.isRecipePut).isEmpty, "the JSON of a deleted recipe went out")
            #expect(try home.recipe(recipe.id).sync.state == .deleting)

            let next = try await home.sync(server)
            #expect(next.verdict == .complete)
            // Its JSON never went: the server, asked, never had it, so there is nothing to delete there.
            #expect(!server.requests().contains { $0.method == "DELETE" })
            #expect(server.requests().contains { $0.method == "GET" && $0.path.hasSuffix(recipe.uuid.uuidString.lowercased()) })
            #expect(throws: StoreError.self) { try home.recipe(recipe.id) }
        }
    }

    @Test("a synced recipe deleted locally is sent as DELETE and its row disappears")
    func deleteSynced() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("to delete", image: pngBytes(size: 2048, seed: 10))
            #expect(try await home.sync(server).verdict == .complete)
            #expect(try await server.recipe(recipe.uuid) != nil)
            let before = await server.requests(atLeast: 3).count

            try home.store.delete(recipe.id)
            #expect(try home.recipe(recipe.id).sync.state == .deleting)
            let recorder = EventRecorder()
            #expect(try await home.sync(server, recorder: recorder).verdict == .complete)
            let log = Array(await server.requests(atLeast: before + 1).dropFirst(before))
            #expect(log.map(\.method) == ["DELETE"])
            #expect(log.first?.status == 204)
            #expect(recorder.events(.done).first?.step == .delete)
            #expect(try home.store.count() == 0)
            #expect(throws: StoreError(.unknownRecipe(id: recipe.id))) { try home.store.recipe(id: recipe.id) }
            #expect(try await server.recipe(recipe.uuid) == nil)
            #expect(home.mediaFiles.isEmpty)
        }
    }

    @Test("a never-synced recipe deleted locally is gone at once and nothing is sent; its image stays for an undo")
    func deleteNeverSynced() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("never sent", image: pngBytes(size: 2048, seed: 11))
            try home.store.delete(recipe.id)
            #expect(try home.store.count() == 0)
            #expect(home.mediaFiles == [try #require(recipe.image?.localFileName)], "its history names it: undo brings it back")
            let recorder = EventRecorder()
            #expect(try await home.sync(server, recorder: recorder).verdict == .complete)
            #expect(recorder.events.isEmpty)
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests().isEmpty)
        }
    }
}
