import Foundation

/// One `--fault` rule: which requests it matches, what it does to them, and how often.
///
/// The textual form is `[METHOD] PATH-PATTERN: ACTION [OPTION...] [SELECTOR]`; see
/// `FaultRule.syntaxHelp` and docs/recipes-server.md for the grammar and examples.
public struct FaultRule: Sendable, Equatable, CustomStringConvertible {
    /// What an injected fault does to a matched request.
    public enum Action: Sendable, Equatable {
        /// Answer at once with this status (and optionally a `Retry-After` header), without running the handler.
        case status(Int, retryAfter: RetryAfter?)
        /// Read this many body bytes, then reset the TCP connection (RST) without answering.
        case reset(afterBytes: Int64)
        /// Run the request to completion (commit it), then close the connection without sending the answer.
        case lostAcknowledgement
        /// Read the whole body, then never answer while keeping the connection open.
        case stall
        /// Wait this long before handling the request normally.
        case latency(Duration)
        /// Handle the request, send the answer's head and this many bytes of its body, then reset the connection
        /// (a download cut mid-body).
        case truncate(afterBytes: Int64)
        /// Handle the request and send the answer's body at most this many bytes per second (a slow download).
        case throttle(bytesPerSecond: Int64)
    }

    /// The `Retry-After` value a status fault sends.
    public enum RetryAfter: Sendable, Equatable {
        /// `Retry-After: <seconds>`.
        case seconds(Int)
        /// `Retry-After: <HTTP date>`, this many seconds after the moment of the answer.
        case httpDate(secondsFromNow: Int)
    }

    /// Which of the matching requests the rule fires on.
    public enum Selector: Sendable, Equatable {
        /// Every matching request.
        case always
        /// The first N matching requests, then never again.
        case first(Int)
        /// Every Nth matching request (the Nth, the 2Nth, ...).
        case every(Int)
        /// Each matching request with probability P, drawn from a generator seeded with `seed`.
        case rate(Double, seed: UInt64)
    }

    /// The HTTP method matched, or nil for any method.
    public var method: String?
    /// The path pattern; `*` matches any run of characters, including `/`.
    public var pathPattern: String
    /// What the rule does.
    public var action: Action
    /// How often the rule fires.
    public var selector: Selector
    /// The text the rule was parsed from, used in the request log and messages.
    public var description: String

    /// Creates a rule from its parts.
    public init(method: String?, pathPattern: String, action: Action, selector: Selector = .always, description: String? = nil) {
        self.method = method
        self.pathPattern = pathPattern
        self.action = action
        self.selector = selector
        self.description = description ?? "\(method ?? "*") \(pathPattern): \(action)"
    }

    /// Whether this rule's method and path pattern match a request.
    public func matches(method: String, path: String) -> Bool {
        if let ruleMethod = self.method, ruleMethod != method.uppercased() { return false }
        return Self.glob(Array(pathPattern.utf8), Array(path.utf8))
    }

    /// Glob match where `*` matches any run of bytes (iterative, with one backtrack point).
    static func glob(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        let star = UInt8(ascii: "*")
        var p = 0, t = 0
        var starAt = -1, matchedUpTo = 0
        while t < text.count {
            if p < pattern.count, pattern[p] != star, pattern[p] == text[t] {
                p += 1; t += 1
            } else if p < pattern.count, pattern[p] == star {
                starAt = p; matchedUpTo = t; p += 1
            } else if starAt >= 0 {
                p = starAt + 1; matchedUpTo += 1; t = matchedUpTo
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == star { p += 1 }
        return p == pattern.count
    }
}

extension FaultRule.Action {
    /// The short name written to the request log's `fault` field.
    var logName: String {
        switch self {
        case .status(let code, _): "status=\(code)"
        case .reset(let after): "reset after=\(after)"
        case .lostAcknowledgement: "lost-ack"
        case .stall: "stall"
        case .latency(let duration): "latency=\(duration.milliseconds)ms"
        case .truncate(let after): "truncate=\(after)"
        case .throttle(let rate): "throttle=\(rate)"
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
