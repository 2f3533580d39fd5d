import Locking
import Testing
@testable import OperationEngine

@Suite("Queue")
struct QueueTests {
    @Test("no more procedures execute at once than the concurrency bound")
    func boundedConcurrency() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 3)
        let occupancy = KeyOccupancy()
        for index in 0..<60 {
            queue.add(Procedure<Void>(name: "p\(index)") { _ in
                occupancy.enter([])
                try await Task.sleep(for: .milliseconds(1))
                occupancy.leave([])
            })
        }
        await queue.waitUntilAllFinished()
        #expect(occupancy.maxRunning <= 3)
        #expect(occupancy.maxRunning >= 1)
    }

    @Test("raising the concurrency bound starts waiting procedures at once; lowering it starts none until below it")
    func changedConcurrency() async throws {
        let queue = ProcedureQueue(maxConcurrentProcedures: 1)
        let gate = Gate()
        let running = Locked(0)
        let runningAtStart = Recorder<(index: Int, running: Int)>()
        for index in 0..<6 {
            queue.add(Procedure<Void>(name: "p\(index)") { _ in
                let now = running.withLock { $0 += 1; return $0 }
                runningAtStart.append((index, now))
                if index < 4 { try await gate.wait() }
                running.withLock { $0 -= 1 }
            })
        }
        #expect(await eventually { runningAtStart.all.count == 1 }, "one runs under the bound of one")
        queue.setMaxConcurrentProcedures(4)
        #expect(queue.maxConcurrentProcedures == 4)
        #expect(await eventually { runningAtStart.all.count == 4 }, "raised to four: three more start, none finished")
        queue.setMaxConcurrentProcedures(2)
        gate.open()
        await queue.waitUntilAllFinished()
        let late = runningAtStart.all.filter { $0.index >= 4 }
        #expect(late.count == 2)
        #expect(late.allSatisfy { $0.running <= 2 }, "lowered to two: the last two started only below it: \(late)")
    }

    @Test("among ready procedures the higher priority runs first, then first-come")
    func priorities() async throws {
        let queue = ProcedureQueue(maxConcurrentProcedures: 1)
        let gate = Gate()
        let started = Gate()
        let order = Recorder<String>()
        queue.add(Procedure<Void>(name: "blocker") { _ in
            started.open()
            try await gate.wait()
        })
        try await started.wait()
        for (name, priority) in [("low", ProcedurePriority.low), ("normal1", .normal), ("high", .high), ("normal2", .normal)] {
            queue.add(Procedure<Void>(name: name, priority: priority) { _ in order.append(name) })
        }
        gate.open()
        await queue.waitUntilAllFinished()
        #expect(order.all == ["high", "normal1", "normal2", "low"])
    }

    @Test("cancel by key cancels the running and the waiting procedures of that key only")
    func cancelByKey() async throws {
        let queue = ProcedureQueue()
        let started = Gate()
        let running = Procedure<Void>(name: "running", conditions: [MutualExclusion("recipe:1")]) { _ in
            started.open()
            try await Gate().wait()
        }
        let waiting = Procedure<Void>(name: "waiting", conditions: [MutualExclusion("recipe:1")]) { _ in }
        let other = Procedure<Int>(name: "other", conditions: [MutualExclusion("recipe:2")]) { _ in 2 }
        queue.add(running)
        queue.add(waiting)
        try await started.wait()
        #expect(queue.cancel(key: "recipe:1") == 2)
        queue.add(other)
        await queue.waitUntilAllFinished()
        #expect(running.outcome?.isCancelled == true)
        #expect(waiting.outcome?.isCancelled == true)
        #expect(other.output == 2)
        #expect(queue.cancel(key: "recipe:1") == 0)
    }

    @Test("cancel all finishes every procedure and the queue drains")
    func cancelAll() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 2)
        var all: [Procedure<Void>] = []
        for index in 0..<50 {
            let procedure = Procedure<Void>(name: "p\(index)", conditions: [MutualExclusion("k\(index % 3)")]) { _ in
                try await Gate().wait()
            }
            all.append(procedure)
            queue.add(procedure)
        }
        queue.cancelAll()
        await withinDeadline("cancel all") { await queue.waitUntilAllFinished() }
        #expect(all.allSatisfy { $0.outcome?.isCancelled == true })
    }

    @Test("cancel all reaches every unfinished procedure: without keys, with one key, with several, waiting on a dependency")
    func cancelAllReachesEveryKind() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 2)
        let gate = Gate()
        var all: [AnyProcedure] = []
        func make(_ name: String, _ keys: [String]) -> Procedure<Void> {
            let conditions: [any ProcedureCondition] = keys.isEmpty ? [] : [MutualExclusion(keys: keys)]
            let procedure = Procedure<Void>(name: name, conditions: conditions) { _ in try await gate.wait() }
            all.append(procedure.erased)
            return procedure
        }
        // Running or waiting for a slot, without keys (only the queue's own table knows them).
        let keyless = (0..<4).map { make("free\($0)", []) }
        // With one key, with several keys (several lines each), and waiting on a dependency.
        let single = (0..<3).map { make("one\($0)", ["k\($0 % 2)"]) }
        let several = (0..<3).map { make("two\($0)", ["k0", "k\($0 + 1)"]) }
        let dependent = make("dependent", ["k9"])
        dependent.addDependency(keyless[0])
        let keylessDependent = make("keylessDependent", [])
        keylessDependent.addDependency(single[0])
        for procedure in keyless + single + several + [dependent, keylessDependent] { queue.add(procedure) }
        #expect(queue.unfinishedCount == all.count)

        queue.cancelAll()
        // `cancel` records the request before returning: every procedure must have been reached.
        for procedure in all { #expect(procedure.isCancelled, "\(procedure.name) was not cancelled") }
        gate.open()
        await withinDeadline("cancel all") { await queue.waitUntilAllFinished() }
        #expect(all.allSatisfy { $0.outcome?.isCancelled == true })
        #expect(queue.unfinishedCount == 0)
    }

    @Test("waiting for all finished returns at once on an empty queue")
    func emptyQueue() async {
        let queue = ProcedureQueue()
        await queue.waitUntilAllFinished()
        #expect(queue.unfinishedCount == 0)
    }

    @Test("feeding 100,000 procedures in windows keeps at most a window of them in memory")
    func windowedFeed() async throws {
        let queue = ProcedureQueue(maxConcurrentProcedures: 4)
        let total = 100_000
        let window = 1_000
        let fed = Locked(0)
        let done = Locked(0)
        try await queue.feed(window: window) { limit in
            let start = fed.withLock { count -> Int in
                defer { count = min(total, count + limit) }
                return count
            }
            let end = min(total, start + limit)
            return (start..<end).map { index in
                Procedure<Void>(name: "item", conditions: [MutualExclusion("k\(index % 100)")]) { _ in
                    done.withLock { $0 += 1 }
                }.erased
            }
        }
        await queue.waitUntilAllFinished()
        #expect(done.withLock { $0 } == total)
        #expect(queue.peakUnfinishedCount <= window)
        #expect(queue.peakUnfinishedCount > 0)
    }
}
