import Foundation
import Testing
import ReferenceServer

@Suite("Unexpected storage errors")
struct StorageErrorTests {
    @Test("a database error is a 500 with the contract's {\"error\":\"storage\"} body naming no internals, logged with status 500")
    func databaseError() async throws {
        try await withServer { (server: TestServer) async throws in
            // The server has not read yet, so its first read opens a new connection: make that open fail.
            let database = server.dataDirectory + "/server.sqlite3"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: false)
            let answer = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes")
            #expect(answer.status == 500)
            #expect(answer.json["error"] as? String == "storage")
            let message = try #require(answer.json["message"] as? String)
            #expect(message.contains("try again later"))
            #expect(!message.contains(server.dataDirectory) && !message.lowercased().contains("sqlite"))
            let entry = try #require(try await server.logEntries(atLeast: 1).first)
            #expect(entry["status"] as? Int == 500)
        }
    }
}
