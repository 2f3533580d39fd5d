import Foundation
import RecipeModels

/// Sleeping until a moment of the wall clock. The watcher's retry timer, its Mealie pull and its probes come due at
/// wall-clock times (what the store records), but a task sleeps on a clock that never jumps: a delay computed once
/// from the wall clock and slept in one piece would wake when the old delay ends, not when the wall clock says — an
/// hour's retry wait on a board without a real-time clock, whose clock NTP moves two hours forward after boot, would
/// still be slept in full. So the sleep goes in slices of at most `slice`, the wall clock read again after each.
/// A time further ahead than any wait a sync records (`SyncInfo.longestWait`) says the clock was set back since it
/// was computed (or was wrong then): it is due now, as the store reads such a wait (`SyncInfo.waitIsAhead`).
enum WallClockSleep {
    /// The longest the watcher sleeps without reading the wall clock again.
    static let slice: TimeInterval = 30

    /// How long to sleep before reading the wall clock again, when it says `now`, to wake at `time`; nil when `time`
    /// has come, or is further ahead than any wait a sync records.
    static func next(until time: Date, now: Date, slice: TimeInterval = slice) -> TimeInterval? {
        let delay = time.timeIntervalSince(now)
        guard delay > 0, delay <= SyncInfo.longestWait else { return nil }
        return min(delay, slice)
    }
}
