import Foundation

/// Lets through at most one progress report per `interval` for each key (the contract's "at most 10 progress events
/// per second per recipe"), and always the one that completes the transfer.
public struct ProgressThrottle: Sendable {
    /// The shortest gap between two reports of one key.
    public let interval: TimeInterval
    private var last: [Int64: Date] = [:]

    /// Creates a throttle; the default interval allows 10 reports per second.
    public init(interval: TimeInterval = 0.1) { self.interval = interval }

    /// Whether a report of `completed` of `total` bytes for `key` at `now` should be shown; records it if so.
    public mutating func admit(_ key: Int64, completed: Int64, total: Int64?, at now: Date) -> Bool {
        let complete = total.map { $0 > 0 && completed >= $0 } ?? false
        if !complete, let previous = last[key], now.timeIntervalSince(previous) < interval { return false }
        last[key] = now
        return true
    }

    /// Forgets `key` (its step finished).
    public mutating func forget(_ key: Int64) { last[key] = nil }
}
