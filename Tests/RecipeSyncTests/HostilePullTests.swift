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

/// A scripted server whose changes feed names three recipes: the first with a good image, the second with an image
/// the server serves with other bytes, a 404, or too many bytes, the third with a good image. The pull must apply
/// the first and the third, go past the second with one clear message (stored for `status`), keep no byte of its
/// image, and leave the cursor before it; once the server serves the image, the next pull applies it.
@Suite("A pull from a hostile or broken server goes past that recipe with one clear message and holds back no other")
struct HostilePullTests {
    static let server = "hostile-server-id"

    /// What the image URL of the second recipe answers.
    enum BadImage: Sendable, CustomTestStringConvertible {
        case otherBytes, missing, tooLarge
        var testDescription: String {
            switch self {
            case .otherBytes: "bytes whose SHA-256 is not the one the URL names"
            case .missing: "404 for an image the feed names"
            case .tooLarge: "more bytes than the image limit"
            }
        }
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// A change of the feed: recipe `uuid` at version 1 with image `sha`.
    static func change(seq: Int, uuid: UUID, title: String, imageURL: String) -> String {
        """
        {"seq":\(seq),"uuid":"\(uuid.lowercasedString)","version":1,"deleted":false,"recipe":{"@context":"https://schema.org",\
        "@type":"Recipe","identifier":"\(uuid.lowercasedString)","version":1,"name":"\(title)","description":"",\
        "recipeYield":"","keywords":"","recipeIngredient":[],"recipeInstructions":[],"image":"\(imageURL)",\
        "dateModified":"2026-11-24T10:00:00Z"}}
        """
    }

    /// A run that pulls only, one attempt per request (the first retry waits longer than `--max-wait`).
    func pull(_ home: ClientHome, _ server: LoopbackHTTPServer, recorder: EventRecorder) async throws -> SyncSummary {
        let settings = SyncSettings(
            api: ServerAPI(baseURL: server.baseURL), probe: .constant(true), random: FixedRandomSource(1),
            pollInterval: .milliseconds(10), baseDelay: .seconds(60), maxDelay: .seconds(300))
        return try await SyncRun(
            store: home.store, settings: settings, options: SyncOptions(direction: .pullOnly), emit: recorder.emit
        ).run()
    }

    @Test("a bad image holds back only its recipe: the ones before and after applied, the cursor before it, then fetched",
          arguments: [BadImage.otherBytes, .missing, .tooLarge])
    func badImage(_ bad: BadImage) async throws {
        let good = Data(pngBytes(size: 2048, seed: 1)), second = Data(pngBytes(size: 2048, seed: 2))
        let third = Data(pngBytes(size: 2048, seed: 3))
        // Made before the server answers, so that its answer starts at once (the client's low-speed limit is 30 s).
        let wrong = Data(pngBytes(size: 2048, seed: 9)), tooLarge = Data(pngBytes(size: 21 * 1024 * 1024, seed: 2))
        let uuids = [UUID(), UUID(), UUID()]
        let shas = [good, second, third].map(Self.sha256)
        let base = Locked("")
        let repaired = Locked(false)  // the server serves the second image as it should
        let server = try LoopbackHTTPServer { head in
            let path = head.path
            if path.hasPrefix("/v1/changes") {
                let url = base.withLock { $0 }
                // The changes after `since`, as the contract's feed lists them.
                let since = path.split(separator: "?").last?.split(separator: "&").compactMap { pair -> Int? in
                    pair.hasPrefix("since=") ? Int(pair.dropFirst(6)) : nil
                }.first ?? 0
                let changes = zip(uuids.indices, uuids).filter { $0.0 + 1 > since }.map { index, uuid in
                    Self.change(seq: index + 1, uuid: uuid, title: "Recipe \(index + 1)", imageURL: "\(url)/v1/images/\(shas[index])")
                }
                let body = "{\"server\":\"\(Self.server)\",\"changes\":[\(changes.joined(separator: ","))],\"next\":3,\"more\":false}"
                return .respond(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            }
            // An older server: no optional requests. (Not the bad image: the run's health ask goes beside the pull's
            // first page, and two 21 MiB answers made at once took the server longer than the low-speed limit under
            // the thread sanitizer.)
            if path == "/v1/health" { return .respond(status: 404, headers: ["Content-Type": "application/json"], body: Data("{}".utf8)) }
            let png = ["Content-Type": "image/png"]
            if path.hasSuffix(shas[0]) { return .respond(status: 200, headers: png, body: good) }
            if path.hasSuffix(shas[2]) { return .respond(status: 200, headers: png, body: third) }
            if repaired.withLock({ $0 }) { return .respond(status: 200, headers: png, body: second) }
            switch bad {
            case .otherBytes: return .respond(status: 200, headers: png, body: wrong)
            case .missing: return .respond(status: 404, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"not found"}"#.utf8))
            case .tooLarge: return .respond(status: 200, headers: png, body: tooLarge)
            }
        }
        defer { server.stop() }
        base.withLock { $0 = server.baseURL }
        let home = try ClientHome()
        let recorder = EventRecorder()

        let summary = try await pull(home, server, recorder: recorder)
        #expect(summary.pulled == 2, "\(summary)")
        #expect(summary.verdict != .complete, "a recipe was left behind: \(summary)")
        let skipped = recorder.events(.skipped)
        #expect(skipped.count == 1 && skipped.first?.uuid == uuids[1], "\(skipped)")
        let message = try #require(skipped.first?.error)
        #expect(message.hasPrefix("not pulled yet, its image did not download: "), "\(message)")
        #expect(message.hasSuffix("; the recipes after it are pulled, the next sync tries it again"), "\(message)")
        switch bad {
        case .otherBytes: #expect(message.contains("SHA-256"), "\(message)")
        case .missing: #expect(message.contains("404"), "\(message)")
        case .tooLarge: #expect(message.contains("larger than"), "\(message)")
        }
        // The first and third recipes are here; the cursor is before the second (it is pulled again next time), which
        // is recorded as still to come, with why.
        #expect(try home.store.recipe(uuid: uuids[0])?.sync.state == .synced)
        #expect(try home.store.recipe(uuid: uuids[1]) == nil)
        #expect(try home.store.recipe(uuid: uuids[2])?.sync.state == .synced, "the recipe after the bad one waits for it")
        #expect(try home.store.feedCursor() == FeedCursor(server: Self.server, seq: 1))
        let toCome = try home.store.pullsToCome()
        #expect(toCome.map(\.uuid) == [uuids[1]] && toCome.first?.seq == 2 && toCome.first?.title == "Recipe 2", "\(toCome)")
        #expect(toCome.first.map { $0.reason.hasPrefix("its image did not download: ") } == true, "\(toCome)")
        #expect(toCome.first?.statusLine.hasPrefix("still to come from the server: \"Recipe 2\" (uuid \(uuids[1].lowercasedString.prefix(8))): its image did not download: ") == true)
        // images/ holds the good images only: no half image, no wrong bytes, no temporary file.
        let images = try FileManager.default.contentsOfDirectory(atPath: home.store.home.imagesURL.path).filter { $0 != ".lock" }
        #expect(Set(images) == ["\(shas[0]).png", "\(shas[2]).png"], "\(images)")

        // Once the server serves the image, the next pull fetches it: every recipe here, nothing left to come.
        repaired.withLock { $0 = true }
        let later = EventRecorder()
        let again = try await pull(home, server, recorder: later)
        #expect(again.pulled == 1 && again.verdict == .complete, "\(again)")
        #expect(try home.store.recipe(uuid: uuids[1])?.image?.sha256 == shas[1])
        #expect(try home.store.feedCursor() == FeedCursor(server: Self.server, seq: 3))
        #expect(try home.store.pullsToCome().isEmpty)
        #expect(later.events(.pulled).map(\.uuid) == [uuids[1]], "the recipes pulled before are not pulled again")
    }

    @Test("a changes page that is not the feed: nothing applied, the cursor where it was, one message naming it")
    func malformedPage() async throws {
        let server = try LoopbackHTTPServer { head in
            head.path.hasPrefix("/v1/changes")
                ? .respond(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"changes":"soon"}"#.utf8))
                : .respond(status: 404)
        }
        defer { server.stop() }
        let home = try ClientHome()
        let recorder = EventRecorder()
        let summary = try await pull(home, server, recorder: recorder)
        let stopped = try #require(summary.pullStopped, "\(summary)")
        #expect(stopped.words.contains("not the recipe server's changes feed"), "\(stopped)")
        #expect(stopped.cause == .failed, "a page that is not the feed is no reason to wait for the network")
        #expect(summary.verdict != .complete)
        #expect(try home.store.feedCursor() == FeedCursor(server: nil, seq: 0))
        #expect(try home.store.recipes().isEmpty)
    }
}
