import Foundation
import HTTPTestSupport
import RecipesTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How the lying server's long poll lies.
enum LongPollLie: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// It answers at once with the change the cursor is already at.
    case passedChange
    /// It answers at once with a change after the cursor that its feed never lists.
    case unlistedChange

    var testDescription: String { rawValue }
}

/// A loopback server that speaks the feed and lies in its long poll (`wait=` in the query), answering at once.
func lyingServer(_ lie: LongPollLie) throws -> LoopbackHTTPServer {
    let json = ["content-type": "application/json"]
    @Sendable func page(_ seqs: [Int64], next: Int64) -> Data {
        let changes = seqs.map { #"{"seq":\#($0),"uuid":"8d7e4a43-0b0f-4f4b-9a3e-1f2d3c4b5a69","version":2,"deleted":true}"# }
        return Data(#"{"server":"liar","changes":[\#(changes.joined(separator: ","))],"next":\#(next),"more":false}"#.utf8)
    }
    return try LoopbackHTTPServer { head in
        let components = URLComponents(string: "http://x" + head.path)
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
        switch components?.path {
        case "/v1/health":
            return .respond(status: 200, headers: json, body: Data(#"{"status":"ok","server":"liar"}"#.utf8))
        case "/v1/changes":
            let since = Int64(query["since"] ?? "") ?? 0
            let longPoll = query["wait"] != nil
            switch (lie, longPoll) {
            case (.passedChange, false):
                // The feed has one change, 5 (a recipe deleted that this home never had).
                return .respond(status: 200, headers: json, body: since < 5 ? page([5], next: 5) : page([], next: since))
            case (.passedChange, true):
                return .respond(status: 200, headers: json, body: page([5], next: 5))
            case (.unlistedChange, false):
                return .respond(status: 200, headers: json, body: page([], next: since))
            case (.unlistedChange, true):
                return .respond(status: 200, headers: json, body: page([since + 1], next: since + 1))
            }
        default:
            return .respond(status: 404, headers: json, body: Data(#"{"error":"not found"}"#.utf8))
        }
    }
}

@Suite("sync --watch and a long poll that lies: no busy loop", .serialized)
struct WatchLyingLongPollTests {
    @Test("a long poll answering at once with a change the cursor has passed, or one the feed never lists, is renewed after a back-off (1 s, 2 s, 4 s…), not 20 times a second", arguments: LongPollLie.allCases)
    func backsOff(_ lie: LongPollLie) throws {
        let server = try lyingServer(lie)
        defer { server.stop() }
        let here = Client(serverURL: server.baseURL)
        let watcher = try startWatcher(here)
        let start = monotonicNow()
        let longPolls = { server.heads.filter { $0.path.hasPrefix("/v1/changes") && $0.path.contains("wait=") }.count }
        #expect(waitUntil(timeout: 60) { longPolls() >= 2 }, "the long poll was not renewed: \(watcher.stdout)")
        pause(max(0, 10 - (monotonicNow() - start)))
        let polls = longPolls()
        let passes = watchNotices(watcher, "sync").count
        let seconds = monotonicNow() - start
        note("\(lie): \(polls) long polls and \(passes) passes in \(String(format: "%.1f", seconds)) s")
        // Renewed at 0, 1, 3, 7 s… (plus the passes' time): at most 5 in these 10 s; a busy loop makes hundreds.
        #expect(polls <= 6, "\(polls) long polls and \(passes) passes in \(seconds) s: \(watcher.stdout)")
        #expect(passes <= 7, "\(polls) long polls and \(passes) passes in \(seconds) s")
        watcher.send(SIGTERM)
        #expect(watcher.result(timeout: 60).status == 0)
    }
}
