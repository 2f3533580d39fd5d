import Locking
import Testing
@testable import OperationEngine
import OperationEngineTestSupport

/// A driver task that holds a slot goes on to the next ready procedure instead of ending: every guarantee holds for
/// the procedures it moves on to (bodies that do not suspend make it move on at once).
@Suite("Drivers moving on")
struct DriverTests {
    @Test("procedures on shared keys: in order per key, no overlap, one start and one finish each, outputs")
    func orderAndEvents() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 2)
        let occupancy = KeyOccupancy()
        let order = Recorder<Int>()
        let log = EventLog()
        let procedures = (0..<300).map { index in
            let key = "k\(index % 3)"
            let procedure = Procedure<Int>(name: "s\(index)", conditions: [MutualExclusion(key)]) { _ in
                occupancy.enter([key])
                defer { occupancy.leave([key]) }
                if index % 3 == 0 { order.append(index) }
                return index * 2
            }
            if index % 10 == 0 { procedure.addObserver(log) }
            return procedure
        }
        #expect(procedures[0].erased === procedures[0])   // the typed and the erased face are one object
        await withinDeadline("run") {
            queue.add(procedures.map(\.erased))
            await queue.waitUntilAllFinished()
        }
        #expect(occupancy.overlaps == 0)
        #expect(order.all == Array(stride(from: 0, to: 300, by: 3)))
        #expect(procedures.allSatisfy { $0.output == Int($0.name.dropFirst())! * 2 })
        for procedure in procedures where Int(procedure.name.dropFirst())! % 10 == 0 {
            #expect(log.names(for: procedure.id) == ["start", "finish"])
        }
    }

    @Test("a body that throws a transient error on a driver that moved on to it is retried, then succeeds")
    func retried() async throws {
        let clock = ManualClock()
        let queue = ProcedureQueue(maxConcurrentProcedures: 1, clock: clock, random: FixedRandomSource(0.5))
        let failures = Locked(1)
        let log = EventLog()
        // `first` makes the driver move on to `flaky` as its next procedure.
        let first = Procedure<Void>(name: "first", conditions: [MutualExclusion("k")]) { _ in }
        let flaky = Procedure<Int>(
            name: "flaky", conditions: [MutualExclusion("k")],
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .seconds(2), maxDelay: .seconds(60))
        ) { context in
            let fail = failures.withLock { count -> Bool in
                defer { count -= 1 }
                return count > 0
            }
            if fail { throw TestFailure.transient }
            return context.attempt
        }
        flaky.addObserver(log)
        queue.add([first.erased, flaky.erased])
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(60))
        #expect(try await flaky.value() == 2)
        #expect(log.names(for: flaky.id) == ["start", "retry", "finish"])
        #expect(await first.waitUntilFinished().isSuccess)
    }

    @Test("a body that fails permanently on a driver that moved on to it cancels its dependents")
    func failure() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 1)
        let first = Procedure<Void>(name: "first", conditions: [MutualExclusion("k")]) { _ in }
        let failing = Procedure<Void>(name: "failing", conditions: [MutualExclusion("k")]) { _ in
            throw TestFailure.permanent
        }
        let dependent = Procedure<Void>(name: "dependent") { _ in }
        dependent.addDependency(failing)
        queue.add([first.erased, failing.erased, dependent.erased])
        await queue.waitUntilAllFinished()
        guard case .failed(let error) = await failing.waitUntilFinished() else {
            Issue.record("a permanent failure must fail the procedure")
            return
        }
        #expect(error as? TestFailure == .permanent)
        guard case .cancelled = await dependent.waitUntilFinished() else {
            Issue.record("the dependent of a failed procedure must be cancelled")
            return
        }
    }

    @Test("cancellation reaches a body on a driver that moved on to it: its handlers run and the task is cancelled")
    func cancellation() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 1)
        let handled = Locked(false)
        let sawTaskCancelled = Locked(false)
        let first = Procedure<Void>(name: "first", conditions: [MutualExclusion("k")]) { _ in }
        let cancelled = Procedure<Void>(name: "cancelled", conditions: [MutualExclusion("k")]) { context in
            context.onCancel { handled.withLock { $0 = true } }
            context.procedure.cancel(reason: .requested("test"))
            sawTaskCancelled.withLock { $0 = Task.isCancelled }
            throw CancellationError()
        }
        let after = Procedure<Int>(name: "after", conditions: [MutualExclusion("k")]) { _ in 7 }
        queue.add([first.erased, cancelled.erased, after.erased])
        await queue.waitUntilAllFinished()
        #expect(await cancelled.waitUntilFinished().isCancelled)
        #expect(handled.withLock { $0 })
        #expect(sawTaskCancelled.withLock { $0 })
        #expect(after.output == 7)   // the late cancel did not reach the next procedure
    }

    @Test("bodies that suspend and bodies that do not, mixed, with cancels and chains: no overlap, one finish each",
          arguments: [UInt64(21), 22])
    func mixedStress(seed: UInt64) async {
        let random = SeededRandomSource(seed: seed)
        let queue = ProcedureQueue(maxConcurrentProcedures: 4, clock: ManualClock(), random: random)
        let occupancy = KeyOccupancy()
        let finishes = Locked<[ProcedureID: Int]>([:])
        let observer = BlockObserver(onFinish: { procedure, _ in finishes.withLock { $0[procedure.id, default: 0] += 1 } })
        let keys = ["a", "b", "c", "d"]
        var procedures: [AnyProcedure] = []
        for index in 0..<2_000 {
            let key = keys[random.next(below: keys.count)]
            let fails = random.next(below: 20) == 0
            let procedure: AnyProcedure
            if random.next(below: 2) == 0 {
                procedure = Procedure<Void>(name: "s\(index)", conditions: [MutualExclusion(key)]) { _ in
                    occupancy.enter([key])
                    occupancy.leave([key])
                    if fails { throw TestFailure.permanent }
                }
            } else {
                procedure = Procedure<Void>(name: "a\(index)", conditions: [MutualExclusion(key)]) { _ in
                    occupancy.enter([key])
                    await Task.yield()
                    occupancy.leave([key])
                    if fails { throw TestFailure.permanent }
                }
            }
            procedure.addObserver(observer)
            if let previous = procedures.last, random.next(below: 8) == 0 { procedure.addDependency(previous) }
            procedures.append(procedure)
        }
        let cancels = procedures.filter { _ in random.next(below: 10) == 0 }
        let all = procedures
        await withinDeadline("mixed stress run") {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { queue.add(all) }
                group.addTask {
                    for procedure in cancels {
                        procedure.cancel()
                        await Task.yield()
                    }
                }
            }
            await queue.waitUntilAllFinished()
        }
        #expect(occupancy.overlaps == 0)
        let counts = finishes.withLock { $0 }
        #expect(counts.count == procedures.count)
        #expect(counts.values.allSatisfy { $0 == 1 })
        #expect(queue.unfinishedCount == 0)
    }

    @Test("a finished procedure, once released, releases its body and whatever it captured")
    func releasesBody() async {
        final class Captured: Sendable {}
        let queue = ProcedureQueue()
        nonisolated(unsafe) weak var weakCaptured: Captured?
        nonisolated(unsafe) weak var weakProcedure: AnyProcedure?
        do {
            let captured = Captured()
            weakCaptured = captured
            let procedure = Procedure<Void>(name: "capturing") { _ in _ = captured }
            weakProcedure = procedure
            queue.add(procedure)
            _ = await procedure.waitUntilFinished()
        }
        await queue.waitUntilAllFinished()
        #expect(await eventually { weakCaptured == nil && weakProcedure == nil })
    }
}
