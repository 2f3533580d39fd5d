import Foundation
import RecipeModels
import RecipeStore
import RecipesTestSupport
import ReferenceServer
import Testing
import Transport
@testable import RecipeSync

/// A sync against the in-process reference server with and without the optional requests: the features asked once,
/// the requests every server answers to a server without them, one `images/missing` and `recipes/batch` for the chains
/// that become ready together to a server with them, and each chain its own answer — also when a batch's answer is
/// lost or part of a batch is stale.
@Suite("A sync uses the optional requests only when the server lists them, each chain with its own answer")
struct OptionalRequestsSyncTests {
    /// Makes `count` recipes with distinct images in `home`.
    static func recipes(_ home: ClientHome, _ count: Int) throws -> [Recipe] {
        try (0..<count).map { index in try home.makeRecipe("soup \(index)", image: pngBytes(size: 2048, seed: UInt8(index + 1))) }
    }

    @Test("a server started with --features none gets GET /v1/health once, a HEAD per image and a PUT per recipe; no POST")
    func withoutFeatures() async throws {
        try await withSyncServer(features: []) { server in
            let home = try ClientHome()
            _ = try Self.recipes(home, 6)
            #expect(try await home.sync(server).verdict == .complete)
            let requests = await server.requests(atLeast: 18)
            #expect(server.allRequests().filter { $0.path == "/v1/health" }.count == 1, "features asked once per run")
            #expect(requests.filter(\.isImageHead).count == 6)
            #expect(requests.filter(\.isRecipePut).count == 6)
            #expect(requests.filter { $0.method == "POST" }.isEmpty)
            #expect(try await server.listedIdentifiers().count == 6)
        }
    }

    @Test("a server with every feature: the image checks and recipe writes ready together travel in few POSTs, no HEAD or recipe PUT")
    func withFeatures() async throws {
        try await withSyncServer(features: ServerFeature.all) { server in
            let home = try ClientHome()
            let made = try Self.recipes(home, 12)
            #expect(try await home.sync(server, jobs: 4).verdict == .complete)
            let requests = await server.requests(atLeast: 15)
            #expect(server.allRequests().filter { $0.path == "/v1/health" }.count == 1, "features asked once per run")
            #expect(requests.filter(\.isImageHead).isEmpty && requests.filter(\.isRecipePut).isEmpty)
            let checks = requests.filter { $0.method == "POST" && $0.path == "/v1/images/missing" }
            let batches = requests.filter { $0.method == "POST" && $0.path == "/v1/recipes/batch" }
            #expect(checks.count == 1, "\(checks.count) checks for 12 images: asked ahead for the claimed batch, in one request")
            #expect(!batches.isEmpty && batches.count < 12, "\(batches.count) batches for 12 writes: several in one request")
            #expect(requests.filter { $0.method == "PUT" && $0.path.hasPrefix("/v1/images/") }.count == 12)
            for recipe in made {
                let stored = try #require(try await server.recipe(recipe.uuid))
                #expect(stored["version"] as? Int == 1 && stored["name"] as? String == recipe.title)
                #expect(try home.recipe(recipe.id).sync.serverVersion == 1)
            }
            // Nothing due: the next run sends nothing.
            let before = server.requests().count
            #expect(try await home.sync(server).verdict == .complete)
            #expect(server.requests().count == before)
        }
    }

    @Test("a batch whose answer is lost is sent again: each write answered 200 as its retry, nothing stored twice")
    func lostBatchAnswer() async throws {
        try await withSyncServer(faults: ["POST /v1/recipes/batch: lost-ack first=1"], features: ServerFeature.all) { server in
            let home = try ClientHome()
            let made = try Self.recipes(home, 5)
            #expect(try await home.sync(server).verdict == .complete)
            let batches = await server.requests(atLeast: 2).filter { $0.path == "/v1/recipes/batch" }
            #expect(batches.contains { $0.fault == "lost-ack" }, "the fault hit a batch")
            #expect(batches.count >= 2, "the lost batch's writes were sent again")
            for recipe in made {
                let stored = try #require(try await server.recipe(recipe.uuid))
                #expect(stored["version"] as? Int == 1, "written once: the retry found its own write, not a second version")
                #expect(try home.recipe(recipe.id).sync.serverVersion == 1)
            }
            let changes = try await server.get("/v1/changes?since=0&limit=1000")
            let feed = try #require(try JSONSerialization.jsonObject(with: changes.body) as? [String: Any])
            #expect((feed["changes"] as? [Any])?.count == 5, "one change per recipe: nothing stored twice")
        }
    }

    @Test("a batch partly stale: the fresh writes are written, the stale one is read, merged and written again")
    func partlyStale() async throws {
        try await withSyncServer(features: ServerFeature.all) { server in
            let home = try ClientHome()
            let made = try (0..<3).map { try home.makeRecipe("soup \($0)") }
            #expect(try await home.sync(server).verdict == .complete)
            // Another device writes version 2 of the first recipe with a description.
            let first = made[0]
            var theirs = try #require(try await server.recipe(first.uuid))
            theirs["version"] = 2
            theirs["description"] = "from the tablet"
            let put = try await server.send(HTTPRequest(
                method: .put, url: "\(server.baseURL)/v1/recipes/\(first.uuid.lowercasedString)",
                headers: ["If-Match": "\"1\""],
                body: .data(try JSONSerialization.data(withJSONObject: theirs), contentType: "application/json")))
            #expect(put.status == 200)
            for recipe in made { try home.store.apply(.title(recipe.title + " (edited)"), to: recipe.id) }

            #expect(try await home.sync(server).verdict == .complete)
            let stale = try #require(try await server.recipe(first.uuid))
            #expect(stale["version"] as? Int == 3 && stale["name"] as? String == "soup 0 (edited)")
            #expect(stale["description"] as? String == "from the tablet", "merged with the other device's write")
            for recipe in made.dropFirst() {
                let stored = try #require(try await server.recipe(recipe.uuid))
                #expect(stored["version"] as? Int == 2 && stored["name"] as? String == recipe.title + " (edited)")
            }
            let results = server.requests().filter { $0.path == "/v1/recipes/batch" }
            #expect(results.allSatisfy { $0.status == 200 })
        }
    }
}
