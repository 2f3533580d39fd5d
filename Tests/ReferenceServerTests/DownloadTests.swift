import Foundation
import Testing
import ReferenceServer

@Suite("Downloads (images, changes pages) and the faults that disturb them")
struct DownloadTests {
    private func rules(_ specs: String...) -> (inout ReferenceServerConfiguration) throws -> Void {
        { configuration in configuration.faults = try specs.map { try FaultRule.parse($0) } }
    }

    /// Uploads `image` and returns its SHA-256.
    private static func upload(_ server: TestServer, _ image: Data) async -> String {
        let sha = Fixture.sha256(image)
        let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)", headers: ["Content-Type": "image/gif"], body: image)
        #expect(answer.status == 201)
        return sha
    }

    @Test("GET and HEAD of an image carry Content-Type, Content-Length and ETag \"<sha256>\"; GET streams the bytes; an unknown one is 404")
    func imageAnswers() async throws {
        try await withServer { (server: TestServer) async throws in
            let image = Fixture.image(700_000)
            let sha = await Self.upload(server, image)
            for method in ["GET", "HEAD"] {
                let answer = await RawHTTPClient.exchange(port: server.port, method: method, path: "/v1/images/\(sha)")
                #expect(answer.status == 200)
                #expect(answer.header("etag") == "\"\(sha)\"")
                #expect(answer.header("content-type") == "image/gif" && answer.header("content-length") == String(image.count))
                if method == "GET" { #expect(answer.body == image) }
            }
            let unknown = Fixture.sha256(Fixture.image(10, seed: 9))
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/images/\(unknown)").status == 404)
        }
    }

    @Test("truncate=SIZE sends the head and SIZE bytes of an image, then resets: the client never gets a complete answer")
    func truncatedDownload() async throws {
        try await withServer(rules("GET /v1/images/*: truncate=64KiB first=1")) { (server: TestServer) async throws in
            let image = Fixture.image(1_000_000)
            let sha = await Self.upload(server, image)
            let cut = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/images/\(sha)")
            #expect(cut == .reset || cut == .closedWithoutAnswer)
            let whole = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/images/\(sha)")
            #expect(whole.status == 200 && whole.body == image)
            let faults = try await server.logEntries(atLeast: 3).compactMap { $0["fault"] as? String }
            #expect(faults == ["truncate=65536"])
        }
    }

    @Test("throttle=SIZE sends a download at that rate: 30,000 bytes at 100 KB/s take at least 0.25 s and arrive whole")
    func throttledDownload() async throws {
        try await withServer(rules("GET /v1/images/*: throttle=100KB")) { (server: TestServer) async throws in
            let image = Fixture.image(30_000)
            let sha = await Self.upload(server, image)
            let clock = ContinuousClock()
            let start = clock.now
            let answer = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/images/\(sha)")
            #expect(clock.now - start >= .milliseconds(250))
            #expect(answer.status == 200 && answer.body == image)
        }
    }

    @Test("a changes page can be stalled, reset, refused with a status, cut short or slowed by --fault")
    func faultsOnChanges() async throws {
        try await withServer(rules("GET /v1/changes: stall first=1", "GET /v1/changes: reset first=2",
                                   "GET /v1/changes: status=503 retry-after=1 first=3", "GET /v1/changes: truncate=10 first=4",
                                   "GET /v1/changes: throttle=1KB")) { (server: TestServer) async throws in
            let id = UUID().uuidString
            await ChangesFeedTests.put(server, id, version: 1, status: 201)
            let path = "/v1/changes?since=0"
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: path, readTimeout: 0.5) == .timedOut)
            let reset = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
            #expect(reset == .reset || reset == .closedWithoutAnswer)
            let refused = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
            #expect(refused.status == 503 && refused.header("retry-after") == "1")
            let cut = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
            #expect(cut == .reset || cut == .closedWithoutAnswer)
            let slow = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
            #expect(ChangesFeedTests.entries(slow).map(\.1) == [id])
        }
    }
}
