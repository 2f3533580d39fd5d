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
        ("nothing to do", SyncSummary(), false, nil, false, WatchMachine.PassEnd.done),
        ("all uploaded", SyncSummary(done: 3), false, nil, false, .done),
        ("a retry comes due later", SyncSummary(done: 1, waiting: 1), false, later, false, .backoff(until: later)),
        ("a recipe failed for good (a person acts; nothing to retry)", SyncSummary(failed: 1), false, nil, false, .done),
        ("a conflict", SyncSummary(conflicts: 1), false, nil, false, .done),
        ("offline events: the recipes wait to be sent", SyncSummary(waiting: 2), true, later, true,
         .waitingForNetwork(unsent: true)),
        ("the run found the server unreachable before pulling, nothing to send",
         summary { $0.pullStopped = PullStop(.unreachable, "cannot reach 127.0.0.1:9") }, false, nil, false,
         .waitingForNetwork(unsent: false)),
        ("unreachable before pulling with a recipe due: work unsent",
         summary { $0.pullStopped = PullStop(.unreachable, "cannot reach 127.0.0.1:9") }, false, nil, true,
         .waitingForNetwork(unsent: true)),
        ("unreachable with a retry due later: work unsent",
         summary { $0.pullStopped = PullStop(.unreachable, "cannot reach 127.0.0.1:9") }, false, later, false,
         .waitingForNetwork(unsent: true)),
        ("the pull's step found it unreachable, whatever the words",
         summary { $0.pullStopped = PullStop(.unreachable, "changes: HTTP 503") }, false, nil, false,
         .waitingForNetwork(unsent: false)),
        ("the pull stopped on a server error (the long poll backs off), even in words that look like offline",
         summary { $0.pullStopped = PullStop(.failed, "cannot reach 127.0.0.1:9 is not reachable") }, false, nil, false,
         .done),
        ("an interrupted pull with a retry due waits for it",
         summary { $0.pullStopped = PullStop(.interrupted, "interrupted") }, false, later, false, .backoff(until: later)),
        ("credentials refused wins over everything", SyncSummary(waiting: 1, credentialsRefused: true), true, later, true,
         .credentialsRefused),
    ] as [(String, SyncSummary, Bool, Date?, Bool, WatchMachine.PassEnd)])
    func ends(
        _ what: String, summary: SyncSummary, sawOffline: Bool, nextRetry: Date?, unsent: Bool,
        expected: WatchMachine.PassEnd
    ) {
        #expect(WatchPass.end(of: summary, sawOffline: sawOffline, nextRetry: nextRetry, unsent: unsent) == expected,
                "\(what)")
    }
}
