import Foundation
import HTTPTestSupport
import Testing
import Transport

@Suite("Cancellation aborts transfers at once, even when the server is silent")
struct CancellationTests {
    @Test("Cancelling a request whose server never answers throws .cancelled, not a low-speed timeout (latency printed; bench/32 measures the 100 ms target)")
    func stalledResponse() async throws {
        let server = try LoopbackHTTPServer { _ in .stallAfterBody }
        defer { server.stop() }
        let client = try TestSupport.client()
        let task = Task { try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/v1/health")) }
        #expect(await server.wait { $0.received.count == 1 })
        try await Task.sleep(for: .milliseconds(50)) // the transfer is now idle inside curl_multi_poll
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        let latency = ContinuousClock.now - start
        print("cancel latency (stalled response): \(latency)")
        #expect(latency < TestSupport.lowSpeedTime / 2, "ended by the cancellation, not by the low-speed limit")
        #expect(result.failureKind == .cancelled, "\(result)")
        #expect(await server.wait { $0.connectionCount == 1 && $0.heads.count == 1 })
    }

    @Test("Cancelling a file upload the server stopped reading throws .cancelled, not a low-speed timeout (latency printed)")
    func stalledUpload() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try TestSupport.makeFile(size: 16 << 20, in: directory)
        let server = try LoopbackHTTPServer { _ in .stallBeforeBody }
        defer { server.stop() }
        let client = try TestSupport.client()
        let task = Task {
            try await client.send(HTTPRequest(method: .put, url: server.baseURL + "/v1/images/x",
                                              body: .file(path: file.path, contentType: "image/jpeg")))
        }
        #expect(await server.wait { $0.heads.count == 1 })
        try await Task.sleep(for: .milliseconds(100)) // socket buffers fill, the upload stalls
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        let latency = ContinuousClock.now - start
        print("cancel latency (stalled upload): \(latency)")
        #expect(latency < TestSupport.lowSpeedTime / 2, "ended by the cancellation, not by the low-speed limit")
        #expect(result.failureKind == .cancelled, "\(result)")
    }

    @Test("A request sent from an already-cancelled task never reaches the server")
    func cancelledBeforeStart() async throws {
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        let client = try TestSupport.client()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/"))
        }
        let result = await task.result
        #expect(result.failureKind == .cancelled, "\(result)")
        #expect(server.connectionCount == 0)
    }

    @Test("Cancelling one queued request leaves the others running and the client usable")
    func cancelOneOfMany() async throws {
        let server = try LoopbackHTTPServer { head in head.path == "/stall" ? .stallAfterBody : .respond(status: 200) }
        defer { server.stop() }
        let client = try TestSupport.client(maxConcurrentTransfers: 1)
        let stalled = Task { try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/stall")) }
        #expect(await server.wait { $0.heads.count == 1 })
        let queued = Task { try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/queued")) }
        try await Task.sleep(for: .milliseconds(50))
        queued.cancel()
        #expect((await queued.result).failureKind == .cancelled)
        stalled.cancel()
        #expect((await stalled.result).failureKind == .cancelled)
        let after = try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/after"))
        #expect(after.status == 200)
        #expect(!server.heads.contains { $0.path == "/queued" })
    }
}

extension Result where Failure == any Error {
    /// The kind of the transport failure, or nil on success or for a foreign error.
    var failureKind: TransportError.Kind? {
        if case .failure(let error) = self { return (error as? TransportError)?.kind }
        return nil
    }
}
