import Foundation
import Testing
import ReferenceServer

@Suite("Request log")
struct RequestLogTests {
    @Test("each request appends one JSON line with times, method, path, status, bytes and completeness, readable while running")
    func lines() async throws {
        try await withServer { (server: TestServer) async throws in
            let image = Fixture.image(12_345)
            let sha = Fixture.sha256(image)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                 headers: ["Content-Type": "image/png"], body: image).status == 201)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health").status == 200)
            let entries = try server.logEntries()
            try #require(entries.count == 2, "\(entries)")
            let (put, health) = (entries[0], entries[1])
            #expect(put["method"] as? String == "PUT")
            #expect(put["path"] as? String == "/v1/images/\(sha)")
            #expect(put["status"] as? Int == 201)
            #expect(put["bytesReceived"] as? Int == 12_345)
            #expect(put["bodyComplete"] as? Bool == true)
            let start = try #require(put["start"] as? String)
            let end = try #require(put["end"] as? String)
            let parse = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            #expect(try parse.parse(start) <= parse.parse(end))
            #expect(health["path"] as? String == "/v1/health" && health["bytesReceived"] as? Int == 0)
        }
    }
}
