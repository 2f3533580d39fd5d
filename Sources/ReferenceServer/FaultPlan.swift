import Locking

/// What the fault rules decided for one request: a delay to add and at most one disruptive action.
public struct FaultDecision: Sendable, Equatable {
    /// The total latency of every firing latency rule.
    public var latency: Duration = .zero
    /// The first firing rule whose action is not latency, if any.
    public var rule: FaultRule?

    /// A decision that changes nothing.
    public static let none = FaultDecision()

    /// The names written to the request log's `fault` field, or nil when nothing fired.
    public var logDescription: String? {
        var parts: [String] = []
        if latency > .zero { parts.append("latency=\(latency.milliseconds)ms") }
        if let rule { parts.append(rule.action.logName) }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

/// The fault rules of one server with their counters: a deterministic state machine fed one request at a time.
public final class FaultPlan: Sendable {
    /// The per-rule counters and random generators.
    private struct State {
        var matched: [Int]
        var generators: [SplitMix64]
    }

    /// The rules, in the order given.
    public let rules: [FaultRule]
    private let state: Locked<State>

    /// Creates a plan whose counters start at zero.
    public init(rules: [FaultRule]) {
        self.rules = rules
        let generators = rules.map { rule -> SplitMix64 in
            if case .rate(_, let seed) = rule.selector { return SplitMix64(seed: seed) }
            return SplitMix64(seed: 0)
        }
        self.state = Locked(State(matched: Array(repeating: 0, count: rules.count), generators: generators))
    }

    /// Counts one request against every matching rule and returns what fires for it.
    public func decide(method: String, path: String) -> FaultDecision {
        guard !rules.isEmpty else { return .none }
        return state.withLock { state in
            var decision = FaultDecision()
            for (index, rule) in rules.enumerated() where rule.matches(method: method, path: path) {
                state.matched[index] += 1
                let count = state.matched[index]
                let fires: Bool
                switch rule.selector {
                case .always: fires = true
                case .first(let n): fires = count <= n
                case .every(let n): fires = count % n == 0
                case .rate(let p, _): fires = state.generators[index].nextUnitInterval() < p
                }
                guard fires else { continue }
                if case .latency(let delay) = rule.action {
                    decision.latency += delay
                } else if decision.rule == nil {
                    decision.rule = rule
                }
            }
            return decision
        }
    }
}

/// A tiny deterministic pseudo-random generator (SplitMix64), so `rate=` faults replay identically for a seed.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform draw in [0, 1).
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
