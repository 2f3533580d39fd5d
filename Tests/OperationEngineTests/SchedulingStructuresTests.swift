import Testing
@testable import OperationEngine

@Suite("Ready lines (pure)")
struct ReadyLinesTests {
    @Test("higher priority first, then first-come within a priority")
    func priorityThenFirstCome() {
        var ready = ReadyLines<String>()
        ready.insert("n1", priority: 0)
        ready.insert("l1", priority: -100)
        ready.insert("h1", priority: 100)
        ready.insert("n2", priority: 0)
        ready.insert("h2", priority: 100)
        ready.insert("m1", priority: 50)
        var order: [String] = []
        while let next = ready.popMax() { order.append(next) }
        #expect(order == ["h1", "h2", "m1", "n1", "n2", "l1"])
        #expect(ready.isEmpty)
    }

    @Test("a priority that empties and comes back keeps its place")
    func priorityComesBack() {
        var ready = ReadyLines<Int>()
        ready.insert(1, priority: 0)
        #expect(ready.popMax() == 1)
        #expect(ready.isEmpty)
        ready.insert(2, priority: 0)
        ready.insert(3, priority: 5)
        ready.insert(4, priority: 0)
        #expect(ready.popMax() == 3)
        #expect(ready.popMax() == 2)
        #expect(ready.popMax() == 4)
        #expect(ready.popMax() == nil)
    }
}

@Suite("Exclusivity tickets (pure)")
struct ExclusivityTicketTests {
    @Test("leaving with the kept ticket grants the next single-key member and empties the table")
    func singleKeyTickets() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(3)
        let first = lines.join(m[1], keys: ["a"])
        let second = lines.join(m[2], keys: ["a"])
        #expect(first.granted)
        #expect(!second.granted)
        #expect(lines.holdsAllKeys(m[1], ticket: first.ticket))
        #expect(!lines.holdsAllKeys(m[2], ticket: second.ticket))
        var granted: [Int] = []
        lines.leave(m[1], ticket: first.ticket) { granted.append($0.takeUnretainedValue().value) }
        #expect(granted == [2])
        #expect(lines.holdsAllKeys(m[2], ticket: second.ticket))
        granted = []
        lines.leave(m[2], ticket: second.ticket) { granted.append($0.takeUnretainedValue().value) }
        #expect(granted.isEmpty)
        #expect(lines.isEmpty)
    }

    @Test("a long line stays first-come, and again after it emptied")
    func firstComeAcrossGrowth() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(300)
        for round in 0..<2 {
            var tickets: [(LineTestMember, ExclusivityLines<LineTestMember>.Ticket)] = []
            for member in m {
                let (ticket, granted) = lines.join(member, key: "k")
                #expect(granted == (member.value == 0), "round \(round), member \(member.value)")
                tickets.append((member, ticket))
            }
            var order: [Int] = [0]
            for (member, ticket) in tickets {
                lines.leave(member, ticket: ticket) { order.append($0.takeUnretainedValue().value) }
            }
            #expect(order == Array(0..<300), "round \(round)")
            #expect(lines.isEmpty)
        }
    }

    @Test("many keys used one after the other: idle lines are dropped without losing a member")
    func idleLinesDropped() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(3_000)
        // One member per key at a time, 3,000 keys: more than a thousand lines go idle and are dropped.
        for member in m {
            let (ticket, granted) = lines.join(member, key: "k\(member.value)")
            #expect(granted)
            var none = true
            lines.leave(member, ticket: ticket) { _ in none = false }
            #expect(none)
        }
        #expect(lines.isEmpty)
        let (_, granted) = lines.join(m[0], key: "k0")
        #expect(granted)
    }

    @Test("a member with several keys is granted once, when it heads its last line")
    func severalKeysGrantedOnce() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(4)
        let a = lines.join(m[1], keys: ["a"])
        let b = lines.join(m[2], keys: ["b"])
        let both = lines.join(m[3], keys: ["a", "b"])
        #expect(!both.granted)
        var granted: [Int] = []
        lines.leave(m[2], ticket: b.ticket) { granted.append($0.takeUnretainedValue().value) }
        #expect(granted.isEmpty)
        lines.leave(m[1], ticket: a.ticket) { granted.append($0.takeUnretainedValue().value) }
        #expect(granted == [3])
        #expect(lines.holder(of: "a")?.value == 3)
        #expect(lines.holder(of: "b")?.value == 3)
        lines.leave(m[3], ticket: both.ticket) { granted.append($0.takeUnretainedValue().value) }
        #expect(granted == [3])
        #expect(lines.isEmpty)
    }

    @Test("a member with several keys behind single-key members, leaving from the middle of one line")
    func severalKeysLeaveFromMiddle() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(5)
        let a = lines.join(m[1], keys: ["a"])
        let both = lines.join(m[2], keys: ["a", "b"])
        let after = lines.join(m[3], key: "a")
        #expect(lines.members(of: "a").map(\.value) == [1, 2, 3])
        var granted: [Int] = []
        lines.leave(m[2], ticket: both.ticket) { granted.append($0.takeUnretainedValue().value) }   // cancelled while waiting
        #expect(granted.isEmpty)
        #expect(lines.members(of: "a").map(\.value) == [1, 3])
        #expect(lines.members(of: "b").isEmpty)
        lines.leave(m[1], ticket: a.ticket) { granted.append($0.takeUnretainedValue().value) }
        #expect(granted == [3])
        lines.leave(m[3], ticket: after.ticket) { granted.append($0.takeUnretainedValue().value) }
        #expect(lines.isEmpty)
    }

    @Test("a waiting member that leaves from the middle grants nobody and keeps the others' order")
    func leaveFromMiddleWithTicket() {
        var lines = ExclusivityLines<LineTestMember>()
        let m = LineTestMember.make(4)
        let first = lines.join(m[1], keys: ["k"])
        let middle = lines.join(m[2], keys: ["k"])
        _ = lines.join(m[3], keys: ["k"])
        var granted: [Int] = []
        lines.leave(m[2], ticket: middle.ticket) { granted.append($0.takeUnretainedValue().value) }
        #expect(granted.isEmpty)
        #expect(lines.members(of: "k").map(\.value) == [1, 3])
        lines.leave(m[1], ticket: first.ticket) { granted.append($0.takeUnretainedValue().value) }
        #expect(granted == [3])
    }
}

@Suite("Procedure storage (pure)")
struct ProcedureStorageTests {
    @Test("a lone MutualExclusion is kept as its key and given back as the same condition, before any added one")
    func loneExclusionRoundTrip() {
        let procedure = Procedure<Void>(name: "p", conditions: [MutualExclusion("recipe:1")]) { _ in }
        #expect(procedure.state.withLock { $0.exclusionKey } == "recipe:1")
        #expect(procedure.state.withLock { $0.otherConditions.isEmpty })
        #expect(procedure.exclusivityKeys == ["recipe:1"])
        procedure.addCondition(MutualExclusion("recipe:2"))
        #expect(procedure.exclusivityKeys == ["recipe:1", "recipe:2"])
        #expect(procedure.conditions.count == 3)   // the two exclusions and the implicit NoFailedDependencies
        #expect((procedure.conditions.first as? MutualExclusion)?.keys == ["recipe:1"])
    }

    @Test("other condition lists are stored as given")
    func otherConditionsKept() {
        let several = Procedure<Void>(name: "p", conditions: [MutualExclusion("a", "b")]) { _ in }
        #expect(several.state.withLock { $0.exclusionKey } == nil)
        #expect(several.exclusivityKeys == ["a", "b"])
        let none = Procedure<Void>(name: "p", cancelsOnDependencyFailure: false) { _ in }
        #expect(none.conditions.isEmpty)
    }

    @Test("the default and standard retry policies are stored by name, any other one boxed, all read back intact")
    func retryPolicyStorage() {
        let byDefault = Procedure<Void>(name: "p") { _ in }
        let standard = Procedure<Void>(name: "p", retry: .standard) { _ in }
        let custom = Procedure<Void>(name: "p", retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5))) { _ in }
        guard case .none = StoredRetryPolicy(byDefault.retryPolicy) else {
            Issue.record("the default policy was boxed")
            return
        }
        guard case .standard = StoredRetryPolicy(standard.retryPolicy) else {
            Issue.record("the standard policy was boxed")
            return
        }
        guard case .custom = StoredRetryPolicy(custom.retryPolicy) else {
            Issue.record("a custom policy was stored by name")
            return
        }
        #expect(byDefault.retryPolicy.maxAttempts == 1)
        #expect(standard.retryPolicy.maxAttempts == 8)
        #expect(custom.retryPolicy.maxAttempts == 3)
        #expect(custom.retryPolicy.baseDelay == .milliseconds(5))
        #expect(Procedure<Void>(name: "p", previousAttempts: 2) { _ in }.previousAttempts == 2)
    }

    @Test("outputs are read back: Void without a box, others boxed")
    func outputs() async throws {
        let queue = ProcedureQueue(maxConcurrentProcedures: 2)
        let void = Procedure<Void>(name: "void") { _ in }
        let number = Procedure<Int>(name: "number") { _ in 42 }
        let text = Procedure<String?>(name: "text") { _ in nil }
        queue.add([void.erased, number.erased, text.erased])
        await queue.waitUntilAllFinished()
        try await void.value()
        #expect(try await number.value() == 42)
        #expect(number.anyOutput as? Int == 42)
        #expect(text.outcome?.isSuccess == true)
        #expect(void.anyOutput is Void)
    }
}
