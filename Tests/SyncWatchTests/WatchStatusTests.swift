import Foundation
import RecipeModels
import RecipeStore
import RecipesTestSupport
@testable import SyncWatch
import Testing

@Suite("What the watcher tells `recipes status` of itself")
struct WatchStatusTests {
    static let since = Date(timeIntervalSince1970: 1_790_000_000)

    static func state(_ change: (inout WatchMachine.State) -> Void) -> WatchMachine.State {
        var state = WatchMachine.State()
        change(&state)
        return state
    }

    @Test("each state gives the line of the table", arguments: [
        ("reaching the server", state { $0.network = .reachable }, "watcher (pid 42): watching; the server answers"),
        ("gone, work waiting: when it asks again",
         state { $0.network = .offline; $0.retryProbe = since + 62 },
         "watcher (pid 42): the server has not answered since 2026-09-21T14:13:20Z; it tries again at "
            + "2026-09-21T14:14:22Z (then at most every 60 s) and sends what waits as soon as it answers"),
        ("gone, nothing to send: what wakes it",
         state { $0.network = .offline },
         "watcher (pid 42): the server has not answered since 2026-09-21T14:13:20Z; nothing waits to be sent, so it "
            + "waits for the network to change or an edit"),
        ("refused credentials: what a person does",
         state { $0.network = .reachable; $0.halted = .credentialsRefused },
         "watcher (pid 42): retries nothing on its own: the server refused the credentials; see its log, fix it, "
            + "then `kill -HUP 42`"),
    ] as [(String, WatchMachine.State, String)])
    func lines(_ what: String, state: WatchMachine.State, line: String) {
        #expect(WatchStatus(state, processID: 42, unreachableSince: Self.since).line == line, "\(what)")
    }

    @Test("read back only while its watcher holds the home's lock")
    func onlyWhileLocked() throws {
        let directory = TemporaryDirectory()
        let home = directory.home
        try home.createDirectories()
        let status = WatchStatus(processID: getpid(), unreachableSince: Self.since, nextProbe: Self.since + 2)
        #expect(status.write(to: home))
        #expect(WatchStatus.current(of: home) == nil)  // no watcher holds the lock
        let lock = try WatchLock(home: home)
        #expect(WatchStatus.current(of: home) == status)
        withExtendedLifetime(lock) {}
    }
}
