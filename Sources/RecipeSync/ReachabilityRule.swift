import Foundation

/// How "can this destination be reached now?" is decided from what is known of it: a plain function tested from a
/// table, with the time passed in.
///
/// A reachability answer never contradicts transfers in flight: an answer from the destination in the last
/// `transferWindow` seconds (or in the last `inFlightWindow` seconds while transfers to it are still in flight) means
/// reachable, whatever a probe said — a slow or lost SYN on a busy link is not "offline". A failure to connect after
/// that answer, with nothing else in flight, voids it. Without such evidence a probe's answer stands for
/// `probeLifetime` seconds; after that, probe again.
public enum ReachabilityRule {
    /// A probe's answer and when it came.
    public struct ProbeAnswer: Sendable, Equatable {
        public var reachable: Bool
        public var at: Date

        public init(reachable: Bool, at: Date) {
            self.reachable = reachable
            self.at = at
        }
    }

    /// What is known of one destination.
    public struct Evidence: Sendable, Equatable {
        /// The last probe's answer, if one is remembered.
        public var probe: ProbeAnswer?
        /// When a transfer to the destination last got an answer (any HTTP status).
        public var lastTransfer: Date?
        /// When a transfer to it last failed to connect (refused, timed out, the name unresolved).
        public var lastConnectFailure: Date?
        /// Transfers to it under way.
        public var inFlight = 0

        public init(probe: ProbeAnswer? = nil, lastTransfer: Date? = nil, lastConnectFailure: Date? = nil, inFlight: Int = 0) {
            self.probe = probe
            self.lastTransfer = lastTransfer
            self.lastConnectFailure = lastConnectFailure
            self.inFlight = inFlight
        }
    }

    /// The answer: known either way, or a probe is needed.
    public enum Answer: Sendable, Equatable {
        case reachable
        case unreachable
        case probe
    }

    /// How long a probe's answer stands, in seconds (a run of a thousand recipes probes a handful of times).
    public static let probeLifetime: TimeInterval = 1
    /// How long an answer from the destination means "reachable", in seconds.
    public static let transferWindow: TimeInterval = 10
    /// How long it does while transfers to the destination are still in flight (a long upload), in seconds.
    public static let inFlightWindow: TimeInterval = 120

    /// The answer for `evidence` at `now`. Evidence dated after `now` (the wall clock stepped back) is ignored.
    public static func decide(_ evidence: Evidence, now: Date) -> Answer {
        if let last = evidence.lastTransfer {
            let age = now.timeIntervalSince(last)
            let window = evidence.inFlight > 0 ? inFlightWindow : transferWindow
            let voided = evidence.inFlight == 0 && evidence.lastConnectFailure.map { $0 >= last } == true
            if age >= 0, age < window, !voided { return .reachable }
        }
        if let probe = evidence.probe {
            let age = now.timeIntervalSince(probe.at)
            if age >= 0, age < probeLifetime { return probe.reachable ? .reachable : .unreachable }
        }
        return .probe
    }
}
