import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The contract's cross-process invariants (sections 2, 3 and 5), proved through the built `recipes` binary
/// against a real `recipes-server` process: one server per test, killed at the end of the test whatever happens.
///
/// Serialized: every test spawns several processes and the machine may have only two cores.
/// `RECIPES_E2E_VERBOSE=1 swift test --filter SyncEndToEndTests` also prints the measured timings.
@Suite("sync end to end: real binaries, a real server, several processes", .serialized)
struct SyncEndToEndTests {
    // MARK: 1. No overlap per recipe across processes

    @Test("three concurrent sync processes on one home never run two chains of one recipe at once")
    func threeProcessesNeverOverlapPerRecipe() throws {
        let client = Client()
        try client.createRecipes(30, imageSize: 64 * 1024)
        let server = try client.startServer(faults: ["*: latency=20ms"])
        defer { server.stop() }

        let syncs = try (0..<3).map { _ in try client.start(["sync", "--json"]) }
        let results = syncs.map { $0.result(timeout: 60) }
        for result in results {
            #expect(result.status == 0 || result.status == 75, "a concurrent sync: \(result)")
        }
        // Across the three processes every recipe is reported done exactly once.
        let doneByProcess = results.map { result in
            jsonEvents(result.stdout).filter { $0["event"] as? String == "done" }
                .compactMap { ($0["id"] as? NSNumber)?.int64Value }
        }
        let allDone = doneByProcess.flatMap { $0 }
        #expect(allDone.count == 30 && Set(allDone).count == 30, "done events per process: \(doneByProcess)")
        note("three processes: exits \(results.map(\.status)), done \(doneByProcess.map(\.count)), "
             + "seconds \(results.map { String(format: "%.2f", $0.seconds) })")

        let rows = try client.rows()
        #expect(rows.count == 30)
        for row in rows {
            #expect(row.state == "synced" && row.syncedRevision == row.revision,
                    "recipe \(row.id) is \(row.state) at \(row.syncedRevision)/\(row.revision)")
            #expect(row.leaseOwner == nil, "recipe \(row.id) still leased by \(row.leaseOwner ?? "")")
        }

        let requests = server.requests()
        for row in rows {
            let sha = try #require(row.imageSHA256?.lowercased())
            let chain = requests.filter { ($0.isImage && $0.key == sha) || ($0.isRecipe && $0.key == row.uuid) }
            // A recipe's chain is strictly sequential; two of its requests at once means two chains at once.
            for (a, b) in overlappingPairs(chain) {
                Issue.record("recipe \(row.id): overlapping requests\n  \(a)\n  \(b)")
            }
            let recipePuts = chain.filter { $0.method == "PUT" && $0.isRecipe }
            #expect(recipePuts.count == 1, "recipe \(row.id) sent \(recipePuts.count) times: \(recipePuts)")
            let imagePuts = chain.filter { $0.method == "PUT" && $0.isImage }
            #expect(imagePuts.count == 1, "image of recipe \(row.id) sent \(imagePuts.count) times: \(imagePuts)")
            let imageOnServer = chain.filter {
                $0.isImage && (($0.method == "PUT" && $0.succeeded) || ($0.method == "HEAD" && $0.status == 200))
            }
            for put in recipePuts {
                #expect(imageOnServer.contains { $0.end <= put.start },
                        "recipe \(row.id) PUT started before its image was on the server: \(chain)")
            }
        }

        let stored = try server.storedRecipes()
        #expect(stored.count == 30)
        #expect(Set(stored.map(\.identifier)) == Set(rows.map(\.uuid)))
        let versions = Dictionary(uniqueKeysWithValues: rows.map { ($0.uuid, $0.serverVersion) })
        for recipe in stored {
            #expect(recipe.version == versions[recipe.identifier], "server version of \(recipe.identifier)")
        }
    }

    // MARK: 2. Cross-process cancel of a stalled upload

    @Test("recipes cancel stops another process's stalled upload promptly; only an explicit sync resumes it")
    func cancelStopsStalledUploadInAnotherProcess() throws {
        let client = Client()
        try client.createRecipes(1, imageSize: 64 * 1024)
        let recipe = try #require(try client.rows().first)
        let sha = try #require(recipe.imageSHA256?.lowercased())
        let server = try client.startServer(faults: ["PUT /v1/images/*: stall"])
        defer { server.stop() }

        let sync = try client.start(["sync"])
        let uploading = try waitUntil(timeout: 60) { try client.status(of: 1)?["state"] as? String == "uploading" }
        try #require(uploading, "the recipe never became uploading: \(sync.stdout) \(sync.stderr)")
        pause(0.3)  // the image PUT is sent and stalled by the server
        #expect(sync.isRunning)

        let cancelStart = monotonicNow()
        let cancel = try client.run(["cancel", "1"])
        #expect(cancel.status == 0, "\(cancel)")
        #expect(cancel.stdout.contains("stopped"), "cancel should say that the upload stopped: \(cancel)")
        let syncStatus = sync.wait(timeout: 60)
        let syncExited = monotonicNow() - cancelStart
        #expect(syncStatus == 75, "sync after cancel: \(sync.stdout) \(sync.stderr)")
        #expect(syncExited <= stopsAtOnce, "sync exited \(syncExited) s after the cancel began")
        note(String(format: "cancel: command took %.3f s, sync exited %.3f s after the cancel began", cancel.seconds, syncExited))

        let entry = try #require(try client.status(of: 1))
        #expect(entry["state"] as? String == "cancelled")
        let media = try #require(entry["image"] as? String, "the media path is gone: \(entry)")
        #expect(FileManager.default.fileExists(atPath: media))

        server.stop()
        let stalled = server.requests().filter { $0.method == "PUT" && $0.isImage && $0.key == sha }
        #expect(stalled.count == 1 && stalled.first?.status == nil, "the stalled PUT: \(stalled)")

        // Restarted without the stall: a plain sync leaves the cancelled recipe alone…
        let healthy = try client.startServer(log: "requests-2.log")
        defer { healthy.stop() }
        let plain = try client.run(["sync"])
        #expect(plain.status == 0, "\(plain)")
        let touched = healthy.requests().filter { $0.key == sha || $0.key == recipe.uuid }
        #expect(touched.isEmpty, "a plain sync sent requests for the cancelled recipe: \(touched)")
        #expect(try client.status(of: 1)?["state"] as? String == "cancelled")

        // …and `recipes sync 1` uploads it.
        let explicit = try client.run(["sync", "1"])
        #expect(explicit.status == 0, "\(explicit)")
        let after = try #require(try client.rows().first)
        #expect(after.state == "synced" && after.syncedRevision == after.revision)
        let stored = try healthy.storedRecipes()
        #expect(stored.map(\.identifier) == [recipe.uuid])
        #expect(stored.first?.version == after.serverVersion)
        #expect(healthy.storedImageFiles() == [sha])
        #expect(!FileManager.default.fileExists(atPath: media), "the media copy outlived the upload")
    }

    // MARK: 3. kill -9 mid-sync, repeated

    @Test("kill -9 in the middle of syncs, five times, loses nothing, duplicates nothing, leaves nothing behind")
    func killNineMidSyncRepeatedly() throws {
        let client = Client()
        try client.createRecipes(20, imageSize: 256 * 1024)
        let server = try client.startServer(faults: ["*: latency=30ms"])
        defer { server.stop() }

        var random = SplitMix64(state: 0x5EED_2026)
        var killedWhileRunning = 0
        for round in 1...5 {
            // Two jobs stretch a run to about a second, so that most of the seeded kills land mid-run (with the
            // default four the first two kills leave little for the others to interrupt).
            let sync = try client.start(["sync", "--jobs", "2"])
            let delay = random.next(in: 50...400)
            pause(Double(delay) / 1000)
            if sync.isRunning { killedWhileRunning += 1 }
            sync.send(SIGKILL)
            #expect(sync.wait(timeout: 60) != nil)
            note("kill -9 round \(round) after \(delay) ms: \(try client.rows().filter { $0.state == "synced" }.count) of 20 synced")
        }
        #expect(killedWhileRunning > 0, "no run was still going when it was killed; the test proved nothing")
        let clean = try client.run(["sync"])
        #expect(clean.status == 0, "the clean sync after the kills: \(clean)")

        let rows = try client.rows()
        #expect(rows.count == 20)
        for row in rows {
            #expect(row.state == "synced" && row.syncedRevision == row.revision,
                    "recipe \(row.id) is \(row.state) at \(row.syncedRevision)/\(row.revision)")
            #expect(row.leaseOwner == nil, "recipe \(row.id) still leased by \(row.leaseOwner ?? "")")
        }

        let stored = try server.storedRecipes()
        #expect(stored.count == 20)
        #expect(Set(stored.map(\.identifier)) == Set(rows.map(\.uuid)))
        let versions = Dictionary(uniqueKeysWithValues: rows.map { ($0.uuid, $0.serverVersion) })
        for recipe in stored {
            #expect(recipe.version == versions[recipe.identifier], "server version of \(recipe.identifier)")
        }
        let requests = server.requests()
        for row in rows {
            let created = requests.filter { $0.method == "PUT" && $0.isRecipe && $0.key == row.uuid && $0.status == 201 }
            #expect(created.count <= 1, "recipe \(row.id) created \(created.count) times")
        }
        #expect(Set(server.storedImageFiles()) == Set(rows.compactMap { $0.imageSHA256?.lowercased() }))

        #expect(client.leftoverFiles(in: "media") == [])
        #expect(client.leftoverFiles(in: "outbox") == [])
        let integrity = try client.openDatabase().read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
        let leased = try client.openDatabase().read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM recipes WHERE lease_owner IS NOT NULL")
        }
        #expect(leased == 0)
    }

    // MARK: 4. Lost acks and resets

    @Test("lost acknowledgements and connection resets are retried without creating anything twice")
    func lostAcksAndResetsWithoutDuplicates() throws {
        let client = Client()
        try client.createRecipes(3, imageSize: 64 * 1024)
        let server = try client.startServer(faults: ["PUT /v1/recipes/*: lost-ack first=2", "PUT /v1/images/*: reset after=16KiB first=2"])
        defer { server.stop() }

        let result = try client.run(["sync"])
        #expect(result.status == 0, "\(result)")

        let requests = server.requests()
        #expect(requests.filter { $0.fault == "lost-ack" }.count == 2, "the lost acks fired: \(requests)")
        #expect(requests.filter { $0.fault?.hasPrefix("reset") == true }.count == 2, "the resets fired: \(requests)")

        let rows = try client.rows()
        for row in rows {
            #expect(row.state == "synced" && row.syncedRevision == row.revision, "recipe \(row.id): \(row.state)")
            #expect(createdAgain(row.uuid, in: requests).isEmpty,
                    "recipe \(row.id) was created again after its first commit: \(requests)")
            let sha = try #require(row.imageSHA256?.lowercased())
            let storedImage = requests.filter { $0.method == "PUT" && $0.isImage && $0.key == sha && $0.status == 201 }
            #expect(storedImage.count == 1, "image of recipe \(row.id) stored \(storedImage.count) times")
        }
        let stored = try server.storedRecipes()
        #expect(stored.count == 3)
        #expect(Set(stored.map(\.identifier)) == Set(rows.map(\.uuid)))
        let versions = Dictionary(uniqueKeysWithValues: rows.map { ($0.uuid, $0.serverVersion) })
        for recipe in stored { #expect(recipe.version == versions[recipe.identifier]) }
        #expect(Set(server.storedImageFiles()) == Set(rows.compactMap { $0.imageSHA256?.lowercased() }))
        #expect(client.leftoverFiles(in: "media") == [])
        #expect(client.leftoverFiles(in: "outbox") == [])
    }

    @Test("faults hitting one recipe twice go through the run's own retries and still create nothing twice")
    func repeatedFaultsOnOneRecipeAreRetriedByTheRun() throws {
        // With one recipe both faults of each rule hit the same chain: libcurl's single silent re-send on a reused
        // connection absorbs at most one, so the run's own retry (with backoff) must handle the other.
        let client = Client()
        try client.createRecipes(1, imageSize: 64 * 1024)
        let server = try client.startServer(faults: ["PUT /v1/recipes/*: lost-ack first=2", "PUT /v1/images/*: reset after=16KiB first=2"])
        defer { server.stop() }

        let result = try client.run(["sync", "--json"])
        #expect(result.status == 0, "\(result)")
        let events = jsonEvents(result.stdout)
        let retries = events.filter { $0["event"] as? String == "retry" }
        #expect(!retries.isEmpty, "no retry event although every fault hit this recipe: \(result.stdout)")
        #expect(events.last?["event"] as? String == "summary")

        let requests = server.requests()
        #expect(requests.filter { $0.fault == "lost-ack" }.count == 2)
        #expect(requests.filter { $0.fault?.hasPrefix("reset") == true }.count == 2)
        let row = try #require(try client.rows().first)
        #expect(row.state == "synced" && row.syncedRevision == row.revision && row.attempts == 0, "\(row)")
        #expect(createdAgain(row.uuid, in: requests).isEmpty, "the recipe was created again: \(requests)")
        #expect(try server.storedRecipes().map(\.version) == [row.serverVersion])
        #expect(server.storedImageFiles() == [try #require(row.imageSHA256?.lowercased())])
        #expect(client.leftoverFiles(in: "media") == [] && client.leftoverFiles(in: "outbox") == [])
    }

    // MARK: Busy in another process, retry waits, dead owners

    /// Starts a recipe with an image, a server answering its image PUT with `503 Retry-After: 20`, and a first
    /// `recipes sync --json --max-wait 30` that is sleeping out that wait inside its run (holding the lease).
    func syncSleepingOutARetryWait() throws -> (Client, ServerProcess, ChildProcess, ClientRecipe) {
        let client = Client()
        try client.createRecipes(1, imageSize: 64 * 1024)
        let recipe = try #require(try client.rows().first)
        let server = try client.startServer(faults: ["PUT /v1/images/*: status=503 retry-after=60"])
        let first = try client.start(["sync", "--json", "--max-wait", "90"])
        let waiting = waitUntil(timeout: 60, interval: 0.02) {
            jsonEvents(first.stdout).contains { $0["event"] as? String == "retry" }
        }
        try #require(waiting, "the first sync never retried: \(first.stdout) \(first.stderr)")
        return (client, server, first, recipe)
    }

    @Test("a plain sync while another process sleeps out a retry wait for a recipe exits 75 and reports it busy")
    func plainSyncReportsRecipeInAnotherProcessRetryWait() throws {
        let (client, server, first, recipe) = try syncSleepingOutARetryWait()
        defer { server.stop() }
        let sha = try #require(recipe.imageSHA256?.lowercased())
        let sentBefore = server.requests().filter { $0.key == sha || $0.key == recipe.uuid }.count

        // Contract §2: 0 means "all requested work is on the server"; busy in another process / backoff is 75.
        let second = try client.run(["sync", "--json"])
        #expect(second.status == 75, "plain sync while pid \(first.pid) holds the recipe in a retry wait: \(second)")
        let skipped = jsonEvents(second.stdout).filter { $0["event"] as? String == "skipped" }
        #expect(skipped.count == 1, "the recipe held by another process is not reported: \(second.stdout)")
        let background = try client.run(["sync", "--background"])
        #expect(background.status == 75, "background sync in the same situation: \(background)")
        let sentAfter = server.requests().filter { $0.key == sha || $0.key == recipe.uuid }.count
        #expect(sentAfter == sentBefore, "a second process sent requests for a recipe it did not hold")
        first.killNow()
    }

    @Test("sync <id> of a recipe held by another process is skipped (75, nothing sent); cancel cuts its retry wait short")
    func explicitSyncOfBusyRecipeIsSkippedAndCancelEndsRetryWait() throws {
        let (client, server, first, recipe) = try syncSleepingOutARetryWait()
        defer { server.stop() }
        let sha = try #require(recipe.imageSHA256?.lowercased())
        let sentBefore = server.requests().filter { $0.key == sha || $0.key == recipe.uuid }.count

        let second = try client.run(["sync", "--json", "1"])
        #expect(second.status == 75, "sync 1 while another process holds it: \(second)")
        let skipped = jsonEvents(second.stdout).filter { $0["event"] as? String == "skipped" }
        #expect(skipped.count == 1 && (skipped.first?["error"] as? String)?.contains("\(first.pid)") == true,
                "sync 1 should name the process holding the recipe: \(second.stdout)")
        let sentAfter = server.requests().filter { $0.key == sha || $0.key == recipe.uuid }.count
        #expect(sentAfter == sentBefore, "the second process sent requests for a recipe it did not hold")

        let cancelStart = monotonicNow()
        let cancel = try client.run(["cancel", "1"])
        #expect(cancel.status == 0, "\(cancel)")
        let status = first.wait(timeout: 60)
        let elapsed = monotonicNow() - cancelStart
        #expect(status == 75, "the first sync after cancel: \(first.stdout) \(first.stderr)")
        #expect(elapsed <= stopsAtOnce, "the retry wait was not cut short: \(elapsed) s")
        note(String(format: "cancel during a retry wait: sync exited %.3f s after the cancel began", elapsed))
        #expect(jsonEvents(first.stdout).contains { $0["event"] as? String == "cancelled" })
        let row = try #require(try client.rows().first)
        #expect(row.state == "cancelled" && row.leaseOwner == nil, "\(row)")
    }

    @Test("after kill -9 during a retry wait, a plain sync reports the recipe as waiting (75), not as done (0)")
    func killNineDuringRetryWaitLeavesRecipeReportedWaiting() throws {
        let (client, server, first, recipe) = try syncSleepingOutARetryWait()
        defer { server.stop() }
        first.send(SIGKILL)
        #expect(first.wait(timeout: 60) != nil)

        let entry = try #require(try client.status(of: recipe.id))
        #expect(entry["state"] as? String != "synced")
        let after = try client.run(["sync", "--json"])
        #expect(after.status == 75, "plain sync with the recipe still in backoff after its process died: \(after)")
        let reported = jsonEvents(after.stdout).filter { ($0["id"] as? NSNumber)?.int64Value == recipe.id }
        #expect(!reported.isEmpty, "the recipe that is not on the server is not reported at all: \(after.stdout)")
    }

    @Test("after kill -9 mid-upload, status no longer shows the dead process as uploading")
    func killNineMidUploadStatusDoesNotClaimDeadProcessUploads() throws {
        let client = Client()
        try client.createRecipes(1, imageSize: 64 * 1024)
        let server = try client.startServer(faults: ["PUT /v1/images/*: stall"])
        defer { server.stop() }
        let sync = try client.start(["sync"])
        let uploading = try waitUntil(timeout: 60) { try client.status(of: 1)?["state"] as? String == "uploading" }
        try #require(uploading, "the recipe never became uploading: \(sync.stdout) \(sync.stderr)")
        let pid = sync.pid
        sync.send(SIGKILL)
        #expect(sync.wait(timeout: 60) != nil)

        let entry = try #require(try client.status(of: 1))
        #expect(entry["state"] as? String == "pending", "status after the uploading process died: \(entry)")
        #expect((entry["blocked"] as? String)?.contains("pid \(pid)") != true,
                "status names dead pid \(pid) as uploading: \(entry)")
    }


    // MARK: 5. Wrong token

    @Test("a refused token exits 77, never shows either token, and leaves the recipes pending")
    func wrongTokenExits77WithoutLeakingTokens() throws {
        let right = "srvRightTok-9f3K2q"
        let wrong = "cliWrongTok-7Zx4Lm"
        let client = Client()
        try client.createRecipes(2, imageSize: 4096)
        let server = try client.startServer(token: right)
        defer { server.stop() }
        client.token = wrong

        for arguments in [["sync"], ["sync", "--json"], ["sync", "--background"], ["sync", "1"]] {
            let result = try client.run(arguments)
            #expect(result.status == 77, "\(arguments): \(result)")
            for secret in [right, wrong] {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret),
                        "\(arguments) printed a token: \(result)")
            }
            if arguments == ["sync"] {
                // Nothing failed: each recipe says it was not sent, and why.
                #expect(!result.stdout.contains("failed"), "\(result)")
                #expect(result.stdout.contains("#1 Recipe 1: skipped: not sent: the server refused the credentials"), "\(result)")
                #expect(result.stdout.contains("#2 Recipe 2: skipped: not sent: the server refused the credentials"), "\(result)")
                // The advice keeps a new token out of the shell's history: it is read from standard input.
                #expect(result.stdout.contains("`recipes config set server.token -`"), "\(result)")
                #expect(!result.stdout.contains("server.token TOKEN"), "\(result)")
            }
        }
        let log = (try? String(contentsOf: client.homeURL.appendingPathComponent("logs/sync.log"), encoding: .utf8)) ?? ""
        #expect(!log.contains(right) && !log.contains(wrong), "sync.log holds a token: \(log)")
        #expect(log.contains("refused the credentials"), "the background run logged the refusal: \(log)")

        let status = try client.run(["status", "--json"])
        #expect(!status.stdout.contains(right) && !status.stdout.contains(wrong))
        for entry in try client.status() {
            #expect(entry["state"] as? String == "pending", "after a refused token: \(entry)")
        }
        #expect(try server.storedRecipes().isEmpty)
        #expect(server.requests().allSatisfy { $0.status == 401 }, "only refusals: \(server.requests())")
    }

    // MARK: 6. Offline then online

    @Test("an unreachable server counts no attempt and exits 75; once it is up the same recipes sync")
    func offlineThenOnline() throws {
        let client = Client(serverURL: "http://127.0.0.1:\(try closedPort())")
        try client.createRecipes(2, imageSize: 4096)

        let offline = try client.run(["sync"])
        #expect(offline.status == 75, "\(offline)")
        for entry in try client.status() {
            let blocked = entry["blocked"] as? String ?? ""
            #expect(blocked.contains("offline since"), "blocked: \(entry)")
            #expect((entry["attempts"] as? NSNumber)?.intValue == 0, "an attempt was counted: \(entry)")
            #expect(entry["state"] as? String == "pending", "\(entry)")
        }

        let server = try client.startServer()
        defer { server.stop() }
        let online = try client.run(["sync"])
        #expect(online.status == 0, "\(online)")
        for row in try client.rows() {
            #expect(row.state == "synced" && row.syncedRevision == row.revision, "recipe \(row.id): \(row.state)")
        }
        #expect(try server.storedRecipes().count == 2)
    }

    // MARK: 7. Ctrl-C

    @Test("SIGINT stops a stalled sync at once with exit 75, leaving the recipe pending and unleased")
    func interruptStopsCleanly() throws {
        let client = Client()
        try client.createRecipes(1, imageSize: 64 * 1024)
        let server = try client.startServer(faults: ["PUT /v1/images/*: stall"])
        defer { server.stop() }

        let sync = try client.start(["sync"])  // stdout is a pipe, not a terminal
        let uploading = try waitUntil(timeout: 60) { try client.status(of: 1)?["state"] as? String == "uploading" }
        try #require(uploading, "the recipe never became uploading: \(sync.stdout) \(sync.stderr)")
        pause(0.3)

        let sent = monotonicNow()
        sync.send(SIGINT)
        let status = sync.wait(timeout: 60)
        let elapsed = monotonicNow() - sent
        #expect(status == 75, "after SIGINT: \(sync.stdout) \(sync.stderr)")
        #expect(elapsed <= stopsAtOnce, "SIGINT took \(elapsed) s")
        note(String(format: "SIGINT: sync exited %.3f s after the signal", elapsed))

        let entry = try #require(try client.status(of: 1))
        #expect(entry["state"] as? String == "pending", "after Ctrl-C: \(entry)")
        let row = try #require(try client.rows().first)
        #expect(row.leaseOwner == nil, "lease left: \(row.leaseOwner ?? "")")
        #expect(row.syncedRevision == 0)
        #expect(client.leftoverFiles(in: "media").count == 1, "the media copy must stay for the next run")
    }

    @Test("Ctrl-C in the REPL's sync on a terminal cancels the running upload and returns to the prompt")
    func replSyncCtrlCReturnsToThePrompt() throws {
        let client = Client()
        try client.createRecipes(1, imageSize: 64 * 1024)
        let server = try client.startServer(faults: ["PUT /v1/images/*: stall"])
        defer { server.stop() }

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pty_repl_sync.py").path
        let session = try client.runPython(script)
        #expect(session.stdout.contains("EXIT 0"), "the REPL ends normally with Ctrl-D: \(session.stdout)")
        let seconds = session.stdout.split(separator: "\n").first { $0.hasPrefix("PROMPT-AFTER-CTRL-C ") }
            .flatMap { Double($0.dropFirst("PROMPT-AFTER-CTRL-C ".count)) }
        let back = try #require(seconds, "no timing line: \(session.stdout)")
        #expect(back >= 0 && back <= stopsAtOnce, "the prompt came back \(back) s after Ctrl-C: \(session.stdout)")
        #expect(session.stdout.contains("pending"), "status 1 after Ctrl-C says pending: \(session.stdout)")
        let row = try #require(try client.rows().first)
        #expect(row.leaseOwner == nil, "lease left: \(row.leaseOwner ?? "")")
        #expect(row.state == "pending")
    }

    // MARK: 8. Edit during upload

    @Test("an edit made while revision N uploads leaves N on the server and N+1 pending, sent by the next sync")
    func editDuringUploadIsKeptForTheNextSync() throws {
        let client = Client()
        try client.createRecipes(1, imageSize: 64 * 1024, titlePrefix: "Old title")
        let before = try #require(try client.rows().first)
        let n = before.revision
        let sha = try #require(before.imageSHA256?.lowercased())
        let server = try client.startServer(faults: ["PUT /v1/recipes/*: latency=1500ms"])
        defer { server.stop() }

        let sync = try client.start(["sync"])
        let imageDone = waitUntil(timeout: 60, interval: 0.02) {
            server.requests().contains { $0.method == "PUT" && $0.key == sha && $0.status == 201 }
        }
        try #require(imageDone, "the image never reached the server: \(sync.stdout) \(sync.stderr)")
        pause(0.2)  // the recipe PUT is now in its 1.5 s of latency
        let editStart = Date()
        try client.edit(["title 1 \"New title\""])
        let editEnd = Date()

        let result = sync.result()
        #expect(result.status == 75, "a sync whose recipe was edited meanwhile: \(result)")
        let put = try #require(server.requests().first { $0.method == "PUT" && $0.isRecipe })
        #expect(put.start <= editStart.addingTimeInterval(0.002) && editEnd <= put.end.addingTimeInterval(0.002),
                "the edit (\(editStart)–\(editEnd)) was not made while the recipe PUT was in flight: \(put)")

        let entry = try #require(try client.status(of: 1))
        #expect((entry["revision"] as? NSNumber)?.intValue == n + 1)
        #expect((entry["syncedRevision"] as? NSNumber)?.intValue == n)
        #expect(entry["state"] as? String == "pending")
        let first = try #require(try server.storedRecipes().first)
        #expect(first.version == 1 && first.name == "Old title 1", "server after the first sync: \(first)")

        let next = try client.run(["sync"])
        #expect(next.status == 0, "\(next)")
        let second = try #require(try server.storedRecipes().first)
        #expect(second.version == 2 && second.name == "New title", "server after the second sync: \(second)")
        let row = try #require(try client.rows().first)
        #expect(row.state == "synced" && row.syncedRevision == n + 1)
    }

    // MARK: 9. Background run

    @Test("sync --background prints nothing, exits 0, and logs each recipe to logs/sync.log")
    func backgroundRunIsSilentAndLogs() throws {
        let client = Client()
        let server = try client.startServer()
        defer { server.stop() }
        let logPath = client.homeURL.appendingPathComponent("logs/sync.log").path

        let idle = try client.run(["sync", "--background"])
        #expect(idle.status == 0 && idle.stdout.isEmpty && idle.stderr.isEmpty, "nothing due: \(idle)")
        #expect(idle.seconds <= stopsAtOnce, "nothing due should return at once: \(idle)")
        // Nothing to push: the run only reads the changes feed (two-way sync), and the feed is empty.
        #expect(server.requests().map { "\($0.method) \($0.path)" } == ["GET /v1/changes"], "nothing due: \(server.requests())")

        try client.createRecipes(2, imageSize: 4096, titlePrefix: "Cron")
        let busy = try client.run(["sync", "--background"])
        #expect(busy.status == 0 && busy.stdout.isEmpty && busy.stderr.isEmpty, "due work: \(busy)")
        // The run closed its database before exiting: its WAL was checkpointed and removed.
        let wal = client.homeURL.appendingPathComponent("recipes.sqlite3-wal").path
        #expect(!FileManager.default.fileExists(atPath: wal), "sync exited with its database still open")
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        for id in 1...2 {
            let line = log.split(separator: "\n").first { $0.contains("#\(id) Cron \(id)") && $0.contains("done") }
            #expect(line != nil, "no done line for recipe \(id) in sync.log:\n\(log)")
        }
        for row in try client.rows() { #expect(row.state == "synced") }

        // An idle run does not open the store: the database keeps every byte (opening it rewrites its header, as
        // GRDB creates and drops a table to make a WAL file exist), and nothing is left beside it.
        let database = client.homeURL.appendingPathComponent("recipes.sqlite3")
        let bytes = try Data(contentsOf: database)
        let asked = server.requests().count
        let again = try client.run(["sync", "--background"])
        #expect(again.status == 0 && again.stdout.isEmpty && again.stderr.isEmpty, "nothing due again: \(again)")
        // One question to the server (anything after this home's cursor?), whose answer is no: the run it made
        // read its own uploads back from the feed.
        let idleRequests = server.requests().dropFirst(asked).map { "\($0.method) \($0.path)" }
        #expect(idleRequests == ["GET /v1/changes"], "the idle run: \(idleRequests)")
        #expect(try Data(contentsOf: database) == bytes, "an idle run wrote to the database")
        let left = try FileManager.default.contentsOfDirectory(atPath: client.homeURL.path).filter { $0.hasPrefix("recipes.sqlite3") }
        #expect(left == ["recipes.sqlite3"], "an idle run left files beside the database: \(left)")
        let logAfter = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(logAfter == log, "a run with nothing to do wrote to sync.log")
    }

    // MARK: 10. Unknown ids and usage

    @Test("an unknown id exits 1 naming it; --jobs 0 is a usage error (64)")
    func unknownIdAndUsageErrors() throws {
        let client = Client()
        let server = try client.startServer()
        defer { server.stop() }
        try client.createRecipes(1, imageSize: 0)

        let sync = try client.run(["sync", "99"])
        #expect(sync.status == 1, "\(sync)")
        let lines = sync.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("99") == true, "stderr: \(sync.stderr)")
        #expect(server.requests().isEmpty, "an unknown id sent requests")
        #expect(try client.rows().first?.state == "pending")

        let cancel = try client.run(["cancel", "99"])
        #expect(cancel.status == 1, "\(cancel)")
        #expect(cancel.stderr.contains("99"), "\(cancel)")

        let usage = try client.run(["sync", "--jobs", "0"])
        #expect(usage.status == 64, "\(usage)")
        #expect(!usage.stderr.isEmpty)
    }
}
