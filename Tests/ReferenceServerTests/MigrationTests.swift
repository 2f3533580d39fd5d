import Foundation
import GRDB
import Testing
@testable import ReferenceServer

@Suite("A data directory written before two-way sync")
struct MigrationTests {
    @Test("recipes stored by the earlier server keep their versions, get feed rows in the order they were written, and take conditional writes")
    func earlierDataDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-migration-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (older, newer) = (UUID().uuidString, UUID().uuidString)
        do {
            // The earlier server's database: schema v1 only, two recipes as it stored them (versions chosen by clients).
            let pool = try DatabasePool(path: directory + "/server.sqlite3")
            try ServerSchema.migrator.migrate(pool, upTo: "v1")
            try await pool.write { db in
                for (id, version, updatedAt) in [(newer, 7, "2026-11-20T10:00:00Z"), (older, 3, "2026-11-19T10:00:00Z")] {
                    try db.execute(sql: """
                        INSERT INTO recipe (key, identifier, version, name, dateModified, document, updatedAt) VALUES (?, ?, ?, 'Soup', NULL, ?, ?)
                        """, arguments: [id.lowercased(), id, version, Fixture.recipe(id, version: version), updatedAt])
                }
            }
        }
        try await withServer({ $0.dataDirectory = directory }) { (server: TestServer) async throws in
            let page = await ChangesFeedTests.get(server, "/v1/changes")
            #expect(ChangesFeedTests.entries(page).map(\.1) == [older, newer])
            #expect(ChangesFeedTests.entries(page).map(\.2) == [3, 7])
            let documents = page.json["changes"] as? [[String: Any]] ?? []
            #expect(documents.map { ($0["recipe"] as? [String: Any])?["version"] as? Int } == [3, 7])
            let get = await ChangesFeedTests.get(server, "/v1/recipes/\(newer)")
            #expect(get.status == 200 && get.header("etag") == "\"7\"")
            await ChangesFeedTests.put(server, newer, version: 8, status: 200)
            #expect(ChangesFeedTests.entries(await ChangesFeedTests.get(server, "/v1/changes?since=2")).map(\.0) == [3])
            #expect(UUID(uuidString: await ChangesFeedTests.get(server, "/v1/health").json["server"] as? String ?? "") != nil)
        }
    }
}
