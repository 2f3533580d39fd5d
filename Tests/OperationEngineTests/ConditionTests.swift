import Testing
@testable import OperationEngine
import OperationEngineTestSupport

@Suite("Conditions and reachability")
struct ConditionTests {
    struct Fails: ProcedureCondition {
        func evaluate(_ context: ConditionContext) async throws { throw TestFailure.permanent }
    }

    @Test("a failed condition finishes the procedure with its error without executing it")
    func failedConditionSkipsWork() async {
        let queue = ProcedureQueue()
        let ran = Recorder<Bool>()
        let procedure = Procedure<Void>(name: "guarded", conditions: [Fails()]) { _ in ran.append(true) }
        queue.add(procedure)
        let outcome = await procedure.waitUntilFinished()
        guard case .failed(let error) = outcome else {
            Issue.record("expected failure, got \(outcome)")
            return
        }
        #expect(error as? TestFailure == .permanent)
        #expect(ran.count == 0)
    }

    @Test("conditions are evaluated asynchronously and in full before the work runs")
    func asyncEvaluation() async throws {
        struct Slow: ProcedureCondition {
            let log: Recorder<String>
            func evaluate(_ context: ConditionContext) async throws {
                await Task.yield()
                log.append("condition")
            }
        }
        let log = Recorder<String>()
        let queue = ProcedureQueue()
        let procedure = Procedure<Void>(name: "p", conditions: [Slow(log: log), Slow(log: log)]) { _ in log.append("work") }
        queue.add(procedure)
        _ = try await procedure.value()
        #expect(log.all == ["condition", "condition", "work"])
    }

    @Test("a condition known to hold is not evaluated (no task started for it); one not known is evaluated")
    func knownToHoldSkipsEvaluation() async throws {
        struct Known: ProcedureCondition {
            let holds: Bool
            let evaluations: Recorder<Int>
            func holdsWithoutEvaluation(_ context: ConditionContext) -> Bool { holds }
            func evaluate(_ context: ConditionContext) async throws { evaluations.append(context.attempt) }
        }
        let queue = ProcedureQueue()
        let skipped = Recorder<Int>()
        let evaluated = Recorder<Int>()
        let fast = Procedure<Int>(name: "fast", conditions: [Known(holds: true, evaluations: skipped)]) { _ in 1 }
        let slow = Procedure<Int>(name: "slow", conditions: [Known(holds: false, evaluations: evaluated)]) { _ in 2 }
        queue.add(fast)
        queue.add(slow)
        #expect(try await fast.value() == 1)
        #expect(try await slow.value() == 2)
        #expect(skipped.count == 0)
        #expect(evaluated.all == [1])
    }

    @Test("a condition of any type that says it needs no evaluation is never evaluated, and its keys still hold")
    func noEvaluationByItsOwnWord() async throws {
        struct Declared: ProcedureCondition {
            let evaluations: Recorder<Int>
            var exclusivityKeys: [String] { ["declared"] }
            var requiresEvaluation: Bool { false }
            func evaluate(_ context: ConditionContext) async throws { evaluations.append(context.attempt) }
        }
        let queue = ProcedureQueue()
        let evaluations = Recorder<Int>()
        let procedure = Procedure<Int>(name: "declared", conditions: [Declared(evaluations: evaluations)]) { _ in 3 }
        #expect(procedure.exclusivityKeys == ["declared"])
        queue.add(procedure)
        #expect(try await procedure.value() == 3)
        #expect(evaluations.count == 0)
    }

    @Test("reachability: a probe that already knows the host is up is not asked; one that does not know is asked once")
    func knownReachableIsNotProbed() async throws {
        final class Remembering: ReachabilityProbe {
            let asked = Recorder<String>()
            let known: Bool
            init(known: Bool) { self.known = known }
            func isReachable(host: String, port: Int) async -> Bool {
                asked.append("\(host):\(port)")
                return true
            }
            func isKnownReachable(host: String, port: Int) -> Bool { known }
        }
        let queue = ProcedureQueue()
        for known in [true, false] {
            let probe = Remembering(known: known)
            let procedure = Procedure<Void>(
                name: "upload", conditions: [ReachabilityCondition(host: "127.0.0.1", port: 9, probe: probe)]) { _ in }
            queue.add(procedure)
            _ = try await procedure.value()
            #expect(probe.asked.count == (known ? 0 : 1))
        }
        // The default for probes that remember nothing: always ask.
        #expect(!FakeReachability(reachable: true).isKnownReachable(host: "127.0.0.1", port: 9))
    }

    @Test("an unreachable host: no attempt counted, nothing executed, the procedure is deferred for the network")
    func unreachableDefers() async {
        let probe = FakeReachability(reachable: false)
        let queue = ProcedureQueue()
        let ran = Recorder<Bool>()
        let procedure = Procedure<Void>(
            name: "upload", conditions: [ReachabilityCondition(host: "127.0.0.1", port: 9, probe: probe)],
            retry: .standard, previousAttempts: 2
        ) { _ in ran.append(true) }
        queue.add(procedure)
        let outcome = await procedure.waitUntilFinished()
        guard case .deferred(let deferral) = outcome else {
            Issue.record("expected deferral, got \(outcome)")
            return
        }
        #expect(deferral.retryAfter == nil)
        #expect(deferral.attempts == 2)
        #expect((deferral.error as? EngineError)?.isUnreachable == true)
        #expect(ran.count == 0)
        #expect(probe.probeCount == 1)
    }

    @Test("while the network is down it waits (no attempt counted) and runs once the host is back")
    func waitsForNetwork() async throws {
        let probe = FakeReachability(reachable: false)
        let clock = ManualClock()
        let queue = ProcedureQueue(clock: clock)
        let policy = RetryPolicy(networkWait: .seconds(10), networkPollInterval: .seconds(2))
        let log = EventLog()
        let procedure = Procedure<Int>(
            name: "upload", conditions: [ReachabilityCondition(host: "server", port: 80, probe: probe)], retry: policy
        ) { context in context.attempt }
        procedure.addObserver(log)
        queue.add(procedure)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await probe.waitForProbes(2)
        await clock.waitForSleepers(1)
        probe.setReachable(true)
        clock.advance(by: .seconds(2))
        let attempt = try await procedure.value()
        #expect(attempt == 1)
        #expect(probe.probeCount == 3)
        #expect(clock.requestedSleeps == [.seconds(2), .seconds(2)])
        #expect(log.names(for: procedure.id) == ["waiting", "waiting", "start", "finish"])
    }
}
