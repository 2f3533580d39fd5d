import Foundation
import GRDB
import HTTPTestSupport
import Locking
import OperationEngineTestSupport
import RecipeModels
import RecipeStore
import RecipeSync
import RecipesTestSupport
import Testing
import Transport

/// A scripted contract server: its changes feed answers from `feed` by the `since` asked, and every other request from
/// `answer` (nil: 404).
func scriptedServer(
    feed: @escaping @Sendable (_ since: Int64) -> String,
    answer: @escaping @Sendable (LoopbackHTTPServer.Head) -> LoopbackHTTPServer.Behavior? = { _ in nil }
) throws -> LoopbackHTTPServer {
    let json = ["Content-Type": "application/json"]
    return try LoopbackHTTPServer { head in
        if head.path.hasPrefix("/v1/changes") {
            let since = head.path.split(separator: "?").last?.split(separator: "&")
                .first { $0.hasPrefix("since=") }.flatMap { Int64($0.dropFirst(6)) } ?? 0
            return .respond(status: 200, headers: json, body: Data(feed(since).utf8))
        }
        return answer(head) ?? .respond(status: 404, headers: json, body: Data(#"{"error":"not_found","message":"no"}"#.utf8))
    }
}

/// A recipe document as the contract's JSON writes it; `name` and `ingredient` are JSON string contents (escapes
/// written as they go on the wire).
func recipeDocument(_ uuid: UUID, version: String, name: String, ingredient: String = "salt and pepper") -> String {
    """
    {"@context":"https://schema.org","@type":"Recipe","identifier":"\(uuid.lowercasedString)","version":\(version),\
    "name":"\(name)","description":"","recipeYield":"","keywords":"","recipeIngredient":["\(ingredient)"],\
    "recipeInstructions":[],"dateModified":"2026-11-24T10:00:00Z"}
    """
}

/// One change of a feed page.
func feedChange(seq: Int, _ uuid: UUID, version: String, document: String?) -> String {
    let deleted = document == nil
    return "{\"seq\":\(seq),\"uuid\":\"\(uuid.lowercasedString)\",\"version\":\(version),\"deleted\":\(deleted)"
        + (document.map { ",\"recipe\":\($0)" } ?? "") + "}"
}

/// A feed page of server `server-1`.
func feedPage(_ changes: [String], next: Int, more: Bool = false) -> String {
    "{\"server\":\"server-1\",\"changes\":[\(changes.joined(separator: ","))],\"next\":\(next),\"more\":\(more)}"
}

/// Settings for runs against a scripted server: one attempt per request (retries wait past `--max-wait`).
func scriptedSettings(_ server: LoopbackHTTPServer) -> SyncSettings {
    SyncSettings(
        api: ServerAPI(baseURL: server.baseURL), probe: .constant(true), random: FixedRandomSource(1),
        pollInterval: .milliseconds(10), baseDelay: .seconds(60), maxDelay: .seconds(300))
}

@Suite("What a server sends is held to the store's rules: text, titles, list lengths and every number")
struct ServerCopyRulesTests {
    @Test("the server's copies the store refuses, from a table, and those it takes")
    func refusals() {
        func live(_ version: Int64 = 2, title: String = "Soup", ingredients: [String] = []) -> ServerCopy {
            .live(version: version, fields: RecipeFields(title: title, ingredients: ingredients))
        }
        let refused: [(ServerCopy, String)] = [
            (live(title: "Soup\u{0} (grandma version)"), "its title contains a NUL byte (\\0), which recipes cannot store"),
            (live(ingredients: ["salt\u{0} and pepper"]), "its ingredient contains a NUL byte (\\0)"),
            (live(title: "Soup \u{1B}[31m"), "its title contains the control character U+001B"),
            (live(title: "   "), "its title is blank"),
            (live(ingredients: Array(repeating: "x", count: RecipeLimits.listLength + 1)), "it has 1001 ingredients"),
            (live(Int64.max), "the server's version number 9223372036854775807 is out of range"),
            (.deleted(version: Int64.max), "out of range (recipes takes 1 to 9007199254740991)"),
            (live(0), "version number 0 is out of range"),
            (.deleted(version: -1), "version number -1 is out of range"),
        ]
        for (copy, words) in refused {
            let reason = RecipeStore.refusal(of: copy)
            #expect(reason?.contains(words) == true, "\(copy): \(reason ?? "taken")")
        }
        for copy in [live(), live(ServerNumbers.maximum, title: "Soup\tbowl"), .deleted(version: 3)] {
            #expect(RecipeStore.refusal(of: copy) == nil, "\(copy)")
        }
        #expect(ServerNumbers.next(after: nil) == 1 && ServerNumbers.next(after: 41) == 42)
        #expect(ServerNumbers.next(after: ServerNumbers.maximum) == nil && ServerNumbers.next(after: Int64.max) == nil)
        #expect(ServerNumbers.next(after: 0) == nil && ServerNumbers.next(after: -5) == nil)
    }

    @Test("a feed's numbers are read exactly: no rounding through a Double, no true as 1, positions in bounds")
    func exactNumbers() throws {
        let uuid = UUID()
        let document = recipeDocument(uuid, version: "9007199254740993", name: "Soup")
        let page = try #require(ChangesPage(Data(feedPage(
            [feedChange(seq: 1, uuid, version: "9007199254740993", document: document)], next: 1).utf8)))
        #expect(page.changes.first?.version == 9_007_199_254_740_993, "read exactly, refused later by the store")
        #expect(ChangesPage(Data(feedPage([feedChange(seq: 1, uuid, version: "true", document: nil)], next: 1).utf8)) == nil)
        #expect(ChangesPage(Data(feedPage([feedChange(seq: 1, uuid, version: "1.5", document: nil)], next: 1).utf8)) == nil)
        #expect(ChangesPage(Data(feedPage([], next: -1).utf8)) == nil)
        #expect(ChangesPage(Data(feedPage([feedChange(seq: 0, uuid, version: "1", document: nil)], next: 0).utf8)) == nil)
        #expect(ChangesPage(Data(feedPage(
            [feedChange(seq: Int(Int64.max), uuid, version: "1", document: nil)], next: Int(Int64.max)).utf8)) == nil)
    }

    @Test("NUL and control characters in a pulled recipe: that change is refused, named, the cursor moves on, and nothing shortened is ever pushed over the server's copy")
    func nulTextIsNeverCut() async throws {
        let existing = UUID(), added = UUID(), escaped = UUID(), blank = UUID()
        let server = try scriptedServer(feed: { since in
            if since == 0 {
                return feedPage([feedChange(seq: 1, existing, version: "1", document: recipeDocument(
                    existing, version: "1", name: "Soup (grandma version)"))], next: 1)
            }
            if since == 1 {
                return feedPage([
                    feedChange(seq: 2, existing, version: "2", document: recipeDocument(
                        existing, version: "2", name: "Soup\\u0000 (grandma version)", ingredient: "salt\\u0000 and pepper")),
                    feedChange(seq: 3, added, version: "1", document: recipeDocument(added, version: "1", name: "Stew\\u0000")),
                    feedChange(seq: 4, escaped, version: "1", document: recipeDocument(escaped, version: "1", name: "Red \\u001b[31m")),
                    feedChange(seq: 5, blank, version: "1", document: recipeDocument(blank, version: "1", name: "  ")),
                ], next: 5)
            }
            return feedPage([], next: Int(since))
        }, answer: { head in
            let json = ["Content-Type": "application/json"]
            if head.method == "PUT", head.path.hasPrefix("/v1/recipes/") {
                return .respond(status: 412, headers: json, body: Data(#"{"error":"stale","version":2,"deleted":false}"#.utf8))
            }
            if head.method == "GET", head.path == "/v1/recipes/\(existing.lowercasedString)" {
                return .respond(status: 200, headers: json, body: Data(recipeDocument(
                    existing, version: "2", name: "Soup\\u0000 (grandma version)", ingredient: "salt\\u0000 and pepper").utf8))
            }
            return nil
        })
        defer { server.stop() }
        let home = try ClientHome()
        let settings = scriptedSettings(server)
        func run(_ direction: SyncOptions.Direction, _ recorder: EventRecorder) async throws -> SyncSummary {
            try await SyncRun(store: home.store, settings: settings, options: SyncOptions(direction: direction),
                              emit: recorder.emit).run()
        }
        _ = try await run(.pullOnly, EventRecorder())
        let local = try #require(try home.store.recipe(uuid: existing))
        #expect(local.title == "Soup (grandma version)" && local.sync.state == .synced)

        let recorder = EventRecorder()
        let summary = try await run(.pullOnly, recorder)
        #expect(summary.failed == 4 && summary.verdict == .someFailed, "\(summary)")
        let failed = recorder.events(.failed)
        #expect(Set(failed.map(\.uuid)) == [existing, added, escaped, blank])
        let message = try #require(failed.first { $0.uuid == existing }?.error)
        #expect(message == "not pulled: the server's version 2 is not taken: its title contains a NUL byte (\\0), which "
            + "recipes cannot store; this device keeps its copy: fix the recipe on the server", "\(message)")
        #expect(failed.first { $0.uuid == blank }?.error?.contains("its title is blank") == true)
        let kept = try #require(try home.store.recipe(uuid: existing))
        #expect(kept.title == "Soup (grandma version)" && kept.ingredients.map(\.text) == ["salt and pepper"])
        #expect(kept.sync.state == .synced && kept.sync.serverVersion == 1)
        for uuid in [added, escaped, blank] { #expect(try home.store.recipe(uuid: uuid) == nil) }
        #expect(try home.store.feedCursor() == FeedCursor(server: "server-1", seq: 5), "the cursor moves past them")

        // An edit here is pushed over version 1; the server has version 2, which is refused again: the recipe fails
        // with the reason, and no text was ever cut short.
        try home.store.apply(.addStep("Serve hot."), to: kept.id)
        let pushed = EventRecorder()
        let push = try await run(.pushOnly, pushed)
        #expect(push.failed == 1, "\(push)")
        let after = try home.store.recipe(id: kept.id)
        #expect(after.sync.state == .failed && after.title == "Soup (grandma version)")
        #expect(after.sync.lastError?.contains("not sent over the server's copy: the server's version 2 is not taken: "
            + "its title contains a NUL byte") == true, "\(after.sync.lastError ?? "")")
        let bodies = server.received.filter { $0.head.method == "PUT" }.compactMap(\.body)
        #expect(!bodies.isEmpty && bodies.allSatisfy { String(decoding: $0, as: UTF8.self).contains("Soup (grandma version)") })
    }

    @Test("an absurd version never crashes a sync: a tombstone at 2^63 - 1 is refused, a stored one fails its recipe alone, and other recipes still upload")
    func absurdVersions() async throws {
        let pulled = UUID()
        let server = try scriptedServer(feed: { since in
            if since == 0 {
                return feedPage([feedChange(seq: 1, pulled, version: "1", document: recipeDocument(pulled, version: "1", name: "Soup"))],
                                next: 1)
            }
            if since == 1 { return feedPage([feedChange(seq: 2, pulled, version: "9223372036854775807", document: nil)], next: 2) }
            return feedPage([], next: Int(since))
        }, answer: { head in
            guard head.method == "PUT", head.path.hasPrefix("/v1/recipes/") else { return nil }
            let uuid = head.path.dropFirst("/v1/recipes/".count)
            return .respond(status: 201, headers: ["Content-Type": "application/json"],
                            body: Data(#"{"identifier":"\#(uuid)","version":1}"#.utf8))
        })
        defer { server.stop() }
        let home = try ClientHome()
        let settings = scriptedSettings(server)
        func run(_ direction: SyncOptions.Direction, _ recorder: EventRecorder = EventRecorder()) async throws -> SyncSummary {
            try await SyncRun(store: home.store, settings: settings, options: SyncOptions(direction: direction),
                              emit: recorder.emit).run()
        }
        _ = try await run(.pullOnly)
        let recorder = EventRecorder()
        let summary = try await run(.pullOnly, recorder)
        #expect(summary.failed == 1)
        #expect(recorder.events(.failed).first?.error?.contains("version number 9223372036854775807 is out of range") == true)
        let kept = try #require(try home.store.recipe(uuid: pulled))
        #expect(kept.sync.serverVersion == 1 && kept.sync.conflict == nil, "the tombstone was not applied")

        // A home that stored such a version before it was refused: that recipe fails with words, the next uploads.
        let stored = try home.store.create(title: "Stored absurd")
        let queue = try DatabaseQueue(path: home.store.home.databaseURL.path)
        try await queue.write { db in
            try db.execute(sql: "UPDATE recipes SET server_version = ? WHERE id = ?", arguments: [Int64.max, stored.id])
        }
        try queue.close()
        let fresh = try home.store.create(title: "Made afterwards")
        let push = try await run(.pushOnly)
        #expect(push.failed == 1 && push.done == 1, "\(push)")
        #expect(try home.store.recipe(id: fresh.id).sync.state == .synced)
        let failed = try home.store.recipe(id: stored.id)
        #expect(failed.sync.state == .failed)
        #expect(failed.sync.lastError?.contains("9223372036854775807, is out of range") == true, "\(failed.sync.lastError ?? "")")
    }
}
