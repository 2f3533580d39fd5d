import Foundation
import Testing
@testable import ReferenceServer

@Suite("Fault SPEC parsing")
struct FaultRuleTests {
    @Test("a status fault with Retry-After and first=N parses into method, pattern, action and selector")
    func statusWithRetryAfter() throws {
        let rule = try FaultRule.parse("PUT /v1/images/*: status=503 retry-after=2 first=3")
        #expect(rule.method == "PUT")
        #expect(rule.pathPattern == "/v1/images/*")
        #expect(rule.action == .status(503, retryAfter: .seconds(2)))
        #expect(rule.selector == .first(3))
    }

    @Test("every action of the documented examples parses")
    func documentedExamples() throws {
        #expect(try FaultRule.parse("PUT /v1/recipes/*: lost-ack rate=0.5 seed=7").selector == .rate(0.5, seed: 7))
        #expect(try FaultRule.parse("PUT /v1/recipes/*: lost-ack rate=0.5 seed=7").action == .lostAcknowledgement)
        let latency = try FaultRule.parse("*: latency=200ms")
        #expect(latency.method == nil && latency.pathPattern == "*" && latency.action == .latency(.milliseconds(200)))
        #expect(try FaultRule.parse("PUT /v1/images/*: reset after=64KiB first=1").action == .reset(afterBytes: 65536))
        #expect(try FaultRule.parse("PUT /v1/images/*: stall").action == .stall)
        #expect(try FaultRule.parse("GET /v1/health: status=500 retry-after-date=30 every=2").action
            == .status(500, retryAfter: .httpDate(secondsFromNow: 30)))
        #expect(try FaultRule.parse("* /v1/*: latency=1.5s").action == .latency(.milliseconds(1500)))
        #expect(try FaultRule.parse("GET /x: status=200").action == .status(200, retryAfter: nil))
        #expect(try FaultRule.parse("GET /x: status=599").action == .status(599, retryAfter: nil))
        #expect(try FaultRule.parse("GET /v1/images/*: truncate=64KiB first=1").action == .truncate(afterBytes: 65536))
        #expect(try FaultRule.parse("GET /v1/changes: truncate=0").action == .truncate(afterBytes: 0))
        #expect(try FaultRule.parse("GET /v1/changes: throttle=1KiB").action == .throttle(bytesPerSecond: 1024))
        #expect(try FaultRule.parse("POST /v1/recipes/batch: lost-ack first=1").method == "POST")
        #expect(try FaultRule.parse("patch /v1/images/*: reset after=1MiB").method == "PATCH")
    }

    @Test("a bad SPEC is refused with a message naming the problem", arguments: [
        ("PUT /v1/images/*", "missing \":\""),
        ("PUT /v1/images/*: stat=503", "unknown action"),
        ("FETCH /x: stall", "unknown method"),
        ("PUT v1/images: stall", "must start with \"/\""),
        ("PUT /x: status=99", "status must be an HTTP status"),
        ("PUT /x: status=100", "status must be an HTTP status 200...599"),
        ("PUT /x: status=199", "status must be an HTTP status 200...599"),
        ("PUT /x: status=600", "status must be an HTTP status 200...599"),
        ("TRACE /x: stall", "unknown method"),
        ("GET /x: truncate", "truncate needs a size"),
        ("GET /x: throttle=0", "throttle needs a positive size"),
        ("GET /x: throttle=fast", "throttle needs a positive size"),
        ("PUT /x: status=503 first=0", "first must be an integer >= 1"),
        ("PUT /x: status=503 rate=1.5", "rate must be a number between 0 and 1"),
        ("PUT /x: stall after=10", "does not apply to stall"),
        ("PUT /x: reset after=lots", "after must be a size"),
        ("PUT /x: latency=fast", "latency must be a duration"),
        ("PUT /x: status=503 first=1 every=2", "only one of"),
        ("PUT /x:", "missing the action"),
        ("PUT /x: stall seed=3", "seed= only goes with rate="),
    ])
    func badSpec(spec: String, expected: String) {
        do {
            _ = try FaultRule.parse(spec)
            Issue.record("\(spec) parsed")
        } catch {
            let message = error.errorDescription ?? ""
            #expect(message.contains(expected), "\(message)")
            #expect(message.contains(spec))
        }
    }

    @Test("path patterns match with * spanning slashes, and methods match exactly")
    func matching() throws {
        let rule = try FaultRule.parse("PUT /v1/images/*: stall")
        #expect(rule.matches(method: "PUT", path: "/v1/images/abc"))
        #expect(!rule.matches(method: "HEAD", path: "/v1/images/abc"))
        #expect(!rule.matches(method: "PUT", path: "/v1/recipes/abc"))
        let any = try FaultRule.parse("*: stall")
        #expect(any.matches(method: "GET", path: "/v1/health"))
        let middle = try FaultRule.parse("/v1/*/x*: stall")
        #expect(middle.matches(method: "DELETE", path: "/v1/a/b/xyz"))
        #expect(!middle.matches(method: "DELETE", path: "/v1/a/b/y"))
    }

    @Test("sizes and durations parse in their documented units")
    func units() {
        #expect(FaultRule.parseByteSize("100") == 100)
        #expect(FaultRule.parseByteSize("2MiB") == 2 << 20)
        #expect(FaultRule.parseByteSize("3KB") == 3000)
        #expect(FaultRule.parseByteSize("-1") == nil)
        #expect(FaultRule.parseDuration("250ms") == .milliseconds(250))
        #expect(FaultRule.parseDuration("2s") == .seconds(2))
        #expect(FaultRule.parseDuration("1m") == .seconds(60))
        #expect(FaultRule.parseDuration("2h") == nil)
    }
}

@Suite("Fault plan decisions")
struct FaultPlanTests {
    @Test("first=N fires on exactly the first N matching requests and ignores others")
    func firstN() throws {
        let plan = FaultPlan(rules: [try FaultRule.parse("PUT /v1/images/*: status=503 first=2")])
        let fired = (0..<5).map { _ in plan.decide(method: "PUT", path: "/v1/images/a").rule != nil }
        #expect(fired == [true, true, false, false, false])
        #expect(plan.decide(method: "GET", path: "/v1/images/a") == .none)
    }

    @Test("every=N fires on the Nth, 2Nth... matching request")
    func everyN() throws {
        let plan = FaultPlan(rules: [try FaultRule.parse("*: stall every=3")])
        let fired = (0..<7).map { _ in plan.decide(method: "GET", path: "/").rule != nil }
        #expect(fired == [false, false, true, false, false, true, false])
    }

    @Test("rate=P with a seed replays the same decisions and fires at about P")
    func seededRate() throws {
        let spec = "*: lost-ack rate=0.3 seed=42"
        let first = FaultPlan(rules: [try FaultRule.parse(spec)])
        let second = FaultPlan(rules: [try FaultRule.parse(spec)])
        let a = (0..<1000).map { _ in first.decide(method: "PUT", path: "/x").rule != nil }
        let b = (0..<1000).map { _ in second.decide(method: "PUT", path: "/x").rule != nil }
        #expect(a == b)
        let count = a.filter { $0 }.count
        #expect((240...360).contains(count), "fired \(count) of 1000")
        let other = FaultPlan(rules: [try FaultRule.parse("*: lost-ack rate=0.3 seed=43")])
        #expect((0..<1000).map { _ in other.decide(method: "PUT", path: "/x").rule != nil } != a)
    }

    @Test("latencies of every firing rule add up and the first other firing rule wins")
    func combination() throws {
        let plan = FaultPlan(rules: [
            try FaultRule.parse("*: latency=100ms"),
            try FaultRule.parse("PUT *: latency=50ms"),
            try FaultRule.parse("PUT *: status=503 first=1"),
            try FaultRule.parse("PUT *: stall"),
        ])
        let first = plan.decide(method: "PUT", path: "/v1/recipes/x")
        #expect(first.latency == .milliseconds(150))
        #expect(first.rule?.action == .status(503, retryAfter: nil))
        #expect(first.logDescription == "latency=150ms, status=503")
        let second = plan.decide(method: "PUT", path: "/v1/recipes/x")
        #expect(second.rule?.action == .stall)
        let get = plan.decide(method: "GET", path: "/v1/health")
        #expect(get.latency == .milliseconds(100) && get.rule == nil)
    }
}
