import Foundation
import RecipeModels
@testable import SyncWatch
import Testing

@Suite("The watcher's sleeps until a wall-clock time: in slices, the wall clock read again after each")
struct WallClockSleepTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("How long to sleep before reading the wall clock again", arguments: [
        ("an hour ahead: one slice, then the clock is read again", 3600.0, 30.0 as TimeInterval?),
        ("ten seconds ahead: those ten seconds", 10, 10),
        ("the time has come", 0, nil),
        ("the time has passed (the clock moved forward past it)", -7200, nil),
        ("the longest wait a sync records: still slept", SyncInfo.longestWait, 30),
        ("further ahead than any wait a sync records (the clock was set back): due now", SyncInfo.longestWait + 1, nil),
    ] as [(String, TimeInterval, TimeInterval?)])
    func next(_ what: String, ahead: TimeInterval, sleep: TimeInterval?) {
        #expect(WallClockSleep.next(until: Self.start.addingTimeInterval(ahead), now: Self.start) == sleep, "\(what)")
    }

    @Test("An hour's wait with the clock moved two hours forward during the second slice: it ends after that slice")
    func clockMovedForward() {
        let time = Self.start.addingTimeInterval(3600)
        var now = Self.start
        var slept: [TimeInterval] = []
        while let delay = WallClockSleep.next(until: time, now: now), slept.count < 200 {
            slept.append(delay)
            now = now.addingTimeInterval(delay + (slept.count == 2 ? 7200 : 0))
        }
        #expect(slept == [30, 30])
    }
}
