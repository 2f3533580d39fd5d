import Locking
import Testing
@testable import OperationEngine
import OperationEngineTestSupport

@Suite("Observers and events")
struct ObserverTests {
    @Test("start, produce, progress, cancel and finish each reach the observer exactly once")
    func eachEventOnce() async throws {
        let queue = ProcedureQueue()
        let log = EventLog()
        let child = Procedure<Void>(name: "child") { _ in }
        let started = Gate()
        let parent = Procedure<Void>(name: "parent") { context in
            context.produce(child)
            context.reportProgress(completed: 5, total: 10)
            started.open()
            try await Gate().wait()
        }
        parent.addObserver(log)
        queue.add(parent)
        try await started.wait()
        parent.cancel(reason: .requested("user"))
        parent.cancel(reason: .requested("again"))
        await queue.waitUntilAllFinished()
        #expect(log.names(for: parent.id) == ["start", "produced", "cancel", "finish"])
        guard case .cancelled(.requested(let who))? = parent.outcome else {
            Issue.record("expected cancellation")
            return
        }
        #expect(who == "user")
        #expect(child.outcome?.isSuccess == true)
    }

    @Test("the queue's event stream carries every step of a chain, in order, with tags")
    func eventStream() async throws {
        let clock = ManualClock()
        let queue = ProcedureQueue(clock: clock, random: FixedRandomSource(0))
        let stream = queue.events()
        let failOnce = Locked(true)
        let image = Procedure<String>(name: "image", retry: .standard, tags: ["step": "image"]) { context in
            context.reportProgress(completed: 1, total: 2)
            if failOnce.withLock({ value in defer { value = false }; return value }) { throw TestFailure.transient }
            return "url"
        }
        let json = Procedure<Void>(name: "json", input: image, tags: ["step": "recipe"]) { _, _ in }
        queue.add(image)
        queue.add(json)
        var lines: [String] = []
        for await event in stream {
            lines.append("\(event.info.tags["step"] ?? "?") \(event.name)")
            if case .finished(let info, _) = event, info.id == json.id { break }
        }
        #expect(lines == [
            "image start", "image progress", "image retry", "image progress", "image finish",
            "recipe start", "recipe finish",
        ])
    }

    @Test("observers and procedures are released after finishing, even when the observer captures the procedure")
    func noRetainCycles() async {
        let queue = ProcedureQueue()
        nonisolated(unsafe) weak var weakProcedure: AnyProcedure?
        do {
            let procedure = Procedure<Void>(name: "cyclic") { _ in }
            let erased = procedure.erased
            erased.addObserver(BlockObserver(onFinish: { _, _ in _ = erased.name }))
            weakProcedure = erased
            queue.add(procedure)
            _ = await procedure.waitUntilFinished()
        }
        await queue.waitUntilAllFinished()
        #expect(await eventually { weakProcedure == nil })
    }

    @Test("the timeout observer cancels a procedure still running after its timeout")
    func timeout() async {
        let clock = ManualClock()
        let queue = ProcedureQueue()
        let procedure = Procedure<Void>(name: "slow") { _ in try await Gate().wait() }
        procedure.addObserver(TimeoutObserver(after: .seconds(5), clock: clock))
        queue.add(procedure)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        guard case .cancelled(.timedOut(let after)) = await procedure.waitUntilFinished() else {
            Issue.record("expected a timeout")
            return
        }
        #expect(after == .seconds(5))
    }

    @Test("the timeout observer does nothing to a procedure that finishes in time")
    func timeoutNotReached() async throws {
        let clock = ManualClock()
        let queue = ProcedureQueue()
        let procedure = Procedure<Int>(name: "quick") { _ in 1 }
        procedure.addObserver(TimeoutObserver(after: .seconds(5), clock: clock))
        queue.add(procedure)
        #expect(try await procedure.value() == 1)
        #expect(await eventually { clock.sleeperCount == 0 })
    }
}
