import Locking
import Testing
@testable import OperationEngine
import OperationEngineTestSupport

@Suite("Group procedures")
struct GroupTests {
    @Test("a group holds its key from its first child's start to its last child's end: nothing else on the key runs between")
    func keyHeldAcrossChildren() async throws {
        let queue = ProcedureQueue(maxConcurrentProcedures: 4)
        let order = Recorder<String>()
        let firstStarted = Gate(), releaseFirst = Gate(), secondStarted = Gate(), releaseSecond = Gate()
        let first = Procedure<String>(name: "image") { _ in
            order.append("image")
            firstStarted.open()
            try await releaseFirst.wait()
            return "url"
        }
        let second = Procedure<Int>(name: "recipe", input: first) { url, _ in
            order.append("recipe \(url)")
            secondStarted.open()
            try await releaseSecond.wait()
            return 7
        }
        let group = GroupProcedure(
            name: "upload", conditions: [MutualExclusion("recipe:1")], children: [first.erased, second.erased],
            output: second)
        let other = Procedure<Void>(name: "other", conditions: [MutualExclusion("recipe:1")]) { _ in order.append("other") }
        queue.add(group)
        try await firstStarted.wait()
        queue.add(other)
        #expect(queue.holder(of: "recipe:1") === group)
        releaseFirst.open()
        try await secondStarted.wait()
        // Between the two children: the key is still the group's, and the other procedure still waits.
        #expect(first.isFinished)
        #expect(other.lifecycle == .pending)
        #expect(queue.holder(of: "recipe:1") === group)
        releaseSecond.open()
        await withinDeadline("group and other") { await queue.waitUntilAllFinished() }
        #expect(order.all == ["image", "recipe url", "other"])
        #expect(try await group.value() == 7)
    }

    @Test("cancelling a group reaches its running child at once, and the dependent child never runs")
    func cancellationReachesRunningChild() async throws {
        let queue = ProcedureQueue()
        let started = Gate()
        let ran = Recorder<String>()
        let first = Procedure<Void>(name: "image") { _ in
            started.open()
            try await ContinuousClock().sleep(for: .seconds(60))
        }
        let second = Procedure<Void>(name: "recipe") { _ in ran.append("recipe") }
        second.addDependency(first)
        let group = GroupProcedure(name: "upload", children: [second.erased, first.erased])
        queue.add(group)
        try await started.wait()
        group.cancel(reason: .requested("recipes cancel"))
        await withinDeadline(seconds: 30, "cancelled group") { _ = await group.waitUntilFinished() }
        let outcome = group.outcome
        guard case .cancelled(.requested(let who))? = outcome else {
            Issue.record("expected the group cancelled by the request, got \(String(describing: outcome))")
            return
        }
        #expect(who == "recipes cancel")
        #expect(first.outcome?.isCancelled == true)
        #expect(second.outcome?.isCancelled == true)
        #expect(ran.count == 0)
        #expect(queue.unfinishedCount == 0)
    }

    @Test("a failing first child cancels the second through NoFailedDependencies; the group fails with the first's error")
    func failingFirstChild() async {
        let queue = ProcedureQueue()
        let ran = Recorder<String>()
        let first = Procedure<String>(name: "image") { _ in throw TestFailure.permanent }
        let second = Procedure<Int>(name: "recipe", input: first) { _, _ in
            ran.append("recipe")
            return 1
        }
        let group = GroupProcedure(name: "upload", children: [first.erased, second.erased], output: second)
        queue.add(group)
        let outcome = await group.waitUntilFinished()
        guard case .failed(let error) = outcome else {
            Issue.record("expected the group to fail, got \(outcome)")
            return
        }
        #expect(error as? TestFailure == .permanent)
        guard case .cancelled(.dependencyFailed(let dependency, _))? = second.outcome else {
            Issue.record("recipe: \(String(describing: second.outcome))")
            return
        }
        #expect(dependency == "image")
        #expect(ran.count == 0)
        #expect(group.output == nil)
    }

    @Test("a group's outcome is its first child's in dependency order that did not succeed, else succeeded")
    func outcomeDerivation() {
        let failure = ProcedureOutcome.failed(TestFailure.permanent)
        let cancelled = ProcedureOutcome.cancelled(.requested("user"))
        let deferred = ProcedureOutcome.deferred(Deferral(error: TestFailure.transient, retryAfter: nil, attempts: 3))
        #expect(ProcedureOutcome.ofGroup([]).isSuccess)
        #expect(ProcedureOutcome.ofGroup([.succeeded, .succeeded]).isSuccess)
        #expect(ProcedureOutcome.ofGroup([failure, cancelled]).word == "failed")
        #expect(ProcedureOutcome.ofGroup([cancelled, failure]).word == "cancelled")
        #expect(ProcedureOutcome.ofGroup([.succeeded, deferred, cancelled]).word == "deferred")
        guard case .deferred(let deferral) = ProcedureOutcome.ofGroup([.succeeded, deferred]) else {
            Issue.record("expected the child's deferral")
            return
        }
        #expect(deferral.attempts == 3)
    }

    @Test("a group's typed output is its output child's, and a group can be another procedure's typed input")
    func typedOutput() async throws {
        let queue = ProcedureQueue()
        let first = Procedure<String>(name: "image") { _ in "https://server/v1/images/abc" }
        let second = Procedure<Int>(name: "recipe", input: first) { url, _ in url.count }
        let group = GroupProcedure(name: "upload", children: [first.erased, second.erased], output: second)
        let report = Procedure<String>(name: "report", input: group) { count, _ in "sent \(count)" }
        queue.add([report.erased, group.erased])
        #expect(try await report.value() == "sent \("https://server/v1/images/abc".count)")
        #expect(group.output == "https://server/v1/images/abc".count)
        let empty = GroupProcedure(name: "nothing", children: [])
        queue.add(empty)
        #expect(await empty.waitUntilFinished().isSuccess)
    }

    @Test("children keep their own conditions, retries and observers; the group's observers hear the group")
    func childrenKeepTheirOwn() async throws {
        let clock = ManualClock()
        let queue = ProcedureQueue(clock: clock, random: FixedRandomSource(1))
        let probe = FakeReachability(reachable: true)
        let reachable = ReachabilityCondition(host: "server", port: 80, probe: probe)
        let failOnce = Locked(true)
        let first = Procedure<String>(name: "image", conditions: [reachable], retry: .standard) { context in
            context.reportProgress(completed: 1, total: 2)
            if failOnce.withLock({ value in defer { value = false }; return value }) { throw TestFailure.transient }
            return "url"
        }
        let second = Procedure<Int>(name: "recipe", input: first, conditions: [reachable]) { url, _ in url.count }
        let childEvents = Recorder<String>(), groupLog = EventLog()
        first.addObserver(BlockObserver(onEvent: { childEvents.append($0.name) }))
        let group = GroupProcedure(
            name: "upload", conditions: [MutualExclusion("recipe:2")], children: [first.erased, second.erased],
            output: second)
        group.addObserver(groupLog)
        queue.add(group)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(try await group.value() == 3)
        #expect(childEvents.all == ["start", "progress", "retry", "progress", "finish"])
        #expect(groupLog.names(for: group.id) == ["start", "finish"])
        #expect(probe.probeCount == 3)   // each step's condition, the retried one evaluated again
    }

    @Test("a group that cannot start cancels its children, which each finish once without running")
    func unstartedGroupFinishesChildren() async {
        let queue = ProcedureQueue()
        let ran = Recorder<String>()
        let log = EventLog()
        let failing = Procedure<Void>(name: "login") { _ in throw TestFailure.permanent }
        let first = Procedure<Void>(name: "image") { _ in ran.append("image") }
        let second = Procedure<Void>(name: "recipe") { _ in ran.append("recipe") }
        second.addDependency(first)
        first.addObserver(log)
        second.addObserver(log)
        let group = GroupProcedure(name: "upload", children: [first.erased, second.erased])
        group.addDependency(failing)
        queue.add([failing.erased, group.erased])
        await withinDeadline("unstarted group") { await queue.waitUntilAllFinished() }
        guard case .cancelled(.dependencyFailed(let dependency, _))? = group.outcome else {
            Issue.record("group: \(String(describing: group.outcome))")
            return
        }
        #expect(dependency == "login")
        #expect(first.outcome?.isCancelled == true)
        #expect(second.outcome?.isCancelled == true)
        #expect(log.names(for: first.id) == ["cancel", "finish"])
        #expect(log.names(for: second.id) == ["cancel", "finish"])
        #expect(ran.count == 0)
    }

    @Test("a child deferred for the network defers the group, with the child's attempts")
    func deferredChild() async {
        let queue = ProcedureQueue()
        let unreachable = ReachabilityCondition(host: "server", port: 80, probe: FakeReachability(reachable: false))
        let first = Procedure<String>(name: "image", conditions: [unreachable], retry: .standard, previousAttempts: 2) {
            _ in "url"
        }
        let second = Procedure<Int>(name: "recipe", input: first) { url, _ in url.count }
        let group = GroupProcedure(name: "upload", children: [first.erased, second.erased], output: second)
        queue.add(group)
        guard case .deferred(let deferral) = await group.waitUntilFinished() else {
            Issue.record("expected a deferral, got \(String(describing: group.outcome))")
            return
        }
        #expect(deferral.attempts == 2)
        #expect((deferral.error as? EngineError)?.isUnreachable == true)
        #expect(second.outcome?.isCancelled == true)
    }
}

@Suite("Attempt counts across a chain")
struct AttemptContinuationTests {
    @Test("a step that continues its input's count starts where the input's failed attempts left off: the limit is the chain's")
    func continuesInputCount() async {
        let queue = ProcedureQueue(clock: ManualClock(), random: FixedRandomSource(0))
        let policy = RetryPolicy(maxAttempts: 4)
        let imageCalls = Locked(0), recipeCalls = Locked(0)
        let image = Procedure<String>(name: "image", retry: policy, previousAttempts: 1) { _ in
            let call = imageCalls.withLock { value in
                value += 1
                return value
            }
            if call < 3 { throw TestFailure.transient }   // attempts 2 and 3 fail, 4 succeeds
            return "url"
        }
        let recipe = Procedure<Void>(name: "recipe", input: image, retry: policy, previousAttempts: 1, continuesAttempts: true) {
            _, _ in
            recipeCalls.withLock { $0 += 1 }
            throw TestFailure.transient
        }
        queue.add([image.erased, recipe.erased])
        await withinDeadline("chain") { await queue.waitUntilAllFinished() }
        #expect(image.attempt == 4)
        #expect(recipe.previousAttempts == 3)   // the input's four attempts less the one that succeeded
        #expect(recipeCalls.withLock { $0 } == 1)   // attempt 4 of 4: not retried
        #expect(recipe.attempt == 4)
        #expect(recipe.outcome?.error as? TestFailure == .transient)
    }

    @Test("a continued count is seen by the step's conditions: a deferral for the network reports the chain's attempts")
    func continuedCountInDeferral() async {
        let queue = ProcedureQueue()
        let unreachable = ReachabilityCondition(host: "server", port: 80, probe: FakeReachability(reachable: false))
        let image = Procedure<String>(name: "image", previousAttempts: 2) { _ in "url" }
        let recipe = Procedure<Void>(name: "recipe", conditions: [unreachable], retry: .standard) { _ in }
        recipe.continueAttemptCount(of: image)
        #expect(recipe.dependencies.map(\.id) == [image.id])
        queue.add([image.erased, recipe.erased])
        guard case .deferred(let deferral) = await recipe.waitUntilFinished() else {
            Issue.record("expected a deferral, got \(String(describing: recipe.outcome))")
            return
        }
        #expect(deferral.attempts == 2)
    }
}
