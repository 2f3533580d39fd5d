import Locking
import Testing
@testable import OperationEngine
import OperationEngineTestSupport

@Suite("Randomized stress")
struct StressTests {
    @Test("thousands of procedures over few keys with random cancels, failures and chains: no overlap, no lost finish, no deadlock",
          arguments: [UInt64(1), 2, 3])
    func randomized(seed: UInt64) async {
        let random = SeededRandomSource(seed: seed)
        let queue = ProcedureQueue(maxConcurrentProcedures: 4, clock: ManualClock(), random: random)
        let occupancy = KeyOccupancy()
        let finishes = Locked<[ProcedureID: Int]>([:])
        let observer = BlockObserver(onFinish: { procedure, _ in finishes.withLock { $0[procedure.id, default: 0] += 1 } })
        let keys = ["a", "b", "c", "d", "e"]
        var procedures: [AnyProcedure] = []
        for index in 0..<2_000 {
            var mine = [keys[random.next(below: keys.count)]]
            if random.next(below: 4) == 0 { mine.append(keys[random.next(below: keys.count)]) }
            let unique = Array(Set(mine)).sorted()
            let fails = random.next(below: 10) == 0
            let procedure = Procedure<Void>(name: "s\(index)", conditions: [MutualExclusion(keys: mine)]) { _ in
                occupancy.enter(unique)
                await Task.yield()
                occupancy.leave(unique)
                if fails { throw TestFailure.permanent }
            }
            procedure.addObserver(observer)
            if let previous = procedures.last, random.next(below: 5) == 0 { procedure.addDependency(previous) }
            procedures.append(procedure.erased)
        }
        let cancels = procedures.filter { _ in random.next(below: 10) == 0 }
        let all = procedures
        await withinDeadline("stress run") {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for procedure in all { queue.add(procedure) } }
                group.addTask {
                    for procedure in cancels {
                        procedure.cancel()
                        await Task.yield()
                    }
                }
                group.addTask { _ = queue.cancel(key: "e") }
            }
            await queue.waitUntilAllFinished()
        }
        #expect(occupancy.overlaps == 0)
        let counts = finishes.withLock { $0 }
        #expect(counts.count == procedures.count)
        #expect(counts.values.allSatisfy { $0 == 1 })
        #expect(procedures.allSatisfy { $0.isFinished })
        #expect(cancels.allSatisfy { $0.isFinished })
        #expect(queue.unfinishedCount == 0)
    }

    @Test("simple procedures added in batches while others are cancelled concurrently: every one finishes once, no overlap, none left",
          arguments: [UInt64(11), 12, 13])
    func batchedAddsWithConcurrentCancels(seed: UInt64) async {
        let random = SeededRandomSource(seed: seed)
        let queue = ProcedureQueue(maxConcurrentProcedures: 4, clock: ManualClock(), random: random)
        let occupancy = KeyOccupancy()
        let keys = ["a", "b", "c", "d", "e"]
        var procedures: [AnyProcedure] = []
        for index in 0..<3_000 {
            let key = keys[random.next(below: keys.count)]
            let yields = random.next(below: 3) == 0
            // No observer, dependency or dependent: these take the batched registration path.
            let procedure = Procedure<Void>(name: "b\(index)", conditions: [MutualExclusion(key)]) { _ in
                occupancy.enter([key])
                if yields { await Task.yield() }
                occupancy.leave([key])
            }
            procedures.append(procedure.erased)
        }
        let cancels = procedures.filter { _ in random.next(below: 8) == 0 }
        let all = procedures
        await withinDeadline("batched stress run") {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    var start = 0
                    while start < all.count {
                        let end = min(all.count, start + 300)
                        queue.add(Array(all[start..<end]))
                        start = end
                        await Task.yield()
                    }
                }
                group.addTask {
                    for procedure in cancels {
                        procedure.cancel()
                        if Int.random(in: 0..<4) == 0 { await Task.yield() }
                    }
                }
            }
            await queue.waitUntilAllFinished()
        }
        #expect(occupancy.overlaps == 0)
        #expect(occupancy.maxRunning <= 4)
        #expect(procedures.allSatisfy { $0.isFinished })
        let cancelled = Set(cancels.map(\.id))
        for procedure in procedures where !cancelled.contains(procedure.id) {
            guard case .succeeded = procedure.outcome else {
                Issue.record("\(procedure) finished with \(String(describing: procedure.outcome))")
                continue
            }
        }
        #expect(queue.unfinishedCount == 0)
    }
}
