import Foundation
import HTTPTestSupport
import OperationEngine
import OperationEngineTestSupport
import RecipeModels
import RecipeStore
import RecipeSync
import RecipesTestSupport
import Testing
import Transport

@Suite("A server that is not the recipe server (captive portal, proxy, hostile answers) never counts as an acknowledgement")
struct HostileServerTests {
    /// A run against `server` whose first retry wait (60 s) is longer than `--max-wait`: one attempt per recipe, then
    /// left for a later run.
    private func run(_ home: ClientHome, _ server: LoopbackHTTPServer, recorder: EventRecorder) async throws -> SyncSummary {
        let settings = SyncSettings(
            api: ServerAPI(baseURL: server.baseURL), probe: .constant(true), random: FixedRandomSource(1),
            pollInterval: .milliseconds(10), baseDelay: .seconds(60), maxDelay: .seconds(300))
        return try await SyncRun(
            store: home.store, settings: settings, options: SyncOptions(direction: .pushOnly), emit: recorder.emit
        ).run()
    }

    static let portalPage = Data("<html>Please log in</html>".utf8)

    @Test("a captive portal answering 200 text/html to everything: nothing is marked synced, no media copy is deleted, the message says why")
    func captivePortal() async throws {
        let portal = try LoopbackHTTPServer { _ in
            .respond(status: 200, headers: ["Content-Type": "text/html"], body: Self.portalPage)
        }
        defer { portal.stop() }
        let home = try ClientHome()
        // A recipe the server has, then deleted here: its DELETE goes to the portal too.
        let gone = try home.makeRecipe("deleted")
        try await withSyncServer { server in
            let summary = try await home.sync(server)
            #expect(summary.verdict == .complete)
        }
        try home.store.delete(gone.id)
        let withImage = try home.makeRecipe("with image", image: pngBytes(size: 2048, seed: 3))
        let plain = try home.makeRecipe("plain")
        let mediaBefore = home.mediaFiles
        #expect(mediaBefore.count == 1)

        let recorder = EventRecorder()
        let summary = try await run(home, portal, recorder: recorder)
        #expect(summary.done == 0)
        #expect(summary.verdict == .workLeft)
        #expect(recorder.events(.done).isEmpty)
        for id in [withImage.id, plain.id, gone.id] {
            let recipe = try home.recipe(id)
            // Still due (the deleted one still to delete), no attempt counted: a portal's page is not the server.
            #expect(recipe.sync.state == (id == gone.id ? .deleting : .pending) && recipe.sync.attempts == 0,
                    "recipe \(id): \(recipe.sync)")
            let error = try #require(recipe.sync.lastError)
            #expect(error.contains("HTML page"), "\(error)")
            #expect(error.contains("captive portal or a proxy"))
            #expect(error.contains("nothing was marked synced"))
        }
        #expect(try home.recipe(withImage.id).sync.remoteImageSHA256 == nil)
        #expect(home.mediaFiles == mediaBefore, "the media copy is the only copy the server does not have")
        // The image was offered (its HEAD did not prove the portal has it), the JSON never followed it.
        #expect(portal.heads.contains { $0.method == "PUT" && $0.path.hasPrefix("/v1/images/") })
        #expect(!portal.heads.contains { $0.method == "PUT" && $0.path.hasSuffix(withImage.uuid.uuidString.lowercased()) })

        // Out of the portal, a server gets everything on the next sync of those recipes.
        try await withSyncServer { server in
            let summary = try await home.sync(server, ids: [withImage.id, plain.id, gone.id])
            #expect(summary.verdict == .complete)
            #expect(try home.recipe(withImage.id).sync.state == .synced)
            #expect(try home.recipe(plain.id).sync.state == .synced)
            #expect(try await server.recipe(withImage.uuid) != nil)
            #expect(try await server.recipe(plain.uuid) != nil)
            #expect(server.storedImages().count == 1)
            #expect(home.mediaFiles.isEmpty)
        }
    }

    @Test("a HEAD answered 200 without the image's ETag proves nothing: the image is uploaded and its answer checked")
    func headWithoutETag() async throws {
        // A proxy that answers every HEAD itself with a bare 200, and fails everything else.
        let proxy = try LoopbackHTTPServer { head in
            head.method == "HEAD" ? .respond(status: 200) : .respond(status: 502)
        }
        defer { proxy.stop() }
        let home = try ClientHome()
        let recipe = try home.makeRecipe("soup", image: pngBytes(size: 1024, seed: 9))
        _ = try await run(home, proxy, recorder: EventRecorder())
        // (Its GET /v1/health, answered 502, leaves the client with the requests every server answers.)
        #expect(proxy.heads.filter { $0.path != "/v1/health" }.map(\.method) == ["HEAD", "PUT"], "the bare 200 did not stop the upload")
        #expect(try home.recipe(recipe.id).sync.state == .waiting)
        #expect(try home.recipe(recipe.id).sync.remoteImageSHA256 == nil)
        #expect(home.mediaFiles.count == 1)
    }

    @Test("an image answer whose URL is not http(s) ending in the SHA-256 (file:///etc/passwd) is refused; the JSON is never sent")
    func imageURLMustBeHTTP() async throws {
        let home = try ClientHome()
        let recipe = try home.makeRecipe("soup", image: pngBytes(size: 1024, seed: 4))
        let sha = recipe.image?.sha256 ?? ""
        let server = try LoopbackHTTPServer { head in
            switch head.method {
            case "HEAD": return .respond(status: 404)
            case "PUT" where head.path.hasPrefix("/v1/images/"):
                return .respond(
                    status: 201, headers: ["Content-Type": "application/json"],
                    body: Data(#"{"sha256":"\#(sha)","url":"file:///etc/passwd","bytes":1024}"#.utf8))
            default: return .respond(status: 500)
            }
        }
        defer { server.stop() }
        _ = try await run(home, server, recorder: EventRecorder())
        #expect(!server.heads.contains { $0.path.hasPrefix("/v1/recipes/") })
        let stored = try home.recipe(recipe.id)
        #expect(stored.sync.state == .waiting)
        #expect(stored.sync.remoteImageURL == nil)
        #expect(stored.sync.lastError?.contains("file:///etc/passwd") == true)
    }

    @Test("a recipe answer that names another recipe or no version is not an acknowledgement")
    func recipeAnswerMustNameTheRecipe() async throws {
        let home = try ClientHome()
        let recipe = try home.makeRecipe("soup")
        let server = try LoopbackHTTPServer { _ in
            .respond(
                status: 201, headers: ["Content-Type": "application/json"],
                body: Data(#"{"identifier":"00000000-0000-0000-0000-000000000000","version":1}"#.utf8))
        }
        defer { server.stop() }
        let summary = try await run(home, server, recorder: EventRecorder())
        #expect(summary.done == 0)
        let stored = try home.recipe(recipe.id)
        #expect(stored.sync.state == .waiting)
        #expect(stored.sync.lastError?.contains("this recipe's identifier and version") == true)
    }

    @Test("Retry-After of a billion seconds parks the recipe for 24 hours at most, and says so")
    func retryAfterCapped() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: status=503 retry-after=999999999 first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("soup")
            let before = Date()
            let summary = try await home.sync(server)
            #expect(summary.verdict == .workLeft)
            let sync = try home.recipe(recipe.id).sync
            #expect(sync.state == .waiting)
            let next = try #require(sync.nextAttemptAt)
            #expect(next.timeIntervalSince(before) <= 86_400 + 60)
            #expect(next.timeIntervalSince(before) >= 86_400 - 60)
            #expect(sync.lastError?.contains("recipes waits 24 h at most") == true, "\(sync.lastError ?? "")")
        }
    }
}
