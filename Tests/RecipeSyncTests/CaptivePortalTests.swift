import Foundation
import HTTPTestSupport
import OperationEngineTestSupport
import RecipeModels
import RecipeStore
import RecipeSync
import RecipesTestSupport
import Testing
import Transport

/// A captive portal between this device and its server (a café's, a hotel's): it answers every request with a redirect
/// to its sign-in page, as most do. That is not the server answering: the recipes stay due (none failed, no attempt
/// counted), every message names the portal, and once the network lets the requests through the next run sends them.
@Suite("a captive portal's redirect where the server was expected parks no recipe: the next run sends them")
struct CaptivePortalTests {
    static let token = "portal-sync-token-0123456789"
    static let portal = "http://portal.example/login?continue=recipes"

    @Test("a 3xx to a portal, for pull and push: nothing failed, each recipe due and told where the portal sent it, all sent by the next run",
          arguments: [302, 301, 303, 307, 308])
    func portalThenServer(status: Int) async throws {
        try await withSyncServer(token: Self.token) { server in
            let proxy = try LoopbackFaultProxy(upstreamURL: server.baseURL)
            defer { proxy.stop() }
            proxy.add(.redirect(status: status, location: Self.portal), times: 1_000_000)
            let home = try ClientHome()
            let soup = try home.makeRecipe("Soup", image: pngBytes(size: 1024, seed: 1))
            let bread = try home.makeRecipe("Bread")
            let settings = SyncSettings(
                api: ServerAPI(baseURL: proxy.baseURL), token: Self.token, probe: .constant(true),
                random: FixedRandomSource(1), pollInterval: .milliseconds(10), baseDelay: .milliseconds(5),
                maxDelay: .seconds(1), networkPollInterval: .milliseconds(20))
            func run(_ recorder: EventRecorder) async throws -> SyncSummary {
                try await SyncRun(store: home.store, settings: settings, options: SyncOptions(maxWait: .seconds(5)),
                                  emit: recorder.emit).run()
            }

            let behind = EventRecorder()
            let first = try await run(behind)
            #expect(first.failed == 0 && first.done == 0 && first.verdict == .workLeft, "\(first)")
            #expect(behind.events(.failed).isEmpty, "\(behind.events(.failed))")
            let stop = try #require(first.pullStopped, "\(first)")
            #expect(stop.words.contains("HTTP \(status) to \(Self.portal), not the server's answer"), "\(stop)")
            for id in [soup.id, bread.id] {
                let recipe = try home.recipe(id)
                #expect(recipe.sync.state == .pending && recipe.sync.attempts == 0, "\(recipe.sync)")
                #expect(recipe.sync.lastError?.contains("HTTP \(status) to \(Self.portal)") == true, "\(recipe.sync)")
            }
            let skipped = behind.events(.skipped)
            #expect(Set(skipped.map(\.id)) == [soup.id, bread.id], "\(skipped)")
            #expect(skipped.allSatisfy { $0.error?.contains(Self.portal) == true }, "\(skipped)")
            #expect(server.allRequests().isEmpty, "nothing reached the server")
            #expect(try home.store.hasDueWork(at: Date()), "the next run has them to send")

            // Signed in: the next run sends them, as any run would (no id needed, nothing to reset).
            proxy.clearRules()
            let through = EventRecorder()
            let second = try await run(through)
            #expect(second.done == 2 && second.failed == 0 && second.verdict == .complete, "\(second)")
            for id in [soup.id, bread.id] { #expect(try home.recipe(id).sync.state == .synced) }
            #expect(server.storedImages().count == 1)
        }
    }

    @Test("a portal's 200 page in the place of the uploads' answers, run after run: no attempt counted, no recipe failed, the next run through sends them",
          arguments: [["PUT"], ["PUT", "POST"]])
    func portalPageThenServer(methods: [String]) async throws {
        try await withSyncServer(token: Self.token) { server in
            let proxy = try LoopbackFaultProxy(upstreamURL: server.baseURL)
            defer { proxy.stop() }
            proxy.add(.portalPage, times: 1_000_000) { methods.contains($0.method) }
            let home = try ClientHome()
            let soup = try home.makeRecipe("Soup", image: pngBytes(size: 1024, seed: 1))
            let bread = try home.makeRecipe("Bread")
            let settings = SyncSettings(
                api: ServerAPI(baseURL: proxy.baseURL), token: Self.token, probe: .constant(true),
                random: FixedRandomSource(1), pollInterval: .milliseconds(10), maxAttempts: 2, baseDelay: .milliseconds(5),
                maxDelay: .seconds(1), networkPollInterval: .milliseconds(20))
            func run() async throws -> SyncSummary {
                try await SyncRun(store: home.store, settings: settings, options: SyncOptions(maxWait: .seconds(5)),
                                  emit: EventRecorder().emit).run()
            }
            // More runs than the attempts a recipe has before it fails for good.
            for _ in 0..<3 {
                let summary = try await run()
                #expect(summary.failed == 0 && summary.verdict == .workLeft, "\(summary)")
            }
            for id in [soup.id, bread.id] {
                let recipe = try home.recipe(id)
                #expect(recipe.sync.state == .pending && recipe.sync.attempts == 0, "\(recipe.sync)")
                #expect(recipe.sync.lastError?.contains("an HTML page instead of the recipe server's answer") == true, "\(recipe.sync)")
            }
            proxy.clearRules()
            let through = try await run()
            #expect(through.done == 2 && through.failed == 0 && through.verdict == .complete, "\(through)")
            for id in [soup.id, bread.id] { #expect(try home.recipe(id).sync.state == .synced) }
        }
    }
}
