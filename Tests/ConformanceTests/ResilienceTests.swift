import Foundation
import ReferenceServer
import Testing
import Transport

/// The transient rows of section 3 (status codes with Retry-After, lost acknowledgements, unreachable servers),
/// produced by recipes-server --fault and classified through the real transport.
@Suite("Transient outcomes through faults")
struct ResilienceTests {
    @Test("408, 429, 500, 502, 503, 504 are transient and Retry-After in seconds sets the earliest retry", arguments: [408, 429, 500, 502, 503, 504])
    func transientStatuses(status: Int) async throws {
        try await withConformanceServer(faults: ["GET /v1/health: status=\(status) retry-after=3 first=1"]) { (server: ConformanceServer) async throws in
            let outcome = await server.outcome(.get, "/v1/health")
            guard case .transient(let reason, let retryAfter) = outcome else { Issue.record("got \(outcome)"); return }
            #expect(retryAfter == .seconds(3))
            #expect(reason.contains("\(status)"))
            #expect(await server.outcome(.get, "/v1/health") == .success(status: 200))
        }
    }

    @Test("Retry-After as an HTTP date is honoured")
    func retryAfterDate() async throws {
        try await withConformanceServer(faults: ["*: status=503 retry-after-date=60"]) { (server: ConformanceServer) async throws in
            let outcome = await server.outcome(.get, "/v1/health")
            guard case .transient(_, let retryAfter?) = outcome else { Issue.record("got \(outcome)"); return }
            #expect(retryAfter > .seconds(55) && retryAfter <= .seconds(61))
        }
    }

    @Test("a lost acknowledgement is transient, the recipe was committed, and the retry of the same write (same precondition, version and document) gets 200")
    func lostAcknowledgement() async throws {
        try await withConformanceServer(faults: ["PUT /v1/recipes/*: lost-ack first=1"]) { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            let body = Sample.json(Sample.recipe(id, version: 1))
            guard case .transient = await server.outcome(.put, "/v1/recipes/\(id)", headers: Sample.precondition(nil), body: body) else {
                Issue.record("a dropped answer is not transient"); return
            }
            #expect(try await server.send(.get, "/v1/recipes/\(id)").status == 200)
            #expect(await server.outcome(.put, "/v1/recipes/\(id)", headers: Sample.precondition(nil), body: body) == .success(status: 200))
        }
    }

    @Test("cancelling a transfer the server stalls returns .cancelled, ended by the cancellation and not by the low-speed limit")
    func stalledCancel() async throws {
        try await withConformanceServer(faults: ["PUT /v1/recipes/*: stall"]) { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            let client = server.client
            let url = server.url("/v1/recipes/\(id)")
            let task = Task { () -> TransferOutcome in
                do throws(TransportError) {
                    let response = try await client.send(HTTPRequest(method: .put, url: url, headers: Sample.precondition(nil),
                                                                     body: Sample.json(Sample.recipe(id, version: 1))))
                    return TransferOutcome.classify(.success(response), now: Date())
                } catch { return TransferOutcome.classify(.failure(error), now: Date()) }
            }
            try await Task.sleep(for: .milliseconds(300))
            let clock = ContinuousClock()
            let start = clock.now
            task.cancel()
            #expect(await task.value == .cancelled)
            // Half of the client's low-speed limit leaves a busy machine room and still tells the two apart (the latency
            // itself is measured by bench/32 and bench/53, not asserted here).
            #expect(clock.now - start < conformanceLowSpeedTime / 2, "ended by the cancellation, not by the low-speed limit")
        }
    }

    @Test("a stopped server is a transient failure (unreachable is the reachability probe's verdict, not the transfer's)")
    func unreachable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-conformance-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let running = try await ReferenceServer(configuration: .init(dataDirectory: directory, port: 0, synchronousImageWrites: false), logger: quietLogger).start()
        let url = running.baseURL + "/v1/health"
        await running.stop()
        let client = try HTTPClient(configuration: .init(connectTimeout: .seconds(2)))
        let result: Result<HTTPResponse, TransportError>
        do { result = .success(try await client.send(HTTPRequest(method: .get, url: url))) } catch { result = .failure(error) }
        guard case .transient = TransferOutcome.classify(result, now: Date()) else { Issue.record("got \(result)"); return }
    }
}
