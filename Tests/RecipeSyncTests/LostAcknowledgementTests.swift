import Foundation
import RecipeModels
import RecipeStore
import RecipeSync
import RecipesTestSupport
import Testing

@Suite("This device's own write whose answer was lost is recognised, edits since merged on it")
struct LostAcknowledgementTests {
    /// The steps of the server's copy of `uuid`.
    func serverSteps(_ server: SyncServer, _ uuid: UUID) async throws -> [String] {
        let document = try #require(try await server.recipe(uuid))
        return (document["recipeInstructions"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    @Test("a step sent, its answer lost, another step added here: the next sync keeps each step once, here and on the server",
          arguments: [SyncOptions.Direction.both, .pushOnly])
    func noDuplicatedSteps(_ direction: SyncOptions.Direction) async throws {
        // Every second recipe PUT is stored and its answer lost: the second is the one that adds NEW.
        try await withSyncServer(faults: ["PUT /v1/recipes/*: lost-ack every=2"]) { server in
            let home = try ClientHome()
            let recipe = try home.store.create(title: "Soup")
            try home.store.apply(.addStep("A"), to: recipe.id)
            #expect(try await home.sync(server).verdict == .complete)

            try home.store.apply(.addStep("NEW"), to: recipe.id)
            // The answer is lost; the retry waits past --max-wait, for a later run.
            let lost = try await home.sync(server, maxWait: .zero, baseDelay: .seconds(60))
            #expect(lost.verdict == .workLeft, "\(lost)")
            #expect(try await serverSteps(server, recipe.uuid) == ["A", "NEW"], "the server stored it")

            try home.store.apply(.addStep("MORE"), to: recipe.id)
            // Both ways: the pull meets version 2 in the feed; a push alone meets it in the answer to its 412.
            let summary = try await home.sync(server, direction: direction)
            #expect(summary.verdict == .complete, "\(summary)")
            let local = try home.store.recipe(id: recipe.id)
            #expect(local.steps.map(\.text) == ["A", "NEW", "MORE"])
            #expect(local.sync.state == .synced && local.sync.conflict == nil, "\(local.sync)")
            #expect(try await serverSteps(server, recipe.uuid) == ["A", "NEW", "MORE"])
        }
    }

    @Test("two edits after the upload whose answer was lost: the draft sent is the one recognised, not the first edit")
    func twoEditsKeepTheDraftSent() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: lost-ack every=2"]) { server in
            let home = try ClientHome()
            let recipe = try home.store.create(title: "Soup")
            try home.store.apply(.addIngredient("salt"), to: recipe.id)
            #expect(try await home.sync(server).verdict == .complete)
            try home.store.apply(.addIngredient("NEW"), to: recipe.id)
            _ = try await home.sync(server, maxWait: .zero, baseDelay: .seconds(60))
            try home.store.apply(.addIngredient("MORE"), to: recipe.id)
            try home.store.apply(.title("Winter soup"), to: recipe.id)
            let summary = try await home.sync(server, direction: .both)
            #expect(summary.verdict == .complete, "\(summary)")
            let local = try home.store.recipe(id: recipe.id)
            #expect(local.ingredients.map(\.text) == ["salt", "NEW", "MORE"] && local.title == "Winter soup")
            let document = try #require(try await server.recipe(recipe.uuid))
            #expect(document["recipeIngredient"] as? [String] == ["salt", "NEW", "MORE"])
        }
    }
}
