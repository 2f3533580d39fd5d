/// Answers whether a host can be reached now (a live probe opens a TCP connection; a test double answers as told).
public protocol ReachabilityProbe: Sendable {
    /// Whether `host:port` accepts connections now.
    func isReachable(host: String, port: Int) async -> Bool
    /// Whether `host:port` is known to be reachable without asking (a recent answer). Default: `false` (ask).
    func isKnownReachable(host: String, port: Int) -> Bool
}

extension ReachabilityProbe {
    /// Nothing is known without asking.
    public func isKnownReachable(host: String, port: Int) -> Bool { false }
}

/// Holds when the host answers the injected probe; otherwise fails with `EngineError.unreachable`, which retry
/// policies classify as "not now" (no attempt counted; wait for the network or defer).
public struct ReachabilityCondition: ProcedureCondition {
    /// The host to reach.
    public let host: String
    /// The port to reach.
    public let port: Int
    private let probe: any ReachabilityProbe

    /// Creates the condition for `host:port`, checked with `probe`.
    public init(host: String, port: Int, probe: any ReachabilityProbe) {
        self.host = host
        self.port = port
        self.probe = probe
    }

    /// `Reachability(<host>:<port>)`.
    public var name: String { "Reachability(\(host):\(port))" }

    /// Holds at once when the probe already knows the host is reachable (a recent answer).
    public func holdsWithoutEvaluation(_ context: ConditionContext) -> Bool {
        probe.isKnownReachable(host: host, port: port)
    }

    /// Asks the probe; throws `EngineError.unreachable` when the host does not answer.
    public func evaluate(_ context: ConditionContext) async throws {
        guard await probe.isReachable(host: host, port: port) else {
            throw EngineError.unreachable(host: host, port: port)
        }
    }
}
