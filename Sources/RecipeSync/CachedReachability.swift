import Foundation
import Locking
import OperationEngine
import Transport

/// The reachability condition's probe for one server, remembering the answer for a moment so that a run of a
/// thousand recipes opens a handful of probe connections rather than one per recipe.
final class CachedReachability: ReachabilityProbe {
    private let url: String
    private let probe: ConnectProbe
    private let lifetime: TimeInterval
    private let now: @Sendable () -> Date
    private let answer = Locked<(reachable: Bool, at: Date)?>(nil)

    /// Asks `probe` about `url`; an answer is reused for `lifetime` seconds of `now`'s clock.
    init(url: String, probe: ConnectProbe, lifetime: TimeInterval = 1,
         now: @escaping @Sendable () -> Date = { Date() }) {
        self.url = url
        self.probe = probe
        self.lifetime = lifetime
        self.now = now
    }

    /// Whether the server answered recently or answers now (`host`/`port` are the condition's, the same server).
    func isReachable(host: String, port: Int) async -> Bool {
        if let cached = freshAnswer() { return cached }
        let reachable = await probe.isReachable(url: url)
        answer.withLock { $0 = (reachable, now()) }
        return reachable
    }

    /// Whether the server answered "reachable" less than `lifetime` ago: the engine then makes a step ready without
    /// starting a task to ask (a 1,000-recipe sync asks about 2,000 times).
    func isKnownReachable(host: String, port: Int) -> Bool { freshAnswer() == true }

    /// The remembered answer while it is younger than `lifetime`.
    private func freshAnswer() -> Bool? {
        guard let cached = answer.withLock({ $0 }), now().timeIntervalSince(cached.at) < lifetime else { return nil }
        return cached.reachable
    }

    /// Forgets the remembered answer (after a transfer failed to connect, for instance).
    func invalidate() { answer.withLock { $0 = nil } }
}
