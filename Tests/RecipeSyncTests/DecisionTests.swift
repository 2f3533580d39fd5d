import Foundation
import Locking
import OperationEngine
import RecipeModels
@testable import RecipeSync
import Testing
import Transport

@Suite("ProgressThrottle admits at most 10 reports per second per recipe, and always the completion")
struct ProgressThrottleTests {
    static let t0 = Date(timeIntervalSince1970: 1_000_000)

    @Test("a report every millisecond for one second is admitted 10 times")
    func tenPerSecond() {
        var throttle = ProgressThrottle()
        var admitted = 0
        for ms in 0..<1000 {
            if throttle.admit(1, completed: Int64(ms), total: 10_000, at: Self.t0.addingTimeInterval(Double(ms) / 1000)) {
                admitted += 1
            }
        }
        #expect(admitted == 10)
    }

    @Test("a report within 100 ms of the last admitted one is dropped, one 100 ms later is admitted")
    func interval() {
        var throttle = ProgressThrottle()
        let results = [0, 0.05, 0.099, 0.1].map { offset in
            throttle.admit(1, completed: Int64(offset * 1000) + 1, total: 10_000, at: Self.t0.addingTimeInterval(offset))
        }
        #expect(results == [true, false, false, true])
    }

    @Test("the report that completes the transfer is always admitted, also right after another")
    func completionAdmitted() {
        var throttle = ProgressThrottle()
        var results: [Bool] = []
        results.append(throttle.admit(1, completed: 50, total: 100, at: Self.t0))
        results.append(throttle.admit(1, completed: 100, total: 100, at: Self.t0.addingTimeInterval(0.001)))
        results.append(throttle.admit(1, completed: 100, total: 100, at: Self.t0.addingTimeInterval(0.002)))
        #expect(results == [true, true, true])
        // Without a known total nothing counts as complete.
        results = []
        results.append(throttle.admit(2, completed: 5, total: nil, at: Self.t0))
        results.append(throttle.admit(2, completed: 6, total: nil, at: Self.t0.addingTimeInterval(0.01)))
        results.append(throttle.admit(2, completed: 0, total: 0, at: Self.t0.addingTimeInterval(0.02)))
        #expect(results == [true, false, false])
    }

    @Test("keys are throttled independently, and a forgotten key starts afresh")
    func perKey() {
        var throttle = ProgressThrottle()
        var results: [Bool] = []
        results.append(throttle.admit(1, completed: 1, total: 100, at: Self.t0))
        results.append(throttle.admit(2, completed: 1, total: 100, at: Self.t0))
        results.append(throttle.admit(1, completed: 2, total: 100, at: Self.t0.addingTimeInterval(0.01)))
        throttle.forget(1)
        results.append(throttle.admit(1, completed: 2, total: 100, at: Self.t0.addingTimeInterval(0.02)))
        results.append(throttle.admit(2, completed: 2, total: 100, at: Self.t0.addingTimeInterval(0.02)))
        #expect(results == [true, true, false, true, false])
    }
}

@Suite("StepFailure.from sorts every transfer outcome for the retry policy and the run")
struct StepFailureTests {
    @Test("success is no failure")
    func success() {
        #expect(StepFailure.from(.success(status: 201), what: "image") == nil)
        #expect(StepFailure.from(.success(status: 200), what: "recipe") == nil)
    }

    @Test("transient keeps the server's Retry-After and is retried")
    func transient() throws {
        let failure = try #require(
            StepFailure.from(.transient(reason: "HTTP 503: busy", retryAfter: .seconds(3)), what: "recipe"))
        #expect(failure.kind == .transient(retryAfter: .seconds(3)))
        #expect(failure.failureKind == .transient(retryAfter: .seconds(3)))
        #expect(failure.message.contains("HTTP 503: busy"))
        let plain = try #require(StepFailure.from(.transient(reason: "reset", retryAfter: nil), what: "recipe"))
        #expect(plain.kind == .transient(retryAfter: nil))
    }

    @Test("a transport failure that retrying cannot fix comes with what to do; a transient one with none")
    func transportAdvice() {
        #expect(StepFailure.advice(for: .tls)?.contains("server.ca_bundle") == true)
        #expect(StepFailure.advice(for: .setupFailed)?.contains("RECIPES_CA_BUNDLE") == true)
        #expect(StepFailure.advice(for: .malformedAnswer)?.contains("recipes server") == true)
        #expect(StepFailure.advice(for: .invalidRequest)?.contains("server.url") == true)
        for kind: TransportError.Kind in [.connectionRefused, .connectTimeout, .dnsFailure, .connectionLost, .timeout] {
            #expect(StepFailure.advice(for: kind) == nil, "\(kind)")
        }
    }

    @Test("refused credentials stop the run and are not retried; the message says what to do")
    func credentials() throws {
        let failure = try #require(
            StepFailure.from(.badCredentials(status: 401, message: "HTTP 401: missing token"), what: "image"))
        #expect(failure.kind == .credentials)
        #expect(failure.failureKind == .permanent)
        #expect(failure.message.contains("HTTP 401: missing token"))
        #expect(failure.message.contains("server.token"))
        let bare = try #require(StepFailure.from(.badCredentials(status: 403, message: ""), what: "image"))
        #expect(bare.message.contains("HTTP 403"))
    }

    @Test("a permanent answer names the request and keeps the server's message")
    func permanent() throws {
        let failure = try #require(
            StepFailure.from(.permanent(status: 413, message: "HTTP 413: too large"), what: "image abc"))
        #expect(failure.kind == .permanent)
        #expect(failure.failureKind == .permanent)
        #expect(failure.message == "image abc: HTTP 413: too large")
    }

    @Test("a cancelled transfer is not retried")
    func cancelled() throws {
        let failure = try #require(StepFailure.from(.cancelled, what: "recipe"))
        #expect(failure.kind == .permanent)
        #expect(failure.failureKind == .permanent)
        #expect(failure.message.contains("cancelled"))
    }

    @Test("a conflict and a lost lease are not retried")
    func notRetried() {
        #expect(StepFailure(.conflict, "x").failureKind == .permanent)
        #expect(StepFailure(.later, "x").failureKind == .permanent)
        #expect(StepFailure(.leaseLost, "x").failureKind == .permanent)
    }
}

@Suite("SyncSummary.verdict: refused credentials over a failure over work left over complete")
struct VerdictTests {
    @Test(
        "the most serious applicable verdict wins",
        arguments: [
            (SyncSummary(), .complete),
            (SyncSummary(done: 5), .complete),
            (SyncSummary(done: 1, waiting: 1), .workLeft),
            (SyncSummary(done: 1, cancelled: 1), .workLeft),
            (SyncSummary(failed: 1), .someFailed),
            (SyncSummary(done: 3, failed: 1, cancelled: 2, waiting: 4), .someFailed),
            (SyncSummary(credentialsRefused: true), .credentialsRefused),
            (SyncSummary(done: 1, failed: 2, cancelled: 1, waiting: 3, credentialsRefused: true), .credentialsRefused),
        ] as [(SyncSummary, SyncSummary.Verdict)])
    func precedence(summary: SyncSummary, expected: SyncSummary.Verdict) {
        #expect(summary.verdict == expected)
    }
}

@Suite("Why a pull stopped is a typed value: the page's outcome says whether the server was unreachable")
struct PullStopTests {
    static let unreachable = EngineError.unreachable(host: "127.0.0.1", port: 9)

    @Test("each outcome of a page's fetch stops the pull for the cause the table says", arguments: [
        ("deferred to wait for the network", ProcedureOutcome.deferred(Deferral(error: unreachable, retryAfter: nil, attempts: 0)),
         PullStop.Cause.unreachable),
        ("the reachability condition failed", .failed(unreachable), .unreachable),
        ("deferred with a backoff after server errors",
         .deferred(Deferral(error: StepFailure(.transient(retryAfter: nil), "changes: HTTP 503"), retryAfter: .seconds(4), attempts: 3)),
         .failed),
        ("failed for good", .failed(StepFailure(.permanent, "changes: HTTP 400")), .failed),
        ("cancelled (Ctrl-C)", .cancelled(.requested("interrupted")), .interrupted),
    ] as [(String, ProcedureOutcome, PullStop.Cause)])
    func cause(_ what: String, outcome: ProcedureOutcome, expected: PullStop.Cause) {
        #expect(PullStop.of(outcome).cause == expected, "\(what)")
    }
}

@Suite("PullRun.pageSize: larger pages of the changes feed on a longer round trip, within the contract's 100–1,000")
struct PullPageSizeTests {
    @Test("from a table of round trips")
    func pageSizes() {
        let cases: [(roundTrip: Duration?, pageSize: Int)] = [
            (nil, 100),                      // not measured yet: the contract's default
            (.zero, 100),
            (.microseconds(80), 100),        // loopback
            (.milliseconds(3), 100),         // a LAN
            (.milliseconds(10), 100),
            (.milliseconds(11), 200),
            (.milliseconds(20), 200),
            (.milliseconds(55), 600),
            (.milliseconds(100), 1000),      // another continent
            (.milliseconds(600), 1000),      // a satellite link: never above the contract's limit
            (.seconds(-1), 100),
        ]
        for row in cases {
            #expect(PullRun.pageSize(roundTrip: row.roundTrip) == row.pageSize, "\(String(describing: row.roundTrip))")
        }
    }
}
