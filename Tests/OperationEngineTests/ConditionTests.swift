import Testing
@testable import OperationEngine

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

    @Test("the live-probe adapter passes host and port through")
    func closureProbe() async {
        let probe = ClosureReachabilityProbe { host, port in host == "h" && port == 1 }
        #expect(await probe.isReachable(host: "h", port: 1))
        #expect(await probe.isReachable(host: "h", port: 2) == false)
    }
}
