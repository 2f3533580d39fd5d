import Foundation
import HTTPTestSupport
import RecipesTestSupport
import Testing

@Suite("A hostile network, with the real binaries: a captive portal and an absurd Retry-After lose nothing", .serialized)
struct HostileNetworkTests {
    @Test("recipes sync behind a captive portal exits 75, says so, keeps every recipe due and its image copy; the real server gets them later")
    func captivePortal() throws {
        let portal = try LoopbackHTTPServer { _ in
            .respond(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>Please log in</html>".utf8))
        }
        defer { portal.stop() }
        let client = Client(serverURL: portal.baseURL)
        try client.createRecipes(2, imageSize: 4096)
        let media = client.leftoverFiles(in: "media")
        #expect(media.count == 2)

        // --max-wait 0: the first retry is left for a later run (with the default, the run would retry for up to 30 s).
        let result = try client.run(["sync", "--max-wait", "0"])
        #expect(result.status == 75, "\(result)")
        #expect(result.stdout.contains("captive portal or a proxy"), "\(result)")
        #expect(result.stdout.contains("nothing was marked synced"))
        #expect(!result.stdout.contains("done"), "\(result)")
        for entry in try client.status() {
            // Due for the next run, never synced; a portal's page is not the server answering: no attempt counted,
            // so a portal that stays cannot use up the attempts and fail the recipe for good.
            #expect(entry["state"] as? String == "pending", "\(entry)")
            #expect(entry["syncedRevision"] as? Int == 0, "\(entry)")
            #expect(entry["attempts"] as? Int == 0, "\(entry)")
            #expect((entry["lastError"] as? String)?.contains("HTML page") == true, "\(entry)")
        }
        #expect(client.leftoverFiles(in: "media") == media, "the image copies stay until the real server has them")

        // The next sync still knows the recipes are due (waiting for their retry, or trying again), not "nothing to
        // upload".
        let again = try client.run(["sync", "--max-wait", "0"])
        #expect(again.status == 75, "\(again)")
        #expect(!again.stdout.contains("nothing to do"), "\(again)")

        let server = try client.startServer()
        defer { server.stop() }
        let synced = try client.run(["sync", "1", "2"])
        #expect(synced.status == 0, "\(synced)")
        #expect(try server.storedRecipes().count == 2)
        #expect(server.storedImageFiles().count == 2)
        #expect(client.leftoverFiles(in: "media").isEmpty)
    }

    @Test("one 503 with Retry-After: 999999999 parks a recipe for 24 h at most; status says so in valid ISO 8601")
    func retryAfterCapped() throws {
        let client = Client()
        let server = try client.startServer(faults: ["PUT /v1/recipes/*: status=503 retry-after=999999999 first=1"])
        defer { server.stop() }
        try client.edit(["new Soup"])
        let before = Date()
        let result = try client.run(["sync"])
        #expect(result.status == 75, "\(result)")
        let entry = try #require(try client.status(of: 1))
        #expect(entry["state"] as? String == "waiting")
        let text = try #require(entry["nextAttemptAt"] as? String)
        let next = try #require(ISO8601DateFormatter().date(from: text), "not ISO 8601: \(text)")
        #expect(abs(next.timeIntervalSince(before) - 86_400) < 120, "\(text)")
        #expect((entry["lastError"] as? String)?.contains("recipes waits 24 h at most") == true, "\(entry)")
        let human = try client.run(["status"])
        #expect(human.stdout.contains("24 h"), "\(human)")
    }
}
