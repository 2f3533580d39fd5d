import Foundation
import RecipeModels
@testable import SyncWatch
import Testing

@Suite("What a sync pass's summary means to the watcher")
struct WatchPassTests {
    static let later = Date(timeIntervalSince1970: 1_790_000_300)

    static func summary(_ change: (inout SyncSummary) -> Void) -> SyncSummary {
        var summary = SyncSummary()
        change(&summary)
        return summary
    }

    @Test("each summary is read as the table says", arguments: [
        ("nothing to do", SyncSummary(), false, nil, WatchMachine.PassEnd.done),
        ("all uploaded", SyncSummary(done: 3), false, nil, .done),
        ("a retry comes due later", SyncSummary(done: 1, waiting: 1), false, later, .backoff(until: later)),
        ("a recipe failed for good (a person acts; nothing to retry)", SyncSummary(failed: 1), false, nil, .done),
        ("a conflict", SyncSummary(conflicts: 1), false, nil, .done),
        ("offline events", SyncSummary(waiting: 2), true, later, .waitingForNetwork),
        ("the run found the server unreachable before pulling",
         summary { $0.pullStopped = "cannot reach 127.0.0.1:9" }, false, nil, .waitingForNetwork),
        ("the pull's step found it unreachable",
         summary { $0.pullStopped = "127.0.0.1:9 is not reachable; nothing was sent. Check the network." }, false, nil,
         .waitingForNetwork),
        ("the pull stopped on a server error (the long poll backs off)",
         summary { $0.pullStopped = "changes: HTTP 503" }, false, nil, .done),
        ("credentials refused wins over everything", SyncSummary(waiting: 1, credentialsRefused: true), true, later,
         .credentialsRefused),
    ] as [(String, SyncSummary, Bool, Date?, WatchMachine.PassEnd)])
    func ends(_ what: String, summary: SyncSummary, sawOffline: Bool, nextRetry: Date?, expected: WatchMachine.PassEnd) {
        #expect(WatchPass.end(of: summary, sawOffline: sawOffline, nextRetry: nextRetry) == expected, "\(what)")
    }
}
