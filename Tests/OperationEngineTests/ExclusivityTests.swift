import Testing
@testable import OperationEngine

@Suite("Exclusivity lines (pure)")
struct ExclusivityLinesTests {
    @Test("the first member holds the key; the next is granted when it leaves, first-come")
    func firstComeFirstServed() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(4)
        let granted = [lines.enqueue(m[1], keys: ["a"]), lines.enqueue(m[2], keys: ["a"]), lines.enqueue(m[3], keys: ["a"])]
        #expect(granted == [true, false, false])
        #expect(lines.holder(of: "a")?.value == 1)
        let afterFirst = lines.remove(m[1]).map(\.value)
        let afterSecond = lines.remove(m[2]).map(\.value)
        let afterThird = lines.remove(m[3]).map(\.value)
        #expect(afterFirst == [2])
        #expect(afterSecond == [3])
        #expect(afterThird == [])
        #expect(lines.isEmpty)
    }

    @Test("a member with several keys is granted only when it heads every line")
    func severalKeys() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(4)
        let granted = [lines.enqueue(m[1], keys: ["a"]), lines.enqueue(m[2], keys: ["b"]), lines.enqueue(m[3], keys: ["a", "b"])]
        #expect(granted == [true, true, false])
        let afterFirst = lines.remove(m[1]).map(\.value)
        #expect(afterFirst == [])
        #expect(lines.holdsAllKeys(m[3]) == false)
        let afterSecond = lines.remove(m[2]).map(\.value)
        #expect(afterSecond == [3])
        #expect(lines.holdsAllKeys(m[3]))
        let afterLast = lines.remove(m[3])
        #expect(afterLast.isEmpty)
        #expect(lines.isEmpty)
    }

    @Test("leaving from the middle of a line grants nobody and keeps the order")
    func leaveFromMiddle() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(4)
        _ = lines.enqueue(m[1], keys: ["a"])
        _ = lines.enqueue(m[2], keys: ["a"])
        _ = lines.enqueue(m[3], keys: ["a"])
        let afterMiddle = lines.remove(m[2]).map(\.value)
        #expect(afterMiddle == [])
        #expect(lines.members(of: "a").map(\.value) == [1, 3])
        let afterHead = lines.remove(m[1]).map(\.value)
        #expect(afterHead == [3])
    }

    @Test("leaving from the end of a line keeps the line open for the next member")
    func leaveFromEnd() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(5)
        _ = lines.enqueue(m[1], keys: ["a"])
        _ = lines.enqueue(m[2], keys: ["a"])
        let afterEnd = lines.remove(m[2])
        #expect(afterEnd.isEmpty)
        _ = lines.enqueue(m[3], keys: ["a"])
        #expect(lines.members(of: "a").map(\.value) == [1, 3])
        let afterHead = lines.remove(m[1]).map(\.value)
        #expect(afterHead == [3])
        let afterLast = lines.remove(m[3])
        #expect(afterLast.isEmpty)
        #expect(lines.isEmpty)
        let grantedAgain = lines.enqueue(m[4], keys: ["a"])
        #expect(grantedAgain)
    }

    @Test("different keys do not wait on each other")
    func independentKeys() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(4)
        let granted = [lines.enqueue(m[1], keys: ["a"]), lines.enqueue(m[2], keys: ["b"]), lines.enqueue(m[3], keys: [])]
        #expect(granted == [true, true, true])
    }
}

/// A member of `ExclusivityLines` for tests: a number, compared by identity.
final class LineTestMember: ExclusivityLineMember {
    let value: Int
    var nextInLine: ExclusivityLink?

    init(_ value: Int) { self.value = value }

    /// Members numbered 0..<count (the tests keep them alive while they are in lines).
    static func make(_ count: Int) -> [LineTestMember] { (0..<count).map(LineTestMember.init) }
}

@Suite("Mutual exclusion in the queue")
struct ExclusivityQueueTests {
    @Test("at most one procedure per key runs at a time while other keys run in parallel")
    func onePerKeyOthersParallel() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 4)
        let occupancy = KeyOccupancy()
        let gate = Gate()
        let started = Recorder<String>()
        var all: [Procedure<Void>] = []
        for key in ["a", "b", "c"] {
            for index in 0..<5 {
                let procedure = Procedure<Void>(name: "\(key)\(index)", conditions: [MutualExclusion(key)]) { _ in
                    occupancy.enter([key])
                    started.append(key)
                    try await gate.wait()
                    occupancy.leave([key])
                }
                all.append(procedure)
                queue.add(procedure)
            }
        }
        // Three keys can run together even though each has five procedures waiting.
        #expect(await eventually { started.count == 3 })
        #expect(Set(started.all) == ["a", "b", "c"])
        gate.open()
        await withinDeadline("exclusive procedures") { await queue.waitUntilAllFinished() }
        #expect(occupancy.overlaps == 0)
        #expect(all.allSatisfy { $0.outcome?.isSuccess == true })
    }

    @Test("same-key procedures run in the order they were added")
    func servedFirstCome() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 4)
        let order = Recorder<Int>()
        for index in 0..<20 {
            queue.add(Procedure<Void>(name: "p\(index)", conditions: [MutualExclusion("recipe:1")]) { _ in order.append(index) })
        }
        await queue.waitUntilAllFinished()
        #expect(order.all == Array(0..<20))
    }

    @Test("procedures holding several keys in crossing orders do not deadlock or overlap")
    func severalKeysNoDeadlock() async {
        let queue = ProcedureQueue(maxConcurrentProcedures: 4)
        let occupancy = KeyOccupancy()
        for index in 0..<200 {
            let keys = index.isMultiple(of: 2) ? ["x", "y"] : ["y", "x"]
            let extra = index.isMultiple(of: 3) ? ["z"] : []
            queue.add(Procedure<Void>(name: "multi\(index)", conditions: [MutualExclusion(keys: keys + extra)]) { _ in
                occupancy.enter(keys + extra)
                await Task.yield()
                occupancy.leave(keys + extra)
            })
        }
        await withinDeadline("multi-key procedures") { await queue.waitUntilAllFinished() }
        #expect(occupancy.overlaps == 0)
    }

    @Test("keys are released when a procedure fails, is cancelled while running, or fails a condition")
    func keysReleasedOnEveryExit() async throws {
        struct Refused: ProcedureCondition {
            func evaluate(_ context: ConditionContext) async throws { throw TestFailure.permanent }
        }
        let queue = ProcedureQueue(maxConcurrentProcedures: 2)
        let key = MutualExclusion("k")
        let failing = Procedure<Void>(name: "throws", conditions: [key]) { _ in throw TestFailure.permanent }
        let started = Gate()
        let cancelled = Procedure<Void>(name: "cancelled", conditions: [key]) { _ in
            started.open()
            try await Gate().wait()
        }
        let refused = Procedure<Void>(name: "refused", conditions: [key, Refused()]) { _ in }
        let last = Procedure<Int>(name: "last", conditions: [key]) { _ in 7 }
        queue.add(failing)
        queue.add(cancelled)
        queue.add(refused)
        queue.add(last)
        try await started.wait()
        cancelled.cancel()
        let value = try await last.value()
        #expect(value == 7)
        #expect(failing.outcome?.error as? TestFailure == .permanent)
        #expect(cancelled.outcome?.isCancelled == true)
        #expect(refused.outcome?.error as? TestFailure == .permanent)
        #expect(queue.holder(of: "k") == nil)
    }

    @Test("a dependency queued behind its own dependent on the same key fails at once with a clear error")
    func selfWaitFailsFast() async {
        let queue = ProcedureQueue()
        let key = MutualExclusion("recipe:42")
        let image = Procedure<String>(name: "image", conditions: [key]) { _ in "https://x/img" }
        let ran = Recorder<String>()
        let json = Procedure<Void>(name: "json", input: image, conditions: [key]) { url, _ in ran.append(url) }
        queue.add(json)   // wrong order: the dependent takes the key's line first
        queue.add(image)
        await withinDeadline("self-wait detection") { await queue.waitUntilAllFinished() }
        let error = image.outcome?.error as? EngineError
        #expect(error?.isSelfWait == true)
        #expect(error?.errorDescription?.contains("recipe:42") == true)
        guard case .cancelled(.dependencyFailed(let dependency, _))? = json.outcome else {
            Issue.record("json should be cancelled because its dependency failed, got \(String(describing: json.outcome))")
            return
        }
        #expect(dependency == "image")
        #expect(ran.count == 0)
    }

    @Test("adding a chain as an array orders dependencies first, so it runs")
    func arrayAddOrdersDependencies() async throws {
        let queue = ProcedureQueue()
        let key = MutualExclusion("recipe:43")
        let image = Procedure<String>(name: "image", conditions: [key]) { _ in "u" }
        let json = Procedure<String>(name: "json", input: image, conditions: [key]) { url, _ in url + "!" }
        queue.add([json.erased, image.erased])
        #expect(try await json.value() == "u!")
    }
}
