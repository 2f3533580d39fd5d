import Crypto
import Foundation
import HTTPTestSupport
import Locking
import OperationEngine
import OperationEngineTestSupport
import RecipeModels
import RecipeStore
import RecipeSync
import RecipesTestSupport
import Testing
import Transport

/// One server that devices name differently (`127.0.0.1` here, `localhost` or a `.local` name or a proxy there), with a
/// token: a document names each image by the host it was uploaded through, and this device must fetch an image of the
/// server's own form (`…/v1/images/<sha256>`) from its own server.url, with the token, wherever the document says.
@Suite("an image of the server's own form is fetched from this device's server.url, with the token")
struct ImageOwnFormTests {
    static let server = "own-form-server-id"
    static let token = "own-form-token-0123456789abcdef"

    @Test("a document's image URL of the server's form comes from server.url; any other URL from where it says",
          arguments: [
              ("http://localhost:8080/v1/images/", true), ("https://kitchen-pi.local/v1/images/", true),
              ("http://192.168.1.10:8080/recipes/v1/images/", true), ("http://proxy.example/v1/images/", true),
              ("https://cdn.example/photos/", false), ("https://cdn.example/v1/other/", false),
              ("https://cdn.example/images/", false), ("ftp://kitchen-pi.local/v1/images/", false),
          ])
    func downloadURL(_ prefix: String, own: Bool) throws {
        let sha = String(repeating: "ab", count: 32)
        let api = try #require(ServerAPI(baseURL: "http://127.0.0.1:9000"))
        let image = try #require(RecipeImage(serverURL: prefix + sha))
        #expect(api.downloadURL(of: image) == (own ? "http://127.0.0.1:9000/v1/images/\(sha)" : prefix + sha))
        let upper = try #require(RecipeImage(serverURL: prefix + sha.uppercased()))
        #expect(api.downloadURL(of: upper) == (own ? "http://127.0.0.1:9000/v1/images/\(sha)" : prefix + sha.uppercased()))
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    @Test("images named on localhost, on a name that no longer resolves and on a proxy are fetched from server.url with the token; another app's image is fetched where it is, without it")
    func otherNamesOfTheServer() async throws {
        let bytes = (1...4).map { Data(pngBytes(size: 2048, seed: $0)) }
        let shas = bytes.map(Self.sha256)
        let uuids = (0..<4).map { _ in UUID() }
        let port = Locked(0)
        let server = try LoopbackHTTPServer { head in
            let path = head.path
            if path == "/v1/health" { return .respond(status: 404) }
            // Another app's image: served to anyone (and must reach it without the token).
            if path == "/photos/\(shas[3])" { return .respond(status: 200, headers: ["Content-Type": "image/png"], body: bytes[3]) }
            guard head.headers["authorization"] == "Bearer \(Self.token)" else {
                return .respond(status: 401, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"unauthorized"}"#.utf8))
            }
            if path.hasPrefix("/v1/changes") {
                let here = port.withLock { $0 }
                let urls = [
                    "http://localhost:\(here)/v1/images/\(shas[0])", "http://kitchen-pi.invalid:8080/v1/images/\(shas[1])",
                    "https://proxy.invalid/recipes/v1/images/\(shas[2])", "http://localhost:\(here)/photos/\(shas[3])",
                ]
                let since = path.contains("since=0")
                let changes = since ? (0..<4).map { index in
                    HostilePullTests.change(seq: index + 1, uuid: uuids[index], title: "Recipe \(index + 1)", imageURL: urls[index])
                } : []
                let body = "{\"server\":\"\(Self.server)\",\"changes\":[\(changes.joined(separator: ","))],\"next\":4,\"more\":false}"
                return .respond(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            }
            for index in 0..<3 where path == "/v1/images/\(shas[index])" {
                return .respond(status: 200, headers: ["Content-Type": "image/png", "ETag": "\"\(shas[index])\""], body: bytes[index])
            }
            return .respond(status: 404, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"not found"}"#.utf8))
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let home = try ClientHome()
        let recorder = EventRecorder()
        let settings = SyncSettings(
            api: ServerAPI(baseURL: server.baseURL), token: Self.token, probe: .constant(true), random: FixedRandomSource(1),
            pollInterval: .milliseconds(10), baseDelay: .seconds(60), maxDelay: .seconds(300))
        let summary = try await SyncRun(
            store: home.store, settings: settings, options: SyncOptions(direction: .pullOnly), emit: recorder.emit
        ).run()

        #expect(summary.pulled == 4 && summary.verdict == .complete, "\(summary) \(recorder.events(.skipped))")
        for index in 0..<4 {
            #expect(try home.store.recipe(uuid: uuids[index])?.image?.sha256 == shas[index], "recipe \(index + 1)")
        }
        #expect(try home.store.feedCursor() == FeedCursor(server: Self.server, seq: 4))
        let images = server.heads.filter { $0.path.contains(shas[0]) || $0.path.contains(shas[1]) || $0.path.contains(shas[2]) }
        #expect(images.count == 3 && images.allSatisfy { $0.headers["authorization"] == "Bearer \(Self.token)" }, "\(images)")
        let other = server.heads.filter { $0.path == "/photos/\(shas[3])" }
        #expect(other.count == 1 && other.allSatisfy { $0.headers["authorization"] == nil }, "the token went to another origin")
    }
}
