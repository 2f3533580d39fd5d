import Foundation
import GRDB
import RecipesTestSupport
import Testing

/// Two homes (two devices) on one reference server, every one a real `recipes` binary: what section 6 of the
/// contract promises a person with a second device, a lost laptop, or edits from two places.
@Suite("two-way sync end to end: two homes, one server, real binaries")
struct TwoWaySyncTests {
    /// A second home on `server`.
    static func secondHome(on server: ServerProcess) -> Client {
        Client(serverURL: server.url)
    }

    /// Two homes on one server (started with `faults`, stopped by the caller) that both have the recipes the REPL
    /// `lines` create in the first: the first syncs them up, the second syncs them down.
    static func twoHomes(
        _ lines: [String], faults: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (first: Client, server: ServerProcess, second: Client) {
        let first = Client()
        let server = try first.startServer(faults: faults, sourceLocation: sourceLocation)
        try first.edit(lines, sourceLocation: sourceLocation)
        #expect(try first.run(["sync"]).status == 0, sourceLocation: sourceLocation)
        let second = secondHome(on: server)
        #expect(try second.run(["sync"]).status == 0, sourceLocation: sourceLocation)
        return (first, server, second)
    }

    /// `recipes show ID --json`, parsed.
    static func show(_ client: Client, _ id: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let result = try client.run(["show", String(id), "--json"], sourceLocation: sourceLocation)
        #expect(result.status == 0, "show \(id): \(result)", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                            sourceLocation: sourceLocation)
    }

    /// The local id of the recipe `uuid` in `client`'s home.
    static func id(of uuid: String, in client: Client, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        try #require(try client.rows().first { $0.uuid == uuid }?.id, "no recipe \(uuid) here", sourceLocation: sourceLocation)
    }

    /// The SHA-256 of `path`'s bytes, as the image files are named.
    static func sha256(ofFileAt path: String) -> String? {
        let result = try? ChildProcess(URL(fileURLWithPath: "/usr/bin/sha256sum"), [path], environment: [:], input: nil).result()
        return result.flatMap { $0.stdout.split(separator: " ").first.map(String.init) }
    }

    @Test("a fresh home restores every recipe of the server, images included, with one sync; a second sync sends one request")
    func restoreOnAFreshHome() throws {
        let first = Client()
        let server = try first.startServer()
        defer { server.stop() }
        try first.createRecipes(5, imageSize: 8192, titlePrefix: "Soup")
        try first.edit(["new \"Bread\"", "ingredient add 6 500 g flour", "step add 6 'Knead.'"])
        #expect(try first.run(["sync"]).status == 0)

        let second = Self.secondHome(on: server)
        let restore = try second.run(["sync", "--json"])
        #expect(restore.status == 0, "\(restore)")
        let events = jsonEvents(restore.stdout)
        #expect(events.filter { $0["event"] as? String == "pulled" }.count == 6, "\(restore.stdout)")
        #expect(events.filter { $0["event"] as? String == "downloaded" }.count == 5, "\(restore.stdout)")
        #expect(!events.contains { ["done", "failed"].contains($0["event"] as? String) }, "a restore uploaded: \(restore.stdout)")

        let mine = try first.rows(), theirs = try second.rows()
        #expect(Set(theirs.map(\.uuid)) == Set(mine.map(\.uuid)))
        for row in theirs {
            #expect(row.state == "synced" && row.serverVersion == 1, "\(row)")
            let original = try #require(mine.first { $0.uuid == row.uuid })
            #expect(row.title == original.title && row.imageSHA256 == original.imageSHA256)
        }
        // Every image is in images/, under its SHA-256, with exactly those bytes; nothing else is left there.
        let shas = Set(theirs.compactMap(\.imageSHA256))
        #expect(shas.count == 5)
        #expect(Set(second.leftoverFiles(in: "images")) == Set(shas.map { "\($0).png" }))
        for sha in shas {
            #expect(Self.sha256(ofFileAt: second.homeURL.appendingPathComponent("images/\(sha).png").path) == sha)
        }
        let bread = try Self.show(second, try Self.id(of: try #require(mine.last?.uuid), in: second))
        #expect(bread["ingredients"] as? [String] == ["500 g flour"] && bread["steps"] as? [String] == ["Knead."], "\(bread)")
        // The uploading home keeps its images too: the media copies moved to images/ once the server had them.
        #expect(first.leftoverFiles(in: "media").isEmpty)
        #expect(Set(first.leftoverFiles(in: "images")) == Set(shas.map { "\($0).png" }))

        // Nothing new: the next sync of either home asks the feed once and does nothing else.
        let asked = server.requests().count
        let idle = try second.run(["sync"])
        #expect(idle.status == 0 && idle.stdout == "sync: nothing to do\n", "\(idle)")
        #expect(server.requests().dropFirst(asked).map(\.method) == ["GET"], "\(server.requests().dropFirst(asked))")
    }

    @Test("edits of different fields on two homes merge: both homes and the server end with both edits, nothing conflicts")
    func differentFieldsMerge() throws {
        let (first, server, second) = try Self.twoHomes(["new \"Tomato soup\"", "ingredient add 1 2 tomatoes", "ingredient add 1 1 onion", "step add 1 'Chop.'"])
        defer { server.stop() }
        let uuid = try #require(try first.rows().first?.uuid)
        let there = try Self.id(of: uuid, in: second)

        try first.edit(["title 1 \"Roast tomato soup\""])
        #expect(try first.run(["sync"]).status == 0)
        try second.edit(["ingredient add \(there) 1 clove garlic", "step add \(there) 'Simmer.'"])
        let merging = try second.run(["sync", "--json"])
        #expect(merging.status == 0, "\(merging)")
        let kinds = jsonEvents(merging.stdout).compactMap { $0["event"] as? String }
        #expect(kinds.contains("merged") && kinds.contains("done"), "\(merging.stdout)")
        #expect(try first.run(["sync"]).status == 0)

        let expected: (String, [String], [String]) = ("Roast tomato soup", ["2 tomatoes", "1 onion", "1 clove garlic"], ["Chop.", "Simmer."])
        for (client, id) in [(first, Int64(1)), (second, there)] {
            let recipe = try Self.show(client, id)
            #expect(recipe["title"] as? String == expected.0, "\(recipe)")
            #expect(recipe["ingredients"] as? [String] == expected.1, "\(recipe)")
            #expect(recipe["steps"] as? [String] == expected.2, "\(recipe)")
            let row = try #require(try client.rows().first { $0.uuid == uuid })
            #expect(row.state == "synced" && row.serverVersion == 3, "\(row)")
        }
        let stored = try #require(try server.storedRecipes().first)
        #expect(stored.version == 3 && stored.name == expected.0)
    }

    @Test("the same field changed on both homes is a conflict (exit 1, not pushed); status and events say so")
    func sameFieldConflicts() throws {
        let (first, server, second) = try Self.twoHomes(["new \"Pancakes\""])
        defer { server.stop() }
        try first.edit(["title 1 \"Crêpes\""])
        #expect(try first.run(["sync"]).status == 0)
        try second.edit(["title 1 \"Fluffy pancakes\""])

        let sync = try second.run(["sync", "--json"])
        #expect(sync.status == 1, "a conflict asks a person to choose: \(sync)")
        let conflict = try #require(jsonEvents(sync.stdout).first { $0["event"] as? String == "conflict" }, "\(sync.stdout)")
        #expect((conflict["error"] as? String)?.contains("changed here and on the server: title") == true, "\(conflict)")
        #expect(!jsonEvents(sync.stdout).contains { $0["event"] as? String == "done" }, "the conflicting draft was pushed")
        let entry = try #require(try second.status(of: 1))
        #expect(entry["state"] as? String == "conflict", "\(entry)")
        #expect((entry["blocked"] as? String)?.contains("`recipes resolve 1 --mine` or `--theirs`") == true, "\(entry)")
        // The draft keeps mine; the server keeps theirs, at the version the first home wrote.
        #expect(try Self.show(second, 1)["title"] as? String == "Fluffy pancakes")
        #expect(try server.storedRecipes().first?.name == "Crêpes")
        #expect(try server.storedRecipes().first?.version == 2)
        // A conflict is not due: the next run leaves it as it is, and says so again.
        let again = try second.run(["sync"])
        #expect(again.status == 1, "\(again)")
        #expect(again.stdout.contains("#1 Fluffy pancakes: skipped: in conflict: changed here and on the server: title"), "\(again)")
        // cron mails what a run prints: the conflict was new once, so later background runs print nothing.
        let cron = try second.run(["sync", "--background"])
        #expect(cron.stdout.isEmpty && cron.stderr.isEmpty, "a known conflict mailed again: \(cron)")
        #expect(try server.storedRecipes().first?.version == 2)
    }

    @Test("a deletion on one home removes the recipe on the other (its image kept for undo); deleted on the server while edited here is a conflict")
    func deletionsBothWays() throws {
        let first = Client()
        let server = try first.startServer()
        defer { server.stop() }
        try first.createRecipes(2, imageSize: 4096, titlePrefix: "Cake")
        #expect(try first.run(["sync"]).status == 0)
        let second = Self.secondHome(on: server)
        #expect(try second.run(["sync"]).status == 0)
        let rows = try first.rows()
        try #require(rows.count == 2, "\(rows)")
        let gone = rows[0], edited = rows[1]
        #expect(second.leftoverFiles(in: "images").count == 2)

        try first.edit(["delete 1", "delete 2"])
        #expect(try first.run(["sync"]).status == 0)
        #expect(try first.rows().isEmpty)
        try second.edit(["title \(try Self.id(of: edited.uuid, in: second)) \"Cake, edited offline\""])

        let sync = try second.run(["sync", "--json"])
        #expect(sync.status == 1, "\(sync)")
        let events = jsonEvents(sync.stdout)
        #expect(events.contains { $0["event"] as? String == "removed" && $0["uuid"] as? String == gone.uuid }, "\(sync.stdout)")
        let conflict = events.first { $0["event"] as? String == "conflict" && $0["uuid"] as? String == edited.uuid }
        #expect((conflict?["error"] as? String)?.hasPrefix("deleted on the server, changed here") == true, "\(sync.stdout)")
        let left = try second.rows()
        #expect(left.map(\.uuid) == [edited.uuid], "the unedited recipe stays only if edited: \(left)")
        // The removed recipe's image stays while its history names it (`recipes undo` brings the recipe back, image
        // and all); the one in conflict keeps its image.
        #expect(Set(second.leftoverFiles(in: "images"))
            == [try #require(gone.imageSHA256) + ".png", try #require(edited.imageSHA256) + ".png"])
    }

    @Test("a deletion here of a recipe changed on the server is a conflict, not a lost edit")
    func deletedHereChangedThere() throws {
        let (first, server, second) = try Self.twoHomes(["new \"Stew\""])
        defer { server.stop() }
        try first.edit(["ingredient add 1 1 kg beef"])
        #expect(try first.run(["sync"]).status == 0)
        try second.edit(["delete 1"])
        let sync = try second.run(["sync"])
        #expect(sync.status == 1, "\(sync)")
        #expect(sync.stdout.contains("deleted here, changed on the server"), "\(sync)")
        #expect(try server.storedRecipes().count == 1, "the server's changed recipe was deleted")
        #expect(try second.status(of: 1)?["state"] as? String == "conflict")
    }

    @Test("cron (--background) mails a new conflict once, on stderr, and stays quiet about it afterwards")
    func backgroundMailsANewConflictOnce() throws {
        let (first, server, second) = try Self.twoHomes(["new \"Risotto\""])
        defer { server.stop() }
        try first.edit(["yield 1 \"2 servings\""])
        #expect(try first.run(["sync"]).status == 0)
        try second.edit(["yield 1 \"6 servings\""])

        let found = try second.run(["sync", "--background"])
        #expect(found.stdout.isEmpty, "\(found)")
        #expect(found.stderr.contains("#1 Risotto: conflict: changed here and on the server: yield"), "\(found)")
        for _ in 1...2 {
            let later = try second.run(["sync", "--background"])
            #expect(later.stdout.isEmpty && later.stderr.isEmpty, "\(later)")
        }
        #expect(try second.status(of: 1)?["state"] as? String == "conflict")
    }

    @Test("an idle cron run whose server is gone ends quietly with 75 and writes nothing; a plain sync says why")
    func idleRunWithTheServerGone() throws {
        let (first, server, _) = try Self.twoHomes(["new \"Gazpacho\""])
        let port = try #require(URL(string: server.url)?.port)
        server.stop()
        let database = first.homeURL.appendingPathComponent("recipes.sqlite3").path
        let before = try FileManager.default.attributesOfItem(atPath: database)[.modificationDate] as? Date

        let cron = try first.run(["sync", "--background"])
        #expect(cron.status == 75 && cron.stdout.isEmpty && cron.stderr.isEmpty, "\(cron)")
        let after = try FileManager.default.attributesOfItem(atPath: database)[.modificationDate] as? Date
        #expect(before != nil && before == after, "the idle run wrote to the database")
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"), "the idle run opened the store")

        let plain = try first.run(["sync"])
        #expect(plain.status == 75, "\(plain)")
        #expect(plain.stdout.contains("pull stopped: nothing answers on 127.0.0.1:\(port) (connection refused)"), "\(plain)")
        #expect(try first.status(of: 1)?["state"] as? String == "synced")
    }

    @Test("recipes cancel stops another process's download; the pull stops before that change, and the next sync takes it")
    func cancelStopsADownload() throws {
        // The first image download stalls; later ones are served.
        let (first, server, second) = try Self.twoHomes(["new \"Curry\""], faults: ["GET /v1/images/*: stall first=1"])
        defer { server.stop() }
        try first.edit(["image set 1 \(first.image("curry.png", size: 8192, seed: 5))"])
        #expect(try first.run(["sync"]).status == 0)

        let pull = try second.start(["sync", "--pull-only"])
        let leased = try waitUntil(timeout: 60) { try second.rows().first?.leaseOwner != nil }
        try #require(leased, "the pull never leased the recipe: \(pull.stdout) \(pull.stderr)")
        pause(0.3)  // the image GET is sent and stalled by the server
        let cancel = try second.run(["cancel", "1"])
        #expect(cancel.status == 0, "\(cancel)")
        #expect(pull.wait(timeout: 60) == 75, "the pull after the cancel: \(pull.stdout) \(pull.stderr)")
        #expect(pull.stdout.contains("not pulled yet, its image did not download"), "\(pull.stdout)")
        #expect(try second.rows().first?.imageSHA256 == nil, "the change was applied without its image")
        #expect(second.leftoverFiles(in: "images").filter { $0 != ".lock" }.isEmpty)

        // The next sync pulls the change the cancelled one stopped before.
        let again = try second.run(["sync"])
        #expect(again.status == 0, "\(again)")
        let row = try #require(try second.rows().first)
        let sent = try first.rows().first?.imageSHA256
        #expect(row.state == "synced" && row.imageSHA256 == sent, "\(row)")
    }

    @Test("kill -9 during a pull, again and again, loses nothing: the next sync restores everything, no half image left")
    func killDuringPull() throws {
        let first = Client()
        let server = try first.startServer(faults: ["GET /v1/images/*: latency=40ms", "GET /v1/changes: latency=20ms"])
        defer { server.stop() }
        try first.createRecipes(12, imageSize: 64 * 1024, titlePrefix: "Dish")
        #expect(try first.run(["sync"]).status == 0)

        let second = Self.secondHome(on: server)
        var random = SplitMix64(state: 0x2026_1124)
        var killedWhileRunning = 0
        for _ in 1...4 {
            let sync = try second.start(["sync", "--jobs", "2"])
            pause(Double(random.next(in: 60...300)) / 1000)
            if sync.isRunning { killedWhileRunning += 1 }
            sync.send(SIGKILL)
            #expect(sync.wait(timeout: 60) != nil)
        }
        #expect(killedWhileRunning > 0, "no pull was still going when it was killed; the test proved nothing")
        let clean = try second.run(["sync"])
        #expect(clean.status == 0, "\(clean)")
        let restored = try second.rows()
        #expect(restored.count == 12 && restored.allSatisfy { $0.state == "synced" && $0.leaseOwner == nil }, "\(restored)")
        #expect(Set(restored.map(\.uuid)) == Set(try first.rows().map(\.uuid)))
        let images = second.leftoverFiles(in: "images")
        #expect(images.count == 12 && images.allSatisfy { !$0.hasPrefix(".tmp") }, "\(images)")
        for row in restored {
            let sha = try #require(row.imageSHA256)
            #expect(Self.sha256(ofFileAt: second.homeURL.appendingPathComponent("images/\(sha).png").path) == sha)
        }
        let integrity = try second.openDatabase().read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
        // Nothing was uploaded by the restoring home: each recipe was created once, by the first.
        #expect(server.requests().filter { $0.method == "PUT" && $0.isRecipe }.count == 12)
    }

    @Test("a recipe another process is uploading stops the pull before it (exit 75); the next sync completes both")
    func pullWaitsForAnUpload() throws {
        let (first, server, second) = try Self.twoHomes(["new \"Salad\""], faults: ["PUT /v1/images/*: latency=1500ms"])
        defer { server.stop() }
        // The first home changes the recipe on the server; the second attaches an image, whose upload is slow.
        try first.edit(["ingredient add 1 1 cucumber"])
        #expect(try first.run(["sync"]).status == 0)
        try second.edit(["image set 1 \(second.image("salad.png", size: 4096, seed: 77))"])
        let upload = try second.start(["sync", "--push-only"])
        #expect(waitUntil(timeout: 60) { server.requests().contains { $0.method == "HEAD" && $0.isImage } })

        let pull = try second.run(["sync", "--pull-only"])
        #expect(pull.status == 75, "the pull should wait for the upload of the same recipe: \(pull)")
        #expect(pull.stdout.contains("being synced by another process"), "\(pull)")
        #expect(upload.result().status != 77)

        let settle = try second.run(["sync"])
        #expect(settle.status == 0, "\(settle)")
        let recipe = try Self.show(second, 1)
        #expect(recipe["ingredients"] as? [String] == ["1 cucumber"] && recipe["image"] is [String: Any], "\(recipe)")
        let pulled = try first.run(["sync"])
        #expect(pulled.status == 0, "\(pulled)")
        #expect(try first.rows().first?.imageSHA256 == (try second.rows().first?.imageSHA256), "\(pulled)")
    }

    @Test("another server (a reset one, a new id): its feed is read from the start, then what it lacks is uploaded as new")
    func resetServer() throws {
        let client = Client()
        let old = try client.startServer(log: "old.log")
        try client.createRecipes(3, imageSize: 2048, titlePrefix: "Pie")
        #expect(try client.run(["sync"]).status == 0)
        old.stop()
        let fresh = try ServerProcess(
            data: client.folder.appendingPathComponent("fresh-server"), requestLog: client.folder.appendingPathComponent("fresh.log"))
        defer { fresh.stop() }
        client.serverURL = fresh.url

        let sync = try client.run(["sync"])
        #expect(sync.status == 0, "\(sync)")
        let stored = try fresh.storedRecipes()
        #expect(Set(stored.map(\.identifier)) == Set(try client.rows().map(\.uuid)))
        #expect(stored.allSatisfy { $0.version == 1 })
        #expect(try client.rows().allSatisfy { $0.state == "synced" && $0.serverVersion == 1 })
        #expect(Set(fresh.storedImageFiles()) == Set(try client.rows().compactMap(\.imageSHA256)))
    }
}
