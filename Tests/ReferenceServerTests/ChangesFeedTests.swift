import Foundation
import Testing
import ReferenceServer

@Suite("The changes feed, the recipe list and the server id over a real socket")
struct ChangesFeedTests {
    /// PUTs a recipe (new, or based on `base`) and expects `status`.
    static func put(_ server: TestServer, _ id: String, version: Int, name: String = "Soup", status: Int,
                    sourceLocation: SourceLocation = #_sourceLocation) async {
        let headers = version == 1 ? Fixture.asNew : Fixture.basedOn(version - 1)
        let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)", headers: headers,
                                                  body: Fixture.recipe(id, version: version, name: name))
        #expect(answer.status == status, sourceLocation: sourceLocation)
    }

    /// GET of a path, parsed as a JSON object.
    static func get(_ server: TestServer, _ path: String) async -> RawOutcome {
        await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
    }

    /// The changes of a page as (seq, uuid, version, deleted).
    static func entries(_ page: RawOutcome) -> [(Int, String, Int, Bool)] {
        (page.json["changes"] as? [[String: Any]] ?? []).map {
            ($0["seq"] as? Int ?? -1, $0["uuid"] as? String ?? "", $0["version"] as? Int ?? -1, $0["deleted"] as? Bool ?? false)
        }
    }

    @Test("every write gets the next sequence number; a superseded change is left out; numbers are never reused, also after a restart")
    func sequenceNumbers() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-feed-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (a, b, c) = (UUID().uuidString, UUID().uuidString, UUID().uuidString)
        try await withServer({ $0.dataDirectory = directory }) { (server: TestServer) async throws in
            await Self.put(server, a, version: 1, status: 201)   // seq 1
            await Self.put(server, b, version: 1, status: 201)   // seq 2
            await Self.put(server, b, version: 2, status: 200)   // seq 3 (not 2 again: the row of seq 2 is gone)
            let deleted = await RawHTTPClient.exchange(port: server.port, method: "DELETE", path: "/v1/recipes/\(a)", headers: ["If-Match": "\"1\""])
            #expect(deleted.status == 204)                        // seq 4
            let page = await Self.get(server, "/v1/changes")
            #expect(page.status == 200)
            let changes = Self.entries(page)
            #expect(changes.map(\.0) == [3, 4])
            #expect(changes.map(\.1) == [b, a] && changes.map(\.2) == [2, 2] && changes.map(\.3) == [false, true])
            #expect(page.json["next"] as? Int == 4 && page.json["more"] as? Bool == false)
            let documents = try #require(page.json["changes"] as? [[String: Any]])
            try #require(documents.count == 2)
            #expect((documents[0]["recipe"] as? [String: Any])?["name"] as? String == "Soup")
            #expect(documents[1]["recipe"] == nil)
        }
        try await withServer({ $0.dataDirectory = directory }) { (server: TestServer) async throws in
            await Self.put(server, c, version: 1, status: 201)
            #expect(Self.entries(await Self.get(server, "/v1/changes?since=4")).map(\.0) == [5])
        }
    }

    @Test("pages hold at most limit changes in order, say whether more follow, and next continues where the last ended")
    func pages() async throws {
        try await withServer { (server: TestServer) async throws in
            let ids = (0..<5).map { _ in UUID().uuidString }
            for id in ids { await Self.put(server, id, version: 1, status: 201) }
            var since = 0
            var seen: [String] = []
            var pages = 0
            while pages < 10 {
                let page = await Self.get(server, "/v1/changes?since=\(since)&limit=2")
                pages += 1
                seen += Self.entries(page).map(\.1)
                since = page.json["next"] as? Int ?? -1
                guard page.json["more"] as? Bool == true else { break }
            }
            #expect(seen == ids && pages == 3 && since == 5)
            let empty = await Self.get(server, "/v1/changes?since=5")
            #expect(Self.entries(empty).isEmpty && empty.json["next"] as? Int == 5 && empty.json["more"] as? Bool == false)
        }
    }

    @Test("GET /v1/recipes lists live recipes in uuid order a page at a time; a deleted one is left out; the last page's next is null")
    func list() async throws {
        try await withServer { (server: TestServer) async throws in
            let ids = (0..<5).map { _ in UUID().uuidString }
            for id in ids { await Self.put(server, id, version: 1, status: 201) }
            let deleted = ids[2]
            #expect(await RawHTTPClient.exchange(port: server.port, method: "DELETE", path: "/v1/recipes/\(deleted)", headers: ["If-Match": "\"1\""]).status == 204)
            var after: String?
            var listed: [String] = []
            for _ in 0..<5 {
                let page = await Self.get(server, "/v1/recipes?limit=2" + (after.map { "&after=\($0)" } ?? ""))
                listed += (page.json["recipes"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
                after = page.json["next"] as? String
                if after == nil { #expect(page.json["next"] is NSNull); break }
            }
            #expect(listed == ids.filter { $0 != deleted }.sorted { $0.lowercased() < $1.lowercased() })
        }
    }

    @Test("a long poll with no change answers an empty page once wait has passed")
    func longPollTimesOut() async throws {
        try await withServer { (server: TestServer) async throws in
            let clock = ContinuousClock()
            let start = clock.now
            let page = await Self.get(server, "/v1/changes?since=0&wait=0.4")
            #expect(clock.now - start >= .milliseconds(400))
            #expect(page.status == 200 && Self.entries(page).isEmpty && page.json["next"] as? Int == 0)
        }
    }

    @Test("a long poll is answered as soon as a change is committed, with that change")
    func longPollWakes() async throws {
        try await withServer { (server: TestServer) async throws in
            let port = server.port
            let poll: Task<RawOutcome, Never> = Task { await RawHTTPClient.exchange(port: port, method: "GET", path: "/v1/changes?since=0&wait=60", readTimeout: 90) }
            try await Task.sleep(for: .milliseconds(300))
            let id = UUID().uuidString
            await Self.put(server, id, version: 1, status: 201)
            #expect(await TimeoutTests.finishes(poll, within: .seconds(30)), "the poll was not woken by the write (its wait is 60 s)")
            #expect(Self.entries(await poll.value).map(\.1) == [id])
        }
    }

    @Test("a long poll in progress is answered (empty) when the server stops, well before its wait")
    func longPollEndsOnStop() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-feed-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let running = try await startQuietly(.init(dataDirectory: directory, port: 0, synchronousImageWrites: false))
        let port = running.port
        let poll: Task<RawOutcome, Never> = Task { await RawHTTPClient.exchange(port: port, method: "GET", path: "/v1/changes?wait=60", readTimeout: 90) }
        try await Task.sleep(for: .milliseconds(300))
        let stopped: Task<Void, Never> = Task { await running.stop() }
        #expect(await TimeoutTests.finishes(stopped, within: .seconds(30)), "stop() waited for the long poll (its wait is 60 s)")
        let answer = await poll.value
        #expect(answer.status == 200 && Self.entries(answer).isEmpty)
    }

    @Test("bad since, limit, wait or after are 400 with a message", arguments: [
        "/v1/changes?since=-1", "/v1/changes?since=abc", "/v1/changes?limit=0", "/v1/changes?wait=soon", "/v1/recipes?after=nope", "/v1/recipes?limit=x",
    ])
    func badQuery(path: String) async throws {
        try await withServer { (server: TestServer) async throws in
            let answer = await Self.get(server, path)
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "bad-request" && answer.json["message"] is String)
        }
    }

    @Test("the server id is made once per data directory: the same after a restart, another for another directory, and on every changes page")
    func serverID() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-feed-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var ids: [String] = []
        for _ in 0..<2 {
            try await withServer({ $0.dataDirectory = directory }) { (server: TestServer) async throws in
                let id = try #require(await Self.get(server, "/v1/health").json["server"] as? String)
                #expect(await Self.get(server, "/v1/changes").json["server"] as? String == id)
                ids.append(id)
            }
        }
        try await withServer { (server: TestServer) async throws in
            ids.append(try #require(await Self.get(server, "/v1/health").json["server"] as? String))
        }
        #expect(ids[0] == ids[1] && ids[1] != ids[2])
    }
}
