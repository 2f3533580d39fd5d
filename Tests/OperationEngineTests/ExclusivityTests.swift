import Testing
@testable import OperationEngine

@Suite("Exclusivity lines (pure)")
struct ExclusivityLinesTests {
    @Test("the first member holds the key; the next is granted when it leaves, first-come")
    func firstComeFirstServed() {
        var lines = ExclusivityLines<Int>()
        let granted = [lines.join(1, keys: ["a"]), lines.join(2, keys: ["a"]), lines.join(3, keys: ["a"])]
        #expect(granted == [true, false, false])
        #expect(lines.holder(of: "a") == 1)
        let result1 = lines.leaving(1, keys: ["a"])
        #expect(result1 == [2])
        let result2 = lines.leaving(2, keys: ["a"])
        #expect(result2 == [3])
        let result3 = lines.leaving(3, keys: ["a"])
        #expect(result3 == [])
        #expect(lines.isEmpty)
    }

    @Test("a member with several keys is granted only when it heads every line")
    func severalKeys() {
        var lines = ExclusivityLines<Int>()
        let granted = [lines.join(1, keys: ["a"]), lines.join(2, keys: ["b"]), lines.join(3, keys: ["a", "b"])]
        #expect(granted == [true, true, false])
        let result4 = lines.leaving(1, keys: ["a"])
        #expect(result4 == [])
        #expect(lines.holdsAllKeys(3, keys: ["a", "b"]) == false)
        let result5 = lines.leaving(2, keys: ["b"])
        #expect(result5 == [3])
        #expect(lines.holdsAllKeys(3, keys: ["a", "b"]))
        let result6 = lines.leaving(3, keys: ["a", "b"])
        #expect(result6.isEmpty)
        #expect(lines.isEmpty)
    }

    @Test("leaving from the middle of a line grants nobody and keeps the order")
    func leaveFromMiddle() {
        var lines = ExclusivityLines<Int>()
        _ = lines.join(1, keys: ["a"])
        _ = lines.join(2, keys: ["a"])
        _ = lines.join(3, keys: ["a"])
        let result7 = lines.leaving(2, keys: ["a"])
        #expect(result7 == [])
        #expect(lines.members(of: "a") == [1, 3])
        let result8 = lines.leaving(1, keys: ["a"])
        #expect(result8 == [3])
    }

    @Test("leaving from the end of a line keeps the line open for the next member")
    func leaveFromEnd() {
        var lines = ExclusivityLines<Int>()
        _ = lines.join(1, keys: ["a"])
        _ = lines.join(2, keys: ["a"])
        let result9 = lines.leaving(2, keys: ["a"])
        #expect(result9.isEmpty)
        _ = lines.join(3, keys: ["a"])
        #expect(lines.members(of: "a") == [1, 3])
        let result10 = lines.leaving(1, keys: ["a"])
        #expect(result10 == [3])
        let result11 = lines.leaving(3, keys: ["a"])
        #expect(result11.isEmpty)
        #expect(lines.isEmpty)
        let result12 = lines.join(4, keys: ["a"])
        #expect(result12)
    }

    @Test("different keys do not wait on each other")
    func independentKeys() {
        var lines = ExclusivityLines<Int>()
        let granted = [lines.join(1, keys: ["a"]), lines.join(2, keys: ["b"]), lines.join(3, keys: [])]
        #expect(granted == [true, true, true])
    }

    @Test("a long line stays first-come, and again after it emptied")
    func firstComeAcrossGrowth() {
        var lines = ExclusivityLines<Int>()
        for round in 0..<2 {
            for member in 0..<300 {
                let result13 = lines.join(member, keys: ["k"])
                #expect(result13 == (member == 0), "round \(round), member \(member)")
            }
            var order: [Int] = [0]
            for member in 0..<300 { order += lines.leaving(member, keys: ["k"]) }
            #expect(order == Array(0..<300), "round \(round)")
            #expect(lines.isEmpty)
        }
    }

    @Test("many keys used one after the other leave no line behind")
    func emptiedLinesGo() {
        var lines = ExclusivityLines<Int>()
        for member in 0..<3_000 {
            let result14 = lines.join(member, keys: ["k\(member)"])
            #expect(result14)
            let result15 = lines.leaving(member, keys: ["k\(member)"])
            #expect(result15.isEmpty)
        }
        #expect(lines.isEmpty)
        let result16 = lines.join(0, keys: ["k0"])
        #expect(result16)
    }

    @Test("a member with several keys behind single-key members, leaving from the middle of one line")
    func severalKeysLeaveFromMiddle() {
        var lines = ExclusivityLines<Int>()
        _ = lines.join(1, keys: ["a"])
        let result17 = lines.join(2, keys: ["a", "b"])
        #expect(!result17)
        _ = lines.join(3, keys: ["a"])
        #expect(lines.members(of: "a") == [1, 2, 3])
        let cancelledWhileWaiting = lines.leaving(2, keys: ["a", "b"])
        #expect(cancelledWhileWaiting.isEmpty)
        #expect(lines.members(of: "a") == [1, 3])
        #expect(lines.members(of: "b").isEmpty)
        let result18 = lines.leaving(1, keys: ["a"])
        #expect(result18 == [3])
        let result19 = lines.leaving(3, keys: ["a"])
        #expect(result19.isEmpty)
        #expect(lines.isEmpty)
    }

    @Test("a member with several keys is granted once, when it heads its last line")
    func severalKeysGrantedOnce() {
        var lines = ExclusivityLines<Int>()
        _ = lines.join(1, keys: ["a"])
        _ = lines.join(2, keys: ["b"])
        let result20 = lines.join(3, keys: ["a", "b"])
        #expect(!result20)
        let result21 = lines.leaving(2, keys: ["b"])
        #expect(result21.isEmpty)
        let result22 = lines.leaving(1, keys: ["a"])
        #expect(result22 == [3])
        #expect(lines.holder(of: "a") == 3)
        #expect(lines.holder(of: "b") == 3)
        let result23 = lines.leaving(3, keys: ["a", "b"])
        #expect(result23.isEmpty)
        #expect(lines.isEmpty)
    }
}

extension ExclusivityLines {
    /// `leave`, collecting the granted members.
    mutating func leaving(_ member: Member, keys: [String]) -> [Member] {
        var granted: [Member] = []
        leave(member, keys: keys) { granted.append($0) }
        return granted
    }
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
