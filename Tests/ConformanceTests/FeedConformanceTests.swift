import Foundation
import ReferenceServer
import Testing
import Transport

/// The read rows of docs/http-api.md (the paged list, the changes feed) and concurrent conditional writes,
/// through the real transport.
@Suite("Recipe list, changes feed and concurrent writers (section 3)")
struct FeedConformanceTests {
    @Test("GET /v1/recipes?after=&limit= pages through live recipes in uuid order with {identifier, version, name, dateModified} and next")
    func list() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let ids = (0..<3).map { _ in UUID().uuidString }
            for id in ids { #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1)).status == 201) }
            let sorted = ids.sorted { $0.lowercased() < $1.lowercased() }
            let first = Sample.object(try await server.send(.get, "/v1/recipes?limit=2"))
            let items = try #require(first["recipes"] as? [[String: Any]])
            #expect(items.compactMap { $0["identifier"] as? String } == Array(sorted.prefix(2)))
            let item = try #require(items.first)
            #expect(item["version"] as? Int == 1 && item["name"] as? String == "Tomato soup")
            #expect(item["dateModified"] as? String == "2026-11-20T10:00:00Z")
            let next = try #require(first["next"] as? String)
            let second = Sample.object(try await server.send(.get, "/v1/recipes?after=\(next)&limit=2"))
            #expect((second["recipes"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String } == [sorted[2]])
            #expect(second["next"] is NSNull)
        }
    }

    @Test("GET /v1/changes?since=&limit= answers {server, changes:[{seq,uuid,version,deleted,recipe}], next, more}, documents inline, deletions without")
    func changes() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let (kept, gone) = (UUID().uuidString, UUID().uuidString)
            #expect(try await server.putRecipe(kept, base: nil, Sample.recipe(kept, version: 1)).status == 201)
            #expect(try await server.putRecipe(gone, base: nil, Sample.recipe(gone, version: 1)).status == 201)
            #expect(try await server.send(.delete, "/v1/recipes/\(gone)", headers: Sample.precondition(1)).status == 204)
            let first = Sample.object(try await server.send(.get, "/v1/changes?since=0&limit=1"))
            #expect(first["server"] is String && first["more"] as? Bool == true && first["next"] as? Int == 1)
            let change = try #require((first["changes"] as? [[String: Any]])?.first)
            #expect(change["uuid"] as? String == kept && change["version"] as? Int == 1 && change["deleted"] as? Bool == false)
            let inline = try JSONSerialization.data(withJSONObject: try #require(change["recipe"]), options: [.sortedKeys])
            #expect(inline == Sample.recipe(kept, version: 1))
            let second = Sample.object(try await server.send(.get, "/v1/changes?since=1"))
            let deletion = try #require((second["changes"] as? [[String: Any]])?.first)
            #expect(deletion["uuid"] as? String == gone && deletion["version"] as? Int == 2 && deletion["deleted"] as? Bool == true)
            #expect(deletion["recipe"] == nil && second["more"] as? Bool == false && second["next"] as? Int == 3)
        }
    }

    @Test("wait= holds an empty changes page until a write arrives, then answers with it")
    func longPoll() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let poll = Task { try await server.send(.get, "/v1/changes?since=0&wait=30") }
            try await Task.sleep(for: .milliseconds(300))
            let id = UUID().uuidString
            #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1)).status == 201)
            let page = Sample.object(try await poll.value)
            #expect((page["changes"] as? [[String: Any]])?.compactMap { $0["uuid"] as? String } == [id])
        }
    }

    @Test("8 clients write the same recipe concurrently with If-Match of the same base, 20 rounds: each round exactly one wins (200) and 7 get 412")
    func concurrentWriters() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1)).status == 201)
            let clients = try (0..<8).map { _ in try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(5))) }
            let url = server.url("/v1/recipes/\(id)")
            for round in 1...20 {
                let statuses = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                    for (index, client) in clients.enumerated() {
                        group.addTask {
                            let body = Sample.json(Sample.recipe(id, version: round + 1, name: "Client \(index) round \(round)"))
                            let response = try await client.send(HTTPRequest(method: .put, url: url, headers: Sample.precondition(round), body: body))
                            return (index, response.status)
                        }
                    }
                    var statuses: [Int: Int] = [:]
                    for try await (index, status) in group { statuses[index] = status }
                    return statuses
                }
                let winners = statuses.filter { $0.value == 200 }
                #expect(winners.count == 1, "round \(round): \(statuses)")
                #expect(statuses.values.filter { $0 == 412 }.count == 7, "round \(round): \(statuses)")
                let stored = Sample.object(try await server.send(.get, "/v1/recipes/\(id)"))
                #expect(stored["version"] as? Int == round + 1)
                #expect(stored["name"] as? String == "Client \(winners.first?.key ?? -1) round \(round)")
            }
            let changes = try #require(Sample.object(try await server.send(.get, "/v1/changes"))["changes"] as? [[String: Any]])
            #expect(changes.count == 1 && changes[0]["version"] as? Int == 21 && changes[0]["seq"] as? Int == 21)
        }
    }
}
