import Locking
import Testing
@testable import OperationEngine
import OperationEngineTestSupport

@Suite("Retry in the queue")
struct RetryTests {
    @Test("transient failures are retried with the policy's backoff on the injected clock, then succeed")
    func retriesThenSucceeds() async throws {
        let clock = ManualClock()
        let queue = ProcedureQueue(clock: clock, random: FixedRandomSource(0.5))
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: .seconds(2), maxDelay: .seconds(60))
        let failures = Locked(2)
        let log = EventLog()
        let procedure = Procedure<Int>(name: "flaky", retry: policy) { context in
            let fail = failures.withLock { count -> Bool in
                defer { count -= 1 }
                return count > 0
            }
            if fail { throw TestFailure.transient }
            return context.attempt
        }
        procedure.addObserver(log)
        queue.add(procedure)
        for _ in 0..<2 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(60))
        }
        #expect(try await procedure.value() == 3)
        #expect(clock.requestedSleeps == [.seconds(1), .seconds(2)])
        #expect(log.names(for: procedure.id) == ["start", "retry", "retry", "finish"])
    }

    @Test("a retrying procedure gives its slot back during the backoff but keeps its key")
    func backoffReleasesSlotKeepsKey() async throws {
        let clock = ManualClock()
        let queue = ProcedureQueue(maxConcurrentProcedures: 1, clock: clock, random: FixedRandomSource(1))
        let failOnce = Locked(true)
        let order = Recorder<String>()
        let flaky = Procedure<Void>(name: "flaky", conditions: [MutualExclusion("k")], retry: .standard) { _ in
            let fail = failOnce.withLock { value in defer { value = false }; return value }
            order.append(fail ? "flaky-fail" : "flaky-ok")
            if fail { throw TestFailure.transient }
        }
        let sameKey = Procedure<Void>(name: "same-key", conditions: [MutualExclusion("k")]) { _ in order.append("same-key") }
        let otherKey = Procedure<Void>(name: "other-key", conditions: [MutualExclusion("other")]) { _ in order.append("other-key") }
        queue.add(flaky)
        queue.add(sameKey)
        queue.add(otherKey)
        await clock.waitForSleepers(1)
        _ = await otherKey.waitUntilFinished()   // ran in the slot flaky gave back
        #expect(sameKey.lifecycle == .pending)   // still behind flaky's key
        clock.advance(by: .seconds(5))
        await queue.waitUntilAllFinished()
        #expect(order.all == ["flaky-fail", "other-key", "flaky-ok", "same-key"])
    }

    @Test("after the last allowed attempt the procedure fails with the last error")
    func exhaustsAttempts() async {
        let clock = ManualClock()
        let queue = ProcedureQueue(clock: clock, random: FixedRandomSource(0))
        let calls = Locked(0)
        let procedure = Procedure<Void>(name: "doomed", retry: RetryPolicy(maxAttempts: 8), previousAttempts: 5) { _ in
            calls.withLock { $0 += 1 }
            throw TestFailure.transient
        }
        queue.add(procedure)
        let outcome = await procedure.waitUntilFinished()
        #expect(calls.withLock { $0 } == 3)
        #expect(outcome.error as? TestFailure == .transient)
        #expect(procedure.erased.attempt == 8)
    }

    @Test("a Retry-After longer than the run accepts finishes as deferred with the delay")
    func defersLongRetryAfter() async {
        let queue = ProcedureQueue(clock: ManualClock(), random: FixedRandomSource(0))
        let procedure = Procedure<Void>(name: "busy", retry: .standard) { _ in
            throw TestFailure(failureKind: .transient(retryAfter: .seconds(3600)))
        }
        queue.add(procedure)
        guard case .deferred(let deferral) = await procedure.waitUntilFinished() else {
            Issue.record("expected a deferral")
            return
        }
        #expect(deferral.retryAfter == .seconds(3600))
        #expect(deferral.attempts == 1)
    }

    @Test("cancelling during a backoff finishes the procedure at once as cancelled")
    func cancelDuringBackoff() async {
        let clock = ManualClock()
        let queue = ProcedureQueue(clock: clock, random: FixedRandomSource(1))
        let procedure = Procedure<Void>(name: "flaky", retry: .standard) { _ in throw TestFailure.transient }
        queue.add(procedure)
        await clock.waitForSleepers(1)
        procedure.cancel(reason: .requested("user"))
        let outcome = await procedure.waitUntilFinished()
        #expect(outcome.isCancelled)
        #expect(clock.sleeperCount == 0)
    }
}
