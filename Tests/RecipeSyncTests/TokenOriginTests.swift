import Crypto
import Foundation
import HTTPTestSupport
import Locking
import OperationEngineTestSupport
import RecipeModels
import RecipeStore
import RecipeSync
import RecipesTestSupport
import Testing

/// An image another app put elsewhere (not of the server's own form `…/v1/images/<sha256>`, which is fetched from
/// server.url: `ImageOwnFormTests`) is fetched where the document names it, and never with the token.
@Suite("A pull sends the token to server.url's origin only")
struct TokenOriginTests {
    @Test("a recipe whose image is on another port is restored with the image fetched without the token; the feed keeps it")
    func imageElsewhereGetsNoToken() async throws {
        let bytes = Data(pngBytes(size: 4096, seed: 7))
        let sha = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        let elsewhere = try LoopbackHTTPServer { _ in .respond(status: 200, headers: ["Content-Type": "image/png"], body: bytes) }
        defer { elsewhere.stop() }
        let uuid = UUID()
        let document = """
            {"@context":"https://schema.org","@type":"Recipe","identifier":"\(uuid.lowercasedString)","version":1,\
            "name":"Soup","image":"\(elsewhere.baseURL)/photos/\(sha)","dateModified":"2026-11-24T10:00:00Z"}
            """
        let server = try scriptedServer(feed: { since in
            since == 0 ? feedPage([feedChange(seq: 1, uuid, version: "1", document: document)], next: 1)
                : feedPage([], next: Int(since))
        })
        defer { server.stop() }
        let home = try ClientHome()
        var settings = scriptedSettings(server)
        settings.token = "tok-for-the-recipe-server"
        let summary = try await SyncRun(
            store: home.store, settings: settings, options: SyncOptions(direction: .pullOnly), emit: { _ in }
        ).run()
        #expect(summary.verdict == .complete, "\(summary)")
        #expect(try home.store.recipe(uuid: uuid)?.image?.sha256 == sha)
        #expect(!elsewhere.received.isEmpty)
        #expect(elsewhere.received.allSatisfy { $0.head.headers["authorization"] == nil }, "the token went elsewhere")
        #expect(server.received.allSatisfy { $0.head.headers["authorization"] == "Bearer tok-for-the-recipe-server" })
    }

    @Test("an image elsewhere that asks for credentials: that recipe is not pulled, with words; the run is not stopped as refused")
    func imageElsewhereAskingForCredentials() async throws {
        let elsewhere = try LoopbackHTTPServer(status: 401, body: #"{"error":"unauthorized"}"#)
        defer { elsewhere.stop() }
        let uuid = UUID()
        let sha = String(repeating: "ab", count: 32)
        let document = """
            {"@context":"https://schema.org","@type":"Recipe","identifier":"\(uuid.lowercasedString)","version":1,\
            "name":"Soup","image":"\(elsewhere.baseURL)/photos/\(sha)","dateModified":"2026-11-24T10:00:00Z"}
            """
        let server = try scriptedServer(feed: { since in
            since == 0 ? feedPage([feedChange(seq: 1, uuid, version: "1", document: document)], next: 1)
                : feedPage([], next: Int(since))
        })
        defer { server.stop() }
        let home = try ClientHome()
        var settings = scriptedSettings(server)
        settings.token = "tok-home"
        let recorder = EventRecorder()
        let summary = try await SyncRun(
            store: home.store, settings: settings, options: SyncOptions(direction: .pullOnly), emit: recorder.emit
        ).run()
        #expect(!summary.credentialsRefused, "\(summary)")
        let skipped = try #require(recorder.events(.skipped).first?.error)
        #expect(skipped.contains("which asked for credentials (HTTP 401); recipes sends the token to server.url's origin only"),
                "\(skipped)")
    }
}
