import Foundation
import ReferenceServer
import Testing
import Transport

/// The recipe rows of docs/http-api.md (conditional writes, tombstones, ETags), through the real transport.
@Suite("Conditional recipe writes (section 3)")
struct ConditionalWriteTests {
    /// The parts of a 412 body.
    static func stale(_ response: HTTPResponse) -> (error: String?, version: Int?, deleted: Bool?) {
        let body = Sample.object(response)
        return (body["error"] as? String, body["version"] as? Int, body["deleted"] as? Bool)
    }

    @Test("If-None-Match: * creates version 1 (201, ETag \"1\"); If-Match: \"1\" with version 2 updates (200, ETag \"2\"); GET answers the document with its ETag")
    func createAndUpdate() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            let created = try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1))
            #expect(created.status == 201 && created.header("ETag") == "\"1\"")
            #expect(Sample.object(created)["identifier"] as? String == id && Sample.object(created)["version"] as? Int == 1)
            let updated = try await server.putRecipe(id, base: 1, Sample.recipe(id, version: 2, name: "Better soup"))
            #expect(updated.status == 200 && updated.header("ETag") == "\"2\"")
            #expect(Sample.object(updated)["version"] as? Int == 2)
            let get = try await server.send(.get, "/v1/recipes/\(id)")
            #expect(get.status == 200 && get.header("ETag") == "\"2\"" && get.body == Sample.recipe(id, version: 2, name: "Better soup"))
        }
    }

    @Test("the retry of a write whose answer was lost (same version, same document) is 200 and makes no new version")
    func retryOfLostAnswer() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1)).status == 201)
            let createRetry = try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1))
            #expect(createRetry.status == 200 && createRetry.header("ETag") == "\"1\"")
            #expect(try await server.putRecipe(id, base: 1, Sample.recipe(id, version: 2)).status == 200)
            let updateRetry = try await server.putRecipe(id, base: 1, Sample.recipe(id, version: 2))
            #expect(updateRetry.status == 200 && Sample.object(updateRetry)["version"] as? Int == 2)
            let changes = try #require(Sample.object(try await server.send(.get, "/v1/changes"))["changes"] as? [[String: Any]])
            #expect(changes.count == 1 && changes[0]["version"] as? Int == 2 && changes[0]["seq"] as? Int == 2)
        }
    }

    @Test("a failed precondition is 412 {\"error\":\"stale\",\"version\":N,\"deleted\":false} with the server's ETag, and changes nothing")
    func stalePrecondition() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1)).status == 201)
            #expect(try await server.putRecipe(id, base: 1, Sample.recipe(id, version: 2, name: "Mine")).status == 200)
            let late = try await server.putRecipe(id, base: 1, Sample.recipe(id, version: 2, name: "Theirs"))
            #expect(late.status == 412 && late.header("ETag") == "\"2\"")
            #expect(Self.stale(late) == ("stale", 2, false))
            let again = try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1, name: "New elsewhere"))
            #expect(again.status == 412 && Self.stale(again) == ("stale", 2, false))
            let never = UUID().uuidString
            let unknown = try await server.putRecipe(never, base: 4, Sample.recipe(never, version: 5))
            #expect(unknown.status == 412 && Self.stale(unknown) == ("stale", 0, false))
            #expect(try await server.send(.get, "/v1/recipes/\(id)").body == Sample.recipe(id, version: 2, name: "Mine"))
        }
    }

    @Test("a write without If-Match or If-None-Match is 428; a body version that is not base + 1 is 422; neither stores anything")
    func refusedWrites() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            let bare = try await server.send(.put, "/v1/recipes/\(id)", body: Sample.json(Sample.recipe(id, version: 1)))
            #expect(bare.status == 428)
            #expect(Sample.object(bare)["error"] as? String == "precondition-required")
            let notOne = try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 2))
            #expect(notOne.status == 422)
            #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1)).status == 201)
            let skipping = try await server.putRecipe(id, base: 1, Sample.recipe(id, version: 3))
            #expect(skipping.status == 422 && (Sample.object(skipping)["message"] as? String)?.contains("must be 2") == true)
            #expect(try await server.send(.delete, "/v1/recipes/\(id)").status == 428)
            #expect(try await server.send(.get, "/v1/recipes/\(id)").header("ETag") == "\"1\"")
        }
    }

    @Test("DELETE with If-Match: 204 and a tombstone at base + 1; 204 again when already deleted; 412 when the server is newer; GET is 410 with the version")
    func deleteRows() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1)).status == 201)
            #expect(try await server.putRecipe(id, base: 1, Sample.recipe(id, version: 2)).status == 200)
            let stale = try await server.send(.delete, "/v1/recipes/\(id)", headers: Sample.precondition(1))
            #expect(stale.status == 412 && Self.stale(stale) == ("stale", 2, false))
            let deleted = try await server.send(.delete, "/v1/recipes/\(id)", headers: Sample.precondition(2))
            #expect(deleted.status == 204 && deleted.header("ETag") == "\"3\"")
            #expect(try await server.send(.delete, "/v1/recipes/\(id)", headers: Sample.precondition(2)).status == 204)
            let gone = try await server.send(.get, "/v1/recipes/\(id)")
            #expect(gone.status == 410 && gone.header("ETag") == "\"3\"")
            #expect(Sample.object(gone)["error"] as? String == "deleted" && Sample.object(gone)["version"] as? Int == 3)
            #expect(try await server.send(.get, "/v1/recipes/\(UUID().uuidString)").status == 404)
        }
    }

    @Test("on a tombstone: If-None-Match: * is 412 deleted:true; If-Match with the tombstone's version re-creates it (201, tombstone + 1)")
    func tombstoneRows() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1)).status == 201)
            #expect(try await server.send(.delete, "/v1/recipes/\(id)", headers: Sample.precondition(1)).status == 204)
            let asNew = try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1))
            #expect(asNew.status == 412 && Self.stale(asNew) == ("stale", 2, true))
            let onOld = try await server.putRecipe(id, base: 1, Sample.recipe(id, version: 2))
            #expect(onOld.status == 412 && Self.stale(onOld) == ("stale", 2, true))
            let recreated = try await server.putRecipe(id, base: 2, Sample.recipe(id, version: 3, name: "Back again"))
            #expect(recreated.status == 201 && recreated.header("ETag") == "\"3\"")
            let get = try await server.send(.get, "/v1/recipes/\(id)")
            #expect(get.status == 200 && get.body == Sample.recipe(id, version: 3, name: "Back again"))
        }
    }
}
