import Foundation
import Testing
import ReferenceServer

@Suite("Fault injection over a real socket")
struct FaultInjectionTests {
    private func rules(_ specs: String...) -> (inout ReferenceServerConfiguration) throws -> Void {
        { configuration in configuration.faults = try specs.map { try FaultRule.parse($0) } }
    }

    @Test("status=503 retry-after=2 first=2 answers 503 with Retry-After twice, then the real answer")
    func statusFirstN() async throws {
        try await withServer(rules("GET /v1/health: status=503 retry-after=2 first=2")) { (server: TestServer) async throws in
            for _ in 0..<2 {
                let answer = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health")
                #expect(answer.status == 503)
                #expect(answer.header("retry-after") == "2")
                #expect(answer.json["error"] as? String == "injected-fault")
            }
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health").status == 200)
            let entries = try server.logEntries()
            #expect(entries.map { $0["fault"] as? String } == ["status=503", "status=503", nil])
        }
    }

    @Test("retry-after-date sends an HTTP date in the future")
    func retryAfterDate() async throws {
        try await withServer(rules("*: status=429 retry-after-date=120")) { (server: TestServer) async throws in
            let answer = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health")
            #expect(answer.status == 429)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let date = try #require(formatter.date(from: answer.header("retry-after") ?? ""))
            #expect(date.timeIntervalSinceNow > 60 && date.timeIntervalSinceNow <= 121)
        }
    }

    @Test("reset after=SIZE resets the connection mid-body and stores nothing")
    func resetMidBody() async throws {
        try await withServer(rules("PUT /v1/images/*: reset after=16KiB")) { (server: TestServer) async throws in
            let image = Fixture.image(1_000_000)
            let sha = Fixture.sha256(image)
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                      headers: ["Content-Type": "image/png"], body: image)
            #expect(answer == .reset || answer == .closedWithoutAnswer)
            #expect(try server.storedImages().isEmpty)
            let entry = try #require(try await server.logEntries(atLeast: 1).first)
            #expect(entry["fault"] as? String == "reset after=16384")
            #expect(entry["status"] is NSNull)
            #expect(entry["bodyComplete"] as? Bool == false)
        }
    }

    @Test("lost-ack commits the recipe, then closes the connection without answering")
    func lostAcknowledgement() async throws {
        try await withServer(rules("PUT /v1/recipes/*: lost-ack first=1")) { (server: TestServer) async throws in
            let id = UUID().uuidString
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)",
                                                      headers: Fixture.asNew, body: Fixture.recipe(id, version: 1))
            #expect(answer == .closedWithoutAnswer || answer == .reset)
            let stored = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(id)")
            #expect(stored.status == 200 && stored.body == Fixture.recipe(id, version: 1))
            let retry = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)",
                                                     headers: Fixture.asNew, body: Fixture.recipe(id, version: 1))
            #expect(retry.status == 200)
            #expect(retry.header("etag") == "\"1\"")
        }
    }

    @Test("lost-ack only drops the answer of a committed request: a 412 or 422 is answered and logged without the fault")
    func lostAcknowledgementOnlyWhenCommitted() async throws {
        try await withServer(rules("PUT /v1/recipes/*: lost-ack")) { (server: TestServer) async throws in
            let id = UUID().uuidString
            let first = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)",
                                                     headers: Fixture.asNew, body: Fixture.recipe(id, version: 1))
            #expect(first == .closedWithoutAnswer || first == .reset)
            let stale = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)",
                                                     headers: Fixture.asNew, body: Fixture.recipe(id, version: 1, name: "Other soup"))
            #expect(stale.status == 412)
            #expect(stale.json["version"] as? Int == 1)
            let invalid = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)",
                                                       headers: Fixture.basedOn(1), body: Fixture.recipe(UUID().uuidString, version: 2))
            #expect(invalid.status == 422)
            // The lost-ack line may be written after the next request's line: match lines by status, not order.
            let entries = try await server.logEntries(atLeast: 3)
            let faultByStatus = Dictionary(entries.map { ($0["status"] as? Int ?? 0, $0["fault"] as? String ?? "none") },
                                           uniquingKeysWith: { first, _ in first })
            #expect(faultByStatus == [0: "lost-ack", 412: "none", 422: "none"])
        }
    }

    @Test("status=204 and status=304 are sent without a body")
    func bodylessStatus() async throws {
        try await withServer(rules("GET /v1/health: status=204 first=1", "GET /v1/recipes: status=304 first=1")) { (server: TestServer) async throws in
            for (path, status) in [("/v1/health", 204), ("/v1/recipes", 304)] {
                let answer = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
                #expect(answer.status == status)
                #expect(answer.header("content-length") ?? "0" == "0")
                #expect(answer.header("content-type") == nil)
            }
            // The connection framing held: the next requests are answered normally.
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health").status == 200)
        }
    }

    @Test("stall reads the body and never answers while the connection stays open")
    func stall() async throws {
        try await withServer(rules("PUT /v1/recipes/*: stall")) { (server: TestServer) async throws in
            let id = UUID().uuidString
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)",
                                                      headers: Fixture.asNew, body: Fixture.recipe(id, version: 1),
                                                      readTimeout: 0.5)
            #expect(answer == .timedOut)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(id)").status == 404)
        }
    }

    @Test("latency=300ms delays the answer by at least 300 ms, then answers normally")
    func latency() async throws {
        try await withServer(rules("GET /v1/health: latency=300ms")) { (server: TestServer) async throws in
            let clock = ContinuousClock()
            let start = clock.now
            let answer = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health")
            #expect(clock.now - start >= .milliseconds(300))
            #expect(answer.status == 200)
        }
    }
}
