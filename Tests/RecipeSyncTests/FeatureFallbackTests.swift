import Foundation
import RecipeModels
import RecipeStore
import RecipesTestSupport
import ReferenceServer
import Testing
import Transport
@testable import RecipeSync

/// A server (or a proxy before it, or an older instance behind a balancer) that lists `recipes-batch` and
/// `images-missing` in `GET /v1/health` but answers `404` to them: the run falls back to the requests every server
/// answers and says which request failed, instead of stopping every sync as "not a recipes server".
@Suite("optional requests the server lists but answers 404 to: the run falls back to the single requests and says so")
struct FeatureFallbackTests {
    static let token = "fallback-token-0123456789"

    @Test("a 404 to the listed POSTs: every recipe sent on its own, its deletion too, each refused request named",
          arguments: [["recipes-batch", "images-missing"], ["recipes-batch"], ["images-missing"]])
    func fallBack(_ gone: [String]) async throws {
        let paths = ["recipes-batch": "/v1/recipes/batch", "images-missing": "/v1/images/missing"]
        let faults = gone.map { "POST \(paths[$0]!): status=404" }
        try await withSyncServer(faults: faults, token: Self.token, features: ServerFeature.all) { server in
            let home = try ClientHome()
            let made = try (0..<6).map { index in
                try home.makeRecipe("soup \(index)", image: pngBytes(size: 2048, seed: UInt8(index + 1)))
            }
            let summary = try await home.sync(server)
            #expect(summary.done == 6 && summary.failed == 0 && summary.setupProblem == nil, "\(summary)")
            #expect(summary.verdict == .complete, "\(summary)")
            for recipe in made {
                #expect(try await server.recipe(recipe.uuid)?["version"] as? Int == 1)
                #expect(try home.recipe(recipe.id).sync.state == .synced)
            }
            #expect(summary.fallbacks.count == gone.count, "\(summary.fallbacks)")
            for feature in gone {
                let words = try #require(summary.fallbacks.first { $0.contains("lists \(feature) ") }, "\(summary.fallbacks)")
                #expect(words.contains("answered HTTP 404 to POST \(paths[feature]!)"), "\(words)")
                #expect(!words.contains("not a recipes server"), "\(words)")
            }
            let requests = await server.requests(atLeast: 12)
            if gone.contains("images-missing") {
                #expect(requests.filter(\.isImageHead).count == 6, "each image asked about with HEAD")
            }
            if gone.contains("recipes-batch") {
                #expect(requests.filter(\.isRecipePut).count == 6, "each recipe sent with its own PUT")
            }

            // The next run (a deletion) asks the server again and falls back again.
            try home.store.delete(made[0].id)
            let again = try await home.sync(server)
            #expect(again.done == 1 && again.verdict == .complete, "\(again)")
            #expect(try await server.recipe(made[0].uuid) == nil)
            #expect(again.fallbacks.count == (gone.contains("recipes-batch") ? 1 : 0), "\(again.fallbacks)")
        }
    }
}
