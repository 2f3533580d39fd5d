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
         summary { $0.pullStopped = PullStop(.unreachable, "cannot reach 127.0.0.1:9") }, false, nil, .waitingForNetwork),
        ("the pull's step found it unreachable, whatever the words",
         summary { $0.pullStopped = PullStop(.unreachable, "changes: HTTP 503") }, false, nil, .waitingForNetwork),
        ("the pull stopped on a server error (the long poll backs off), even in words that look like offline",
         summary { $0.pullStopped = PullStop(.failed, "cannot reach 127.0.0.1:9 is not reachable") }, false, nil, .done),
        ("an interrupted pull with a retry due waits for it",
         summary { $0.pullStopped = PullStop(.interrupted, "interrupted") }, false, later, .backoff(until: later)),
        ("credentials refused wins over everything", SyncSummary(waiting: 1, credentialsRefused: true), true, later,
         .credentialsRefused),
    ] as [(String, SyncSummary, Bool, Date?, WatchMachine.PassEnd)])
    func ends(_ what: String, summary: SyncSummary, sawOffline: Bool, nextRetry: Date?, expected: WatchMachine.PassEnd) {
        #expect(WatchPass.end(of: summary, sawOffline: sawOffline, nextRetry: nextRetry) == expected, "\(what)")
    }
}
