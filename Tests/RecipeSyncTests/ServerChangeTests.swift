import Foundation
import RecipeModels
import RecipeStore
import RecipeSync
import RecipesTestSupport
import Testing

@Suite("A new server's first full pass survives an interruption")
struct ServerChangeTests {
    /// The server id `server`'s health answer names.
    func serverID(_ server: SyncServer) async throws -> String {
        let body = try await server.get("/v1/health").body
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        return try #require(object?["server"] as? String)
    }

    @Test("a first sync against a new server interrupted once its id is stored: the next sync (and cron's) uploads every recipe the new server lacks")
    func interruptedFirstPassIsFinished() async throws {
        try await withSyncServer { first in
            try await withSyncServer { second in
                let home = try ClientHome()
                let recipes = try (1...3).map { try home.makeRecipe("Pie \($0)") }
                #expect(try await home.sync(first, direction: .both).verdict == .complete)
                // Another device's recipe on the second server, so that its feed is not empty.
                let other = try ClientHome()
                try other.makeRecipe("Theirs")
                #expect(try await other.sync(second, direction: .both).verdict == .complete)

                // The interrupted run got as far as storing the second server's id (what Ctrl-C after the first page
                // of its feed leaves): the cursor names it, the recipes forgot the first server's versions.
                try home.store.startFeed(of: try await serverID(second))
                #expect(try home.store.owesServerChange())
                #expect(try RecipeStore.idleFeedCursor(home: home.store.home) == nil, "cron's run must not end idle")
                let before = try home.store.recipe(id: recipes[0].id)
                #expect(!RecipeSyncMachine.isOnServer(SyncRecord(sync: before.sync, image: before.image)),
                        "`recipes sync 1` must not say it is on the server")

                let summary = try await home.sync(second, direction: .both)
                #expect(summary.verdict == .complete, "\(summary)")
                let listed = Set(try await second.listedIdentifiers())
                #expect(listed.isSuperset(of: recipes.map(\.uuid.lowercasedString)), "\(listed)")
                for recipe in recipes {
                    let now = try home.store.recipe(id: recipe.id)
                    #expect(now.sync.state == .synced && now.sync.serverVersion == 1, "\(now.sync)")
                }
                #expect(try home.store.recipes().map(\.title).contains("Theirs"))
                #expect(try !home.store.owesServerChange())
            }
        }
    }
}
