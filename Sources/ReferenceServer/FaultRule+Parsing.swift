import Foundation

/// A `--fault` SPEC that could not be parsed; the message quotes the SPEC and says what is expected.
public struct FaultSpecError: Error, LocalizedError, Sendable, Equatable {
    /// The SPEC as given.
    public var spec: String
    /// What is wrong with it.
    public var problem: String

    /// A one-line message naming the bad SPEC, the problem and where the syntax is described.
    public var errorDescription: String? {
        "Bad --fault \"\(spec)\": \(problem). Expected \"[METHOD] PATH: ACTION [OPTIONS]\", "
            + "e.g. \"PUT /v1/images/*: status=503 retry-after=2 first=3\"; see recipes-server --help."
    }
}

extension FaultRule {
    /// The grammar of `--fault`, printed by `recipes-server --help`.
    public static let syntaxHelp = """
        --fault SPEC (repeatable): "[METHOD] PATH: ACTION [OPTIONS] [SELECTOR]"
          METHOD  GET, HEAD, PUT, PATCH, POST, DELETE or *; omitted: any.
          PATH    a pattern; * matches anything, "/" included ("*" = all).
          ACTION  status=CODE [retry-after=SECS | retry-after-date=SECS]
                      answer CODE (200...599) at once (the date form: an
                      HTTP date); 204 and 304 carry no body
                  reset [after=SIZE]
                      read SIZE body bytes (default 0; 100, 64KiB, 2MiB),
                      then reset the connection (TCP RST); an image
                      PUT or PATCH keeps them as a partial upload
                  lost-ack
                      handle the request (commit it), then close the
                      connection without answering
                  stall
                      read the body, then never answer; stays open
                  latency=DURATION
                      wait DURATION (200ms, 1.5s, 1m), then handle it
                  truncate=SIZE
                      handle it, send the answer's head and SIZE bytes
                      of its body, then reset the connection
                  throttle=SIZE
                      handle it, send the answer's body at SIZE bytes
                      per second (a slow download: throttle=64KiB)
          SELECTOR first=N | every=N | rate=P [seed=S]
                      only the first N matches / every Nth match / each
                      match with probability P, replayed identically for
                      a seed (default 1); none: every matching request
          Rules count their matches independently, in order. All firing
          latencies add up; the first firing other action applies.
          Examples:
            --fault "PUT /v1/images/*: status=503 retry-after=2 first=3"
            --fault "PUT /v1/recipes/*: lost-ack rate=0.5 seed=7"
            --fault "*: latency=200ms"
            --fault "PUT /v1/images/*: reset after=64KiB first=1"
            --fault "PUT /v1/images/*: stall"
            --fault "GET /v1/images/*: truncate=64KiB first=1"
            --fault "GET /v1/changes: throttle=1KiB"
        """

    /// Parses one `--fault` SPEC.
    public static func parse(_ spec: String) throws(FaultSpecError) -> FaultRule {
        func fail(_ problem: String) -> FaultSpecError { FaultSpecError(spec: spec, problem: problem) }

        guard let colon = spec.firstIndex(of: ":") else { throw fail("missing \":\" between the request pattern and the action") }
        let matchWords = spec[..<colon].split(whereSeparator: \.isWhitespace).map(String.init)
        let actionWords = spec[spec.index(after: colon)...].split(whereSeparator: \.isWhitespace).map(String.init)

        var method: String?
        let pattern: String
        switch matchWords.count {
        case 1:
            pattern = matchWords[0]
        case 2:
            let word = matchWords[0].uppercased()
            guard ["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE", "*"].contains(word) else {
                throw fail("unknown method \"\(matchWords[0])\" (use GET, HEAD, PUT, PATCH, POST, DELETE or *)")
            }
            method = word == "*" ? nil : word
            pattern = matchWords[1]
        case 0:
            throw fail("missing the path pattern before \":\"")
        default:
            throw fail("too many words before \":\" (expected an optional method and one path pattern)")
        }
        guard pattern == "*" || pattern.hasPrefix("/") else {
            throw fail("the path pattern \"\(pattern)\" must start with \"/\" or be \"*\"")
        }
        guard let actionWord = actionWords.first else { throw fail("missing the action after \":\"") }

        var options: [String: String] = [:]
        for word in actionWords.dropFirst() {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else { throw fail("\"\(word)\" is not of the form name=value") }
            guard options[parts[0]] == nil else { throw fail("\"\(parts[0])\" is given twice") }
            options[parts[0]] = parts[1]
        }

        func take(_ name: String) -> String? { options.removeValue(forKey: name) }
        func integer(_ name: String, _ text: String, atLeast minimum: Int) throws(FaultSpecError) -> Int {
            guard let value = Int(text), value >= minimum else { throw fail("\(name) must be an integer >= \(minimum), not \"\(text)\"") }
            return value
        }

        let action: Action
        let (actionName, actionValue) = Self.splitWord(actionWord)
        switch actionName {
        case "status":
            guard let text = actionValue else { throw fail("status needs a code, e.g. status=503") }
            // 1xx would break the framing: they are interim answers, never final ones.
            guard let code = Int(text), (200...599).contains(code) else { throw fail("status must be an HTTP status 200...599, not \"\(text)\"") }
            var retryAfter: RetryAfter?
            if let text = take("retry-after") { retryAfter = .seconds(try integer("retry-after", text, atLeast: 0)) }
            if let text = take("retry-after-date") {
                guard retryAfter == nil else { throw fail("give retry-after or retry-after-date, not both") }
                retryAfter = .httpDate(secondsFromNow: try integer("retry-after-date", text, atLeast: 0))
            }
            action = .status(code, retryAfter: retryAfter)
        case "reset":
            guard actionValue == nil else { throw fail("reset takes no value; use reset after=SIZE") }
            var after: Int64 = 0
            if let text = take("after") {
                guard let bytes = Self.parseByteSize(text) else { throw fail("after must be a size such as 100, 64KiB or 2MiB, not \"\(text)\"") }
                after = bytes
            }
            action = .reset(afterBytes: after)
        case "lost-ack":
            guard actionValue == nil else { throw fail("lost-ack takes no value") }
            action = .lostAcknowledgement
        case "stall":
            guard actionValue == nil else { throw fail("stall takes no value") }
            action = .stall
        case "latency":
            guard let text = actionValue else { throw fail("latency needs a duration, e.g. latency=200ms") }
            guard let duration = Self.parseDuration(text) else { throw fail("latency must be a duration such as 200ms or 1.5s, not \"\(text)\"") }
            action = .latency(duration)
        case "truncate":
            guard let text = actionValue, let bytes = Self.parseByteSize(text) else {
                throw fail("truncate needs a size such as 0, 100 or 64KiB, e.g. truncate=64KiB")
            }
            action = .truncate(afterBytes: bytes)
        case "throttle":
            guard let text = actionValue, let rate = Self.parseByteSize(text), rate > 0 else {
                throw fail("throttle needs a positive size per second such as 512 or 64KiB, e.g. throttle=64KiB")
            }
            action = .throttle(bytesPerSecond: rate)
        default:
            throw fail("unknown action \"\(actionWord)\" (use status=CODE, reset, lost-ack, stall, latency=DURATION, truncate=SIZE or throttle=SIZE)")
        }

        var selector = Selector.always
        if let text = take("first") { selector = .first(try integer("first", text, atLeast: 1)) }
        if let text = take("every") {
            guard selector == .always else { throw fail("give only one of first=, every=, rate=") }
            selector = .every(try integer("every", text, atLeast: 1))
        }
        if let text = take("rate") {
            guard selector == .always else { throw fail("give only one of first=, every=, rate=") }
            guard let rate = Double(text), rate >= 0, rate <= 1 else { throw fail("rate must be a number between 0 and 1, not \"\(text)\"") }
            var seed: UInt64 = 1
            if let seedText = take("seed") {
                guard let value = UInt64(seedText) else { throw fail("seed must be a non-negative integer, not \"\(seedText)\"") }
                seed = value
            }
            selector = .rate(rate, seed: seed)
        }
        if take("seed") != nil { throw fail("seed= only goes with rate=") }
        if let leftover = options.keys.sorted().first {
            throw fail("option \"\(leftover)\" does not apply to \(actionName) (see recipes-server --help)")
        }
        let text = spec.trimmingCharacters(in: .whitespaces)
        return FaultRule(method: method, pathPattern: pattern, action: action, selector: selector, description: text)
    }

    /// Splits `name=value` into its halves (value nil when there is no `=`).
    private static func splitWord(_ word: String) -> (String, String?) {
        guard let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// Parses `100`, `100B`, `64KiB`, `2MiB`, `1GiB` (also `KB`/`MB`/`GB` as powers of 1000).
    static func parseByteSize(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30),
                                        ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("B", 1)]
        var number = Substring(text)
        var multiplier: Int64 = 1
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            multiplier = factor
            break
        }
        guard let value = Int64(number), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }

    /// Parses `250ms`, `2s`, `1.5s`, `1m` into a duration.
    static func parseDuration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            guard let value = Double(text.dropLast(suffix.count)), value >= 0, value.isFinite else { return nil }
            return .milliseconds(Int64((value * factor * 1000).rounded()))
        }
        return nil
    }
}
