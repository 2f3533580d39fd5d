import Foundation
import HTTPTestSupport
import Testing
import Transport

@Suite("Hostile answers: a trickle is no progress, a slow upload still is, an unreadable answer says what the server did")
struct HostileAnswerTests {
    /// A client whose low-speed window is short, so that a test about it takes seconds.
    private func client(lowSpeedTime: Duration = .seconds(2)) throws -> HTTPClient {
        try TestSupport.client(lowSpeedTime: lowSpeedTime)
    }

    private func failure(_ client: HTTPClient, _ request: HTTPRequest) async throws -> TransportError {
        do {
            let response = try await client.send(request)
            Issue.record("expected a failure, got HTTP \(response.status)")
            throw CancellationError()
        } catch let error as TransportError {
            return error
        }
    }

    @Test("an answer that trickles in faster than the low-speed limit ends at its deadline, as a transient timeout")
    func trickleEndsAtDeadline() async throws {
        // 300 bytes a second passes any low-speed limit; a million of them would take an hour.
        let server = try LoopbackHTTPServer { _ in .trickle(status: 201, declaredLength: 1_000_000, bytesPerSecond: 300) }
        defer { server.stop() }
        let client = try client(lowSpeedTime: .seconds(30))
        let request = HTTPRequest(
            method: .put, url: server.baseURL + "/v1/recipes/x", body: .data(Data("{}".utf8), contentType: "application/json"),
            answerDeadline: .seconds(1))
        let error = try await failure(client, request)
        #expect(error.kind == .timeout)
        #expect(error.message.contains("did not finish within 1 s"), "\(error.message)")
        #expect(error.message.contains("a trickle is not progress"))
        // Ended by the deadline, about a second in: a few hundred of the million bytes had come (the low-speed limit
        // would never end it at this rate). Counted by the transfer's own thread, so a busy machine does not skew it.
        let arrived = error.message.split(separator: "(").last.flatMap { Int($0.prefix { $0.isNumber }) }
        #expect((arrived ?? .max) < 10_000, "\(error.message)")
        guard case .transient = TransferOutcome.classify(.failure(error), now: Date()) else {
            Issue.record("a trickle is retried like any timeout")
            return
        }
    }

    @Test("a trickle of a few bytes a second is below the low-speed limit: the transfer ends, also without a deadline")
    func trickleBelowLowSpeedLimit() async throws {
        let server = try LoopbackHTTPServer { _ in .trickle(status: 200, declaredLength: 1_000_000, bytesPerSecond: 3) }
        defer { server.stop() }
        let client = try client(lowSpeedTime: .seconds(2))
        let error = try await failure(client, HTTPRequest(method: .get, url: server.baseURL + "/slow"))
        #expect(error.kind == .timeout)
        #expect(error.message.contains("Less than 256 bytes/sec"), "ended by the low-speed limit: \(error.message)")
    }

    @Test("an upload that takes longer than the answer deadline on a slow link still succeeds: the deadline counts from the answer")
    func slowUploadSucceeds() async throws {
        let body = Data((0..<(96 << 10)).map { UInt8(truncatingIfNeeded: $0) })
        let server = try LoopbackHTTPServer { _ in
            .respondAfterSlowBody(
                bytesPerSecond: 32 << 10, status: 201, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
        }
        defer { server.stop() }
        let client = try client(lowSpeedTime: .seconds(2))
        let started = ContinuousClock.now
        let response = try await client.send(HTTPRequest(
            method: .put, url: server.baseURL + "/v1/images/x", body: .data(body, contentType: "image/png"),
            answerDeadline: .milliseconds(500)))
        #expect(response.status == 201)
        #expect(server.received.first?.bodyCount == Int64(body.count))
        // The body really took longer than the deadline to go through.
        #expect(ContinuousClock.now - started > .milliseconds(500))
    }

    @Test("a header line of a mebibyte is reported as an unreadable answer from the server, not as 'out of memory'")
    func oversizedHeader() async throws {
        let answer = Data("HTTP/1.1 200 OK\r\nX-Big: ".utf8) + Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
            + Data("\r\nContent-Length: 0\r\n\r\n".utf8)
        let server = try LoopbackHTTPServer { _ in .raw(answer) }
        defer { server.stop() }
        let error = try await failure(try client(), HTTPRequest(method: .head, url: server.baseURL + "/v1/images/x"))
        #expect(error.kind == .malformedAnswer)
        #expect(!error.message.lowercased().contains("out of memory"), "\(error.message)")
        #expect(error.message.contains("header line or header section over libcurl's limit"))
        guard case .transient = TransferOutcome.classify(.failure(error), now: Date()) else {
            Issue.record("an unreadable answer is transient")
            return
        }
    }
}
