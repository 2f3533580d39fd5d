import Testing
@testable import OperationEngine

@Suite("Life cycle")
struct LifecycleTests {
    @Test("only the documented transitions are allowed")
    func transitionTable() {
        let all: [ProcedureState] = [.initialized, .pending, .evaluatingConditions, .ready, .executing, .waitingToRetry, .finished]
        let allowed: Set<[ProcedureState]> = [
            [.initialized, .pending],
            [.pending, .evaluatingConditions], [.pending, .finished],
            [.evaluatingConditions, .ready], [.evaluatingConditions, .waitingToRetry], [.evaluatingConditions, .finished],
            [.ready, .executing], [.ready, .finished],
            [.executing, .waitingToRetry], [.executing, .finished],
            [.waitingToRetry, .evaluatingConditions], [.waitingToRetry, .finished],
        ]
        for from in all {
            for to in all {
                #expect(from.canTransition(to: to) == allowed.contains([from, to]), "\(from) → \(to)")
            }
        }
    }

    @Test("a procedure passes pending → evaluating → ready → executing → finished in order")
    func statesInOrder() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 1)
        let seen = Recorder<ProcedureState>()
        let procedure = Procedure<Int>(name: "answer") { context in
            seen.append(context.procedure.lifecycle)
            return 42
        }
        #expect(procedure.lifecycle == .initialized)
        queue.add(procedure)
        let value = try? await procedure.value()
        #expect(value == 42)
        #expect(seen.all == [.executing])
        #expect(procedure.lifecycle == .finished)
        #expect(procedure.outcome?.isSuccess == true)
    }

    @Test("an invalid transition is refused and changes nothing")
    func invalidTransitionRefused() {
        let procedure = Procedure<Void>(name: "idle") { _ in }
        #expect(procedure.erased.transition(to: .executing) == false)
        #expect(procedure.lifecycle == .initialized)
    }

    @Test("finishing twice delivers one finish and keeps the first outcome")
    func finishTwice() async {
        let queue = ProcedureQueue()
        let log = EventLog()
        let procedure = Procedure<Void>(name: "twice") { _ in }
        procedure.addObserver(log)
        procedure.erased.state.withLock { $0.lifecycle = .pending }
        queue.complete(procedure.erased, outcome: .failed(TestFailure.permanent), output: nil, holdsSlot: false)
        queue.complete(procedure.erased, outcome: .succeeded, output: nil, holdsSlot: false)
        #expect(log.count("finish") == 1)
        #expect(procedure.outcome?.isSuccess == false)
    }

    @Test("cancel racing with finish: exactly one finish, one outcome, over many runs")
    func cancelDuringFinish() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 4)
        let log = EventLog()
        var procedures: [Procedure<Void>] = []
        for index in 0..<300 {
            let procedure = Procedure<Void>(name: "race\(index)") { _ in }
            procedure.addObserver(log)
            procedures.append(procedure)
        }
        await withTaskGroup(of: Void.self) { group in
            for procedure in procedures {
                group.addTask { queue.add(procedure) }
                group.addTask { procedure.cancel() }
            }
        }
        await withinDeadline("queue drain") { await queue.waitUntilAllFinished() }
        for procedure in procedures {
            #expect(log.names(for: procedure.id).filter { $0 == "finish" }.count == 1)
            #expect(procedure.lifecycle == .finished)
        }
        #expect(queue.unfinishedCount == 0)
    }

    @Test("a procedure cancelled before it is added never executes")
    func cancelBeforeAdd() async {
        let queue = ProcedureQueue()
        let ran = Recorder<Bool>()
        let procedure = Procedure<Void>(name: "never") { _ in ran.append(true) }
        procedure.cancel(reason: .requested("test"))
        queue.add(procedure)
        let outcome = await procedure.waitUntilFinished()
        #expect(outcome.isCancelled)
        #expect(ran.count == 0)
    }

    @Test("a procedure cancelled while waiting for a slot never executes")
    func cancelBeforeStart() async throws {
        let queue = ProcedureQueue(maxConcurrentProcedures: 1)
        let gate = Gate()
        let started = Gate()
        let blocker = Procedure<Void>(name: "blocker") { _ in
            started.open()
            try await gate.wait()
        }
        let ran = Recorder<Bool>()
        let waiting = Procedure<Void>(name: "waiting") { _ in ran.append(true) }
        queue.add(blocker)
        try await started.wait()
        queue.add(waiting)
        waiting.cancel(reason: .requested("user"))
        gate.open()
        await queue.waitUntilAllFinished()
        #expect(waiting.outcome?.isCancelled == true)
        #expect(ran.count == 0)
        #expect(blocker.outcome?.isSuccess == true)
    }
}
