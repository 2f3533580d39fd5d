import Testing
@testable import OperationEngine
import OperationEngineTestSupport

@Suite("Retry policy (pure decisions)")
struct RetryPolicyTests {
    let policy = RetryPolicy(
        maxAttempts: 5, baseDelay: .seconds(1), maxDelay: .seconds(10), maxInRunDelay: .seconds(30))

    @Test("full jitter: the delay is the fraction of a doubling ceiling, capped")
    func fullJitter() {
        #expect(policy.backoff(afterAttempt: 1, fraction: 1) == .seconds(1))
        #expect(policy.backoff(afterAttempt: 2, fraction: 1) == .seconds(2))
        #expect(policy.backoff(afterAttempt: 3, fraction: 0.5) == .seconds(2))
        #expect(policy.backoff(afterAttempt: 4, fraction: 1) == .seconds(8))
        #expect(policy.backoff(afterAttempt: 5, fraction: 1) == .seconds(10))
        #expect(policy.backoff(afterAttempt: 500, fraction: 1) == .seconds(10))
        #expect(policy.backoff(afterAttempt: 3, fraction: 0) == .zero)
    }

    @Test("seeded jitter is reproducible and stays within the ceiling")
    func seededJitter() {
        let first = SeededRandomSource(seed: 7)
        let second = SeededRandomSource(seed: 7)
        for attempt in 1...20 {
            let a = policy.backoff(afterAttempt: attempt, fraction: first.nextFraction())
            let b = policy.backoff(afterAttempt: attempt, fraction: second.nextFraction())
            #expect(a == b)
            #expect(a >= .zero && a <= .seconds(10))
        }
    }

    @Test("a transient error is retried after the jittered backoff")
    func transientRetried() {
        #expect(policy.decide(error: TestFailure.transient, attempt: 2, networkWaited: .zero, fraction: 0.5) == .retry(after: .seconds(1)))
    }

    @Test("a server-given Retry-After wins when it is longer than the backoff, not when shorter")
    func retryAfter() {
        let longer = TestFailure(failureKind: .transient(retryAfter: .seconds(7)))
        let shorter = TestFailure(failureKind: .transient(retryAfter: .milliseconds(100)))
        #expect(policy.decide(error: longer, attempt: 1, networkWaited: .zero, fraction: 0.5) == .retry(after: .seconds(7)))
        #expect(policy.decide(error: shorter, attempt: 2, networkWaited: .zero, fraction: 1) == .retry(after: .seconds(2)))
    }

    @Test("a Retry-After longer than the cap (24 h by default) is cut to the cap, however absurd")
    func retryAfterCapped() {
        for seconds: Int64 in [86_401, 999_999_999, 999_999_999_999] {
            let absurd = TestFailure(failureKind: .transient(retryAfter: .seconds(seconds)))
            #expect(RetryPolicy.standard.decide(error: absurd, attempt: 1, networkWaited: .zero, fraction: 0)
                == .deferRetry(after: .seconds(86_400)))
        }
        let capped = RetryPolicy(maxRetryAfter: .seconds(60), maxInRunDelay: nil)
        let asked = TestFailure(failureKind: .transient(retryAfter: .seconds(3_600)))
        #expect(capped.decide(error: asked, attempt: 1, networkWaited: .zero, fraction: 0) == .retry(after: .seconds(60)))
        let within = TestFailure(failureKind: .transient(retryAfter: .seconds(50)))
        #expect(capped.decide(error: within, attempt: 1, networkWaited: .zero, fraction: 0) == .retry(after: .seconds(50)))
    }

    @Test("a wait longer than the run accepts defers the procedure instead")
    func longWaitDefers() {
        let far = TestFailure(failureKind: .transient(retryAfter: .seconds(120)))
        #expect(policy.decide(error: far, attempt: 1, networkWaited: .zero, fraction: 0) == .deferRetry(after: .seconds(120)))
    }

    @Test("the attempt that reaches the maximum is not retried")
    func maxAttempts() {
        #expect(policy.decide(error: TestFailure.transient, attempt: 4, networkWaited: .zero, fraction: 0) == .retry(after: .zero))
        #expect(policy.decide(error: TestFailure.transient, attempt: 5, networkWaited: .zero, fraction: 0) == .fail)
    }

    @Test("permanent errors, cancellation and unknown errors are not retried")
    func permanent() {
        struct Unknown: Error {}
        #expect(policy.decide(error: TestFailure.permanent, attempt: 1, networkWaited: .zero, fraction: 0) == .fail)
        #expect(policy.decide(error: CancellationError(), attempt: 1, networkWaited: .zero, fraction: 0) == .fail)
        #expect(policy.decide(error: Unknown(), attempt: 1, networkWaited: .zero, fraction: 0) == .fail)
    }

    @Test("not now: waits while the network budget lasts, whatever the attempt count, then defers")
    func notNow() {
        let waiting = RetryPolicy(maxAttempts: 1, networkWait: .seconds(3), networkPollInterval: .seconds(1))
        let unreachable = EngineError.unreachable(host: "h", port: 1)
        #expect(waiting.decide(error: unreachable, attempt: 1, networkWaited: .zero, fraction: 0) == .waitForNetwork(.seconds(1)))
        #expect(waiting.decide(error: unreachable, attempt: 1, networkWaited: .seconds(2), fraction: 0) == .waitForNetwork(.seconds(1)))
        #expect(waiting.decide(error: unreachable, attempt: 1, networkWaited: .seconds(3), fraction: 0) == .deferUntilReachable)
        #expect(RetryPolicy.none.decide(error: unreachable, attempt: 1, networkWaited: .zero, fraction: 0) == .deferUntilReachable)
    }

    @Test("engine errors say what went wrong and what to do")
    func messages() {
        let unreachable = EngineError.unreachable(host: "example.org", port: 443)
        #expect(unreachable.errorDescription?.contains("example.org:443 is not reachable") == true)
        #expect(unreachable.errorDescription?.contains("try again") == true)
        let selfWait = EngineError.waitsOnItself(procedure: "image", key: "recipe:1", holder: "json")
        #expect(selfWait.errorDescription?.contains("would wait forever") == true)
    }
}
