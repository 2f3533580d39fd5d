import Foundation
import HTTPTestSupport
import Locking
import Testing
import Transport

/// A sink that counts and fingerprints what it receives, refusing after `limit` bytes when given one.
final class CountingSink: ResponseBodySink, Sendable {
    private let state = Locked<(count: Int, digest: FNV1a, chunks: Int)>((0, FNV1a(), 0))
    private let limit: Int?

    init(limit: Int? = nil) { self.limit = limit }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            state.count += bytes.count
            state.digest.add(bytes)
            state.chunks += 1
            return limit.map { state.count <= $0 } ?? true
        }
    }

    var count: Int { state.withLock { $0.count } }
    var digest: UInt64 { state.withLock { $0.digest.value } }
    var chunks: Int { state.withLock { $0.chunks } }
}

@Suite("Streaming a successful answer's body to a sink: nothing kept in memory, an error answer kept as usual")
struct StreamingAnswerTests {
    static let body = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    @Test("a 200 body of 3 MiB reaches the sink whole and in order; the answer carries no body")
    func streamsSuccess() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, headers: ["Content-Type": "image/png"], body: Self.body) }
        defer { server.stop() }
        let sink = CountingSink()
        let response = try await TestSupport.client().send(
            HTTPRequest(method: .get, url: server.baseURL + "/v1/images/x"), streamingSuccessTo: sink)
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.header("content-type") == "image/png")
        #expect(sink.count == Self.body.count)
        var expected = FNV1a()
        Self.body.withUnsafeBytes { expected.add($0) }
        #expect(sink.digest == expected.value)
        #expect(sink.chunks > 1, "it arrived in pieces, not gathered first")
    }

    @Test("a 404 answer's body is kept in memory; the sink hears nothing")
    func errorBodyKept() async throws {
        let server = try LoopbackHTTPServer { _ in
            .respond(status: 404, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"not_found"}"#.utf8))
        }
        defer { server.stop() }
        let sink = CountingSink()
        let response = try await TestSupport.client().send(
            HTTPRequest(method: .get, url: server.baseURL + "/v1/images/x"), streamingSuccessTo: sink)
        #expect(response.status == 404)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"not_found"}"#)
        #expect(sink.count == 0)
    }

    @Test("a sink that refuses stops the transfer: bodyRefused, with no more bytes after the refusal")
    func sinkRefuses() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: Self.body) }
        defer { server.stop() }
        let sink = CountingSink(limit: 100_000)
        let error = await #expect(throws: TransportError.self) {
            _ = try await TestSupport.client().send(
                HTTPRequest(method: .get, url: server.baseURL + "/v1/images/x"), streamingSuccessTo: sink)
        }
        #expect(error?.kind == .bodyRefused)
        #expect(sink.count < Self.body.count)
    }
}
